// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
//
// Retrieval by a learned embedding against exact EMD search (issue 9; seed 001 §7.7, which
// reports the embedding 905.9x faster than WMD on Amazon "in the distance calculation
// phase").
//
//   bench_retrieval DATASET CHECKPOINT OUT.json [--k K] [--queries N] [--rounds R]
//                   [--threads T] [--methods brute,pruned]
//
// Queries: the first N test items (default 100); database: the train split. Per round, on
// the same queries:
//   embedding  encode the N queries with the checkpoint (train::embedWithCheckpoint on a
//              dataset of the queries; one call, so it includes loading the checkpoint
//              once), then FAISS exact L2 search of the k nearest among the train items'
//              embeddings (eval::nearestNeighbours: IndexFlatL2, all cores through OpenMP).
//              The train items are embedded once before the rounds (the index, built
//              offline; reported, not counted).
//   exact      ot::emdKnnQueries over the train split, brute force and pruned, all cores.
// Also timed: encoding one query alone (the checkpoint load plus one set), from which the
// marginal cost of a query and the load are estimated. Prints best and median seconds per
// path, the ratios exact / embedding of the best times, the cores each run obtained (process
// CPU time / wall time) and the load average, and checks that every exact run returns the
// same neighbours. Writes everything to OUT.json.

#include "bench/BenchUtil.h"
#include "core/builtins/Builtins.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/data/Dataset.h"
#include "core/data/DerivedDatasets.h"
#include "core/eval/Knn.h"
#include "core/ot/EmdKnn.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

using namespace setscope;
using Clock = std::chrono::steady_clock;

namespace {

using bench::loadAverage;
using bench::processCpuSeconds;

/// Wall seconds, cores obtained (CPU / wall) and the load average before and after.
struct Timing {
    double seconds = 0.0;
    double cores = 0.0;
    std::string loadBefore, loadAfter;
};

template <class Fn>
Timing timed(Fn&& fn)
{
    Timing t;
    t.loadBefore = loadAverage();
    const double c0 = processCpuSeconds();
    const auto w0 = Clock::now();
    fn();
    t.seconds = std::chrono::duration<double>(Clock::now() - w0).count();
    t.cores = (processCpuSeconds() - c0) / std::max(t.seconds, 1e-9);
    t.loadAfter = loadAverage();
    return t;
}

struct Series {
    std::vector<Timing> runs;
    double best() const
    {
        double b = INFINITY;
        for (const Timing& t : runs)
            b = std::min(b, t.seconds);
        return b;
    }
    double median() const
    {
        std::vector<double> s;
        for (const Timing& t : runs)
            s.push_back(t.seconds);
        std::sort(s.begin(), s.end());
        return s.empty() ? 0.0 : s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
    }
    nlohmann::ordered_json json() const
    {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (const Timing& t : runs)
            a.push_back({{"seconds", t.seconds}, {"cores", t.cores}, {"load_before", t.loadBefore}, {"load_after", t.loadAfter}});
        return {{"best", best()}, {"median", median()}, {"runs", a}};
    }
};

int usage()
{
    std::fprintf(stderr, "usage: bench_retrieval DATASET CHECKPOINT OUT.json [--k K] [--queries N] [--rounds R] "
                         "[--threads T] [--methods brute,pruned]\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 4)
        return usage();
    const std::string spec = argv[1], checkpoint = argv[2], out = argv[3];
    int k = 10, rounds = 2, threads = 0;
    std::int64_t nQueries = 100;
    bool brute = true, pruned = true;
    for (int i = 4; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc)
            return usage();
        const std::string v = argv[++i];
        if (a == "--k")
            k = std::stoi(v);
        else if (a == "--queries")
            nQueries = std::stoll(v);
        else if (a == "--rounds")
            rounds = std::stoi(v);
        else if (a == "--threads")
            threads = std::stoi(v);
        else if (a == "--methods") {
            brute = v.find("brute") != std::string::npos;
            pruned = v.find("pruned") != std::string::npos;
        } else
            return usage();
    }
    if (threads <= 0)
        threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(threads); // LibTorch's intra-op threads of this (the encoding) thread

    plugin::Registry registry;
    builtins::registerBuiltins(registry);
    const data::Dataset ds = catalog::openDataset(spec, registry);
    const std::vector<std::int64_t> train = ds.indices(data::Split::Train);
    const std::vector<std::int64_t> test = ds.indices(data::Split::Test);
    if (train.empty() || test.empty()) {
        std::fprintf(stderr, "bench_retrieval: '%s' needs a train and a test split\n", ds.name().c_str());
        return 1;
    }
    std::vector<std::int64_t> queries(test.begin(), test.begin() + std::min<std::ptrdiff_t>(nQueries, static_cast<std::ptrdiff_t>(test.size())));
    const data::Dataset queryDs = data::subset(ds, queries);
    const data::Dataset oneQueryDs = data::subset(ds, {queries.front()});
    double querySetSize = 0;
    for (std::int64_t q : queries)
        querySetSize += static_cast<double>(ds.setSize(static_cast<std::size_t>(q)));
    querySetSize /= static_cast<double>(queries.size());
    std::printf("dataset %s: %zu train items (database), %zu queries (first test items, mean %.1f elements), k = %d, "
                "%d threads (LibTorch intra-op %d)\n",
                ds.name().c_str(), train.size(), queries.size(), querySetSize, k, threads, at::get_num_threads());

    // The index: every train item embedded once (offline work, reported and not counted).
    train::Embeddings dbAll;
    const Timing indexT = timed([&] { dbAll = train::embedWithCheckpoint(checkpoint, ds, registry); });
    const int dim = dbAll.dim;
    const std::vector<float> db = eval::gatherRows({dbAll.data.data(), static_cast<std::int64_t>(ds.size()), dim}, train);
    const eval::MatrixView dbView{db.data(), static_cast<std::int64_t>(train.size()), dim};
    const nlohmann::json cfg = nlohmann::json::parse(dbAll.config);
    std::printf("checkpoint %s: model %s, %d-d embedding; embedding all %zu items (the index): %.1f s on %.2f cores\n",
                checkpoint.c_str(), cfg.value("model", std::string("?")).c_str(), dim, ds.size(), indexT.seconds, indexT.cores);

    Series encodeS, encodeOneS, searchS, bruteS, prunedS;
    eval::Neighbours embNb;
    std::vector<ot::EmdKnnResult> reference;
    std::int64_t bruteSolves = 0, prunedSolves = 0;
    bool identical = true;
    ot::EmdKnnOptions eo;
    eo.threads = threads;
    for (int round = 0; round < rounds; ++round) {
        train::Embeddings qe;
        encodeS.runs.push_back(timed([&] { qe = train::embedWithCheckpoint(checkpoint, queryDs, registry); }));
        const eval::MatrixView qView{qe.data.data(), static_cast<std::int64_t>(queries.size()), dim};
        searchS.runs.push_back(timed([&] { embNb = eval::nearestNeighbours(dbView, qView, k, false); }));
        encodeOneS.runs.push_back(timed([&] { (void)train::embedWithCheckpoint(checkpoint, oneQueryDs, registry); }));
        std::printf("round %d: encode %.3f s (%.2f cores), search %.4f s (%.2f cores), encode one query %.3f s\n",
                    round + 1, encodeS.runs.back().seconds, encodeS.runs.back().cores, searchS.runs.back().seconds,
                    searchS.runs.back().cores, encodeOneS.runs.back().seconds);
        std::fflush(stdout);
        for (int m = 0; m < 2; ++m) {
            const bool isBrute = m == 0;
            if ((isBrute && !brute) || (!isBrute && !pruned))
                continue;
            eo.method = isBrute ? ot::EmdKnnMethod::BruteForce : ot::EmdKnnMethod::Pruned;
            std::vector<ot::EmdKnnResult> r;
            const Timing t = timed([&] { r = ot::emdKnnQueries(ds, queries, train, k, eo); });
            (isBrute ? bruteS : prunedS).runs.push_back(t);
            std::int64_t solves = 0;
            for (const auto& x : r)
                solves += x.stats.exactSolves;
            (isBrute ? bruteSolves : prunedSolves) = solves;
            if (reference.empty())
                reference = r;
            else
                for (std::size_t i = 0; i < r.size(); ++i)
                    for (std::size_t j = 0; j < r[i].neighbours.size(); ++j)
                        identical = identical && r[i].neighbours[j].item == reference[i].neighbours[j].item &&
                                    r[i].neighbours[j].emd == reference[i].neighbours[j].emd;
            std::printf("round %d: exact %s %.2f s (%.2f cores, load %s -> %s), %lld exact EMDs\n", round + 1,
                        isBrute ? "brute force" : "pruned", t.seconds, t.cores, t.loadBefore.c_str(), t.loadAfter.c_str(),
                        static_cast<long long>(solves));
            std::fflush(stdout);
        }
    }

    // How many of the exact k nearest the embedding finds (informational; a briefly trained
    // model's quality is not what is measured here).
    double found = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
        std::set<std::int64_t> exact;
        for (const auto& n : reference[i].neighbours)
            exact.insert(n.item);
        for (int j = 0; j < k; ++j) {
            const std::int64_t id = embNb.ids[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(j)];
            if (id >= 0 && exact.count(train[static_cast<std::size_t>(id)]))
                found += 1;
        }
    }
    const double overlap = found / static_cast<double>(queries.size() * static_cast<std::size_t>(k));

    const double enc = encodeS.best(), search = searchS.best(), one = encodeOneS.best();
    const double perQuery = queries.size() > 1 ? std::max(0.0, (enc - one) / static_cast<double>(queries.size() - 1)) : enc;
    const double embedding = enc + search;
    std::printf("\nbest of %d rounds, %zu queries:\n", rounds, queries.size());
    std::printf("  embedding    %.4f s = encode %.4f s + FAISS search %.5f s  (per query %.3f ms; one query alone %.3f s, "
                "of which ~%.3f s loading the checkpoint)\n",
                embedding, enc, search, 1e3 * embedding / static_cast<double>(queries.size()), one, std::max(0.0, one - perQuery));
    if (brute)
        std::printf("  brute force  %.2f s (%lld exact EMDs, %.2f ms per query)  exact / embedding %.1fx, "
                    "exact / search only %.0fx\n",
                    bruteS.best(), static_cast<long long>(bruteSolves), 1e3 * bruteS.best() / static_cast<double>(queries.size()),
                    bruteS.best() / embedding, bruteS.best() / search);
    if (pruned)
        std::printf("  pruned       %.2f s (%lld exact EMDs, %.2f ms per query)  exact / embedding %.1fx, "
                    "exact / search only %.0fx\n",
                    prunedS.best(), static_cast<long long>(prunedSolves), 1e3 * prunedS.best() / static_cast<double>(queries.size()),
                    prunedS.best() / embedding, prunedS.best() / search);
    std::printf("  marginal encode per query %.3f ms: brute force / (marginal encode + search) %.0fx\n", 1e3 * perQuery,
                brute ? bruteS.best() / (perQuery * static_cast<double>(queries.size()) + search) : 0.0);
    std::printf("  exact runs identical: %s; the embedding finds %.1f %% of the exact %d nearest\n", identical ? "yes" : "NO",
                100.0 * overlap, k);

    nlohmann::ordered_json j = {
        {"dataset", ds.name()},
        {"checkpoint", checkpoint},
        {"model", cfg.value("model", std::string("?"))},
        {"embedding_dim", dim},
        {"database_items", train.size()},
        {"queries", queries.size()},
        {"mean_query_elements", querySetSize},
        {"k", k},
        {"threads", threads},
        {"index_seconds", indexT.seconds},
        {"encode", encodeS.json()},
        {"encode_one_query", encodeOneS.json()},
        {"search", searchS.json()},
        {"brute_force", bruteS.json()},
        {"pruned", prunedS.json()},
        {"brute_force_exact_emds", bruteSolves},
        {"pruned_exact_emds", prunedSolves},
        {"ratio_brute_vs_embedding", brute ? bruteS.best() / embedding : 0.0},
        {"ratio_pruned_vs_embedding", pruned ? prunedS.best() / embedding : 0.0},
        {"ratio_brute_vs_search", brute ? bruteS.best() / search : 0.0},
        {"ratio_pruned_vs_search", pruned ? prunedS.best() / search : 0.0},
        {"exact_identical", identical},
        {"embedding_overlap_with_exact", overlap}};
    std::ofstream(out) << j.dump(2);
    return identical ? 0 : 1;
}
