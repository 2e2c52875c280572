// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `retrieve`: the top K of one item by a checkpoint's embedding and by exact EMD, side by
// side, with the time each path takes (seed 001 §7.7: embedding search against EMD search).
#include "CliContext.h"
#include "Commands.h"
#include "ConsoleSink.h"

#include "core/data/Dataset.h"
#include "core/eval/Knn.h"
#include "core/ot/EmdKnn.h"
#include "core/train/ModelHandle.h"

#include <setscope/sdk/Errors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <thread>

namespace setscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Hit {
    std::int64_t item = -1;
    double distance = 0.0;
};

/// "0.35 ms", "1.2 s": query-time numbers span microseconds to minutes.
std::string formatDuration(double s)
{
    char buf[32];
    if (s < 1e-3)
        std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    else if (s < 1.0)
        std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
    else if (s < 60)
        std::snprintf(buf, sizeof buf, "%.2f s", s);
    else
        return formatSeconds(s);
    return buf;
}

} // namespace

void addRetrieveCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("retrieve", "The K nearest items of one query by a checkpoint's embedding and by "
                                               "exact EMD, side by side, with the time of each path (seed 001 §7.7)");
    struct Opt {
        std::string dataset, checkpoint, candidates = "train", labelSet = "fine";
        std::int64_t query = -1;
        int k = 10;
        int threads = 0;
        bool bruteForce = false, json = false, otherData = false;
    };
    auto o = std::make_shared<Opt>();
    cmd->add_option("--dataset", o->dataset, "dataset name or path")->required();
    cmd->add_option("--checkpoint", o->checkpoint, "checkpoint trained on this dataset (setscope-cli train)")->required();
    cmd->add_option("--query", o->query, "query item (index into the dataset)")->required();
    cmd->add_option("--k", o->k, "neighbours")->capture_default_str()->check(CLI::PositiveNumber);
    cmd->add_option("--candidates", o->candidates, "train (the train split; every item when there is none) | all")
        ->capture_default_str();
    cmd->add_option("--label-set", o->labelSet, "labels to show and compare")->capture_default_str();
    cmd->add_option("--threads", o->threads, "threads of the exact search (0 = all cores)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--brute-force", o->bruteForce, "exact EMD to every candidate instead of the pruned search");
    cmd->add_flag("--allow-other-data", o->otherData,
                  "use a checkpoint trained on other data of the same dimension (transfer)");
    cmd->add_flag("--json", o->json, "print the result as JSON");
    cmd->callback([ctx, o, &rc] {
        CliContext& c = ctx();
        const auto ds = c.openDataset(o->dataset);
        const std::size_t q = checkItem(*ds, o->query, "--query");
        if (o->candidates != "train" && o->candidates != "all")
            throw std::invalid_argument("--candidates must be train or all, not '" + o->candidates + "'");
        std::vector<std::int64_t> cands = o->candidates == "all" ? std::vector<std::int64_t>() : ds->indices(data::Split::Train);
        if (cands.empty()) {
            cands.resize(ds->size());
            std::iota(cands.begin(), cands.end(), 0);
        }
        cands.erase(std::remove(cands.begin(), cands.end(), static_cast<std::int64_t>(q)), cands.end());
        if (cands.empty())
            throw std::invalid_argument("dataset '" + ds->name() + "' has no item to retrieve besides the query");
        const int k = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(o->k), cands.size()));

        // --- embedding path ----------------------------------------------------------------
        // The model is loaded once (as a retrieval service would), the database embedded once;
        // a query's time is encoding it alone plus the search among the candidates.
        auto t0 = Clock::now();
        const std::shared_ptr<const train::ModelHandle> model = train::ModelHandle::fromCheckpoint(o->checkpoint, c.registry);
        const double loadS = secondsSince(t0);
        checkModelFitsDataset(*model, *ds, o->checkpoint, o->otherData);
        t0 = Clock::now();
        const std::vector<float> db = model->embed(*ds);
        const double databaseS = secondsSince(t0);
        const int dim = model->dim();
        const std::vector<float> base = eval::gatherRows({db.data(), static_cast<std::int64_t>(ds->size()), dim}, cands);

        t0 = Clock::now();
        const std::vector<float> qv = model->embed(*ds, {static_cast<std::int64_t>(q)});
        const double encodeS = secondsSince(t0);
        t0 = Clock::now();
        const eval::Neighbours nn = eval::nearestNeighbours({base.data(), static_cast<std::int64_t>(cands.size()), dim},
                                                            {qv.data(), 1, dim}, k, false);
        const double searchS = secondsSince(t0);
        std::vector<Hit> byEmbedding;
        for (int r = 0; r < k; ++r)
            byEmbedding.push_back({cands[static_cast<std::size_t>(nn.ids[static_cast<std::size_t>(r)])],
                                   static_cast<double>(nn.distances[static_cast<std::size_t>(r)])});

        // --- exact path ----------------------------------------------------------------------
        ot::EmdKnnOptions eo;
        eo.method = o->bruteForce ? ot::EmdKnnMethod::BruteForce : ot::EmdKnnMethod::Pruned;
        eo.threads = o->threads;
        const int threads = o->threads > 0 ? o->threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        ConsoleSink sink;
        if (!o->json)
            eo.progress = [&sink](const ot::EmdKnnProgress& p) { sink.progress(p.candidatesDone, p.candidates, "exact EMD kNN"); };
        t0 = Clock::now();
        const ot::EmdKnnResult exact = ot::emdKnnQueries(*ds, {static_cast<std::int64_t>(q)}, cands, k, eo).front();
        const double exactS = secondsSince(t0);
        if (!o->json)
            sink.finished(job::JobStatus::Finished, {}); // clears the progress bar
        std::vector<Hit> byEmd;
        for (const ot::EmdNeighbour& n : exact.neighbours)
            byEmd.push_back({n.item, n.emd});

        // --- report --------------------------------------------------------------------------
        const data::LabelSet* ls = ds->labelSet(o->labelSet);
        const std::int32_t qLabel = ls ? ls->labels[q] : -1;
        auto sameLabel = [&](std::int64_t i) { return qLabel >= 0 && ls->labels[static_cast<std::size_t>(i)] == qLabel; };
        std::set<std::int64_t> inEmb, inEmd;
        for (const Hit& h : byEmbedding)
            inEmb.insert(h.item);
        for (const Hit& h : byEmd)
            inEmd.insert(h.item);
        int overlap = 0, sameEmb = 0, sameEmd = 0;
        for (const Hit& h : byEmbedding) {
            overlap += inEmd.count(h.item) ? 1 : 0;
            sameEmb += sameLabel(h.item) ? 1 : 0;
        }
        for (const Hit& h : byEmd)
            sameEmd += sameLabel(h.item) ? 1 : 0;
        const double embeddingS = encodeS + searchS;
        const std::string method = o->bruteForce ? "brute-force" : "pruned";

        if (o->json) {
            auto list = [&](const std::vector<Hit>& hits, const std::set<std::int64_t>& other, const char* key) {
                nlohmann::ordered_json a = nlohmann::ordered_json::array();
                for (std::size_t r = 0; r < hits.size(); ++r)
                    a.push_back({{"rank", r + 1},
                                 {"item", hits[r].item},
                                 {"label", labelOf(*ds, static_cast<std::size_t>(hits[r].item), o->labelSet)},
                                 {key, hits[r].distance},
                                 {"same_label", sameLabel(hits[r].item)},
                                 {"in_both", other.count(hits[r].item) != 0}});
                return a;
            };
            nlohmann::ordered_json out = {
                {"dataset", ds->name()},
                {"checkpoint", o->checkpoint},
                {"query", {{"item", q}, {"label", labelOf(*ds, q, o->labelSet)}, {"elements", ds->setSize(q)}}},
                {"k", k},
                {"candidates", cands.size()},
                {"label_set", o->labelSet},
                {"embedding",
                 {{"distance", "euclidean"},
                  {"dim", dim},
                  {"neighbours", list(byEmbedding, inEmd, "distance")},
                  {"same_label", sameEmb},
                  {"seconds", {{"encode", encodeS}, {"search", searchS}, {"total", embeddingS}}},
                  {"load_seconds", loadS},
                  {"database_seconds", databaseS}}},
                {"exact",
                 {{"method", method},
                  {"threads", threads},
                  {"neighbours", list(byEmd, inEmb, "emd")},
                  {"same_label", sameEmd},
                  {"exact_solves", exact.stats.exactSolves},
                  {"pruned_by_wcd", exact.stats.prunedByWcd},
                  {"pruned_by_rwmd", exact.stats.prunedByRwmd},
                  {"seconds", {{"emd", exactS}}}}},
                {"overlap", overlap}};
            std::printf("%s\n", out.dump(2).c_str());
            rc = 0;
            return;
        }

        std::printf("query %zu (label %s, %zu elements) in '%s': %d nearest of %zu candidates (%s)\n", q,
                    labelOf(*ds, q, o->labelSet).c_str(), ds->setSize(q), ds->name().c_str(), k, cands.size(),
                    o->candidates == "all" || ds->indices(data::Split::Train).empty() ? "every item" : "train split");
        std::printf("embedding: %s (%d-d, Euclidean distance); exact: EMD, %s search\n", o->checkpoint.c_str(), dim,
                    method.c_str());
        std::printf("* same label as the query   = in both lists\n\n");
        std::printf("%4s   %-33s   %s\n", "rank", "by embedding", "by exact EMD");
        std::printf("%4s   %-1s %8s %-10s %9s %1s   %-1s %8s %-10s %9s\n", "", "", "item", "label", "distance", "", "",
                    "item", "label", "EMD");
        auto cell = [&](const Hit& h, const std::set<std::int64_t>& other) {
            std::string label = labelOf(*ds, static_cast<std::size_t>(h.item), o->labelSet);
            if (label.size() > 10)
                label = label.substr(0, 9) + "~";
            char buf[96];
            std::snprintf(buf, sizeof buf, "%-1s %8lld %-10s %9.6g %1s", sameLabel(h.item) ? "*" : "",
                          static_cast<long long>(h.item), label.c_str(), h.distance, other.count(h.item) ? "=" : "");
            return std::string(buf);
        };
        for (int r = 0; r < k; ++r) {
            const std::string a = static_cast<std::size_t>(r) < byEmbedding.size() ? cell(byEmbedding[static_cast<std::size_t>(r)], inEmd) : "";
            const std::string b = static_cast<std::size_t>(r) < byEmd.size() ? cell(byEmd[static_cast<std::size_t>(r)], inEmb) : "";
            char buf[160];
            std::snprintf(buf, sizeof buf, "%4d   %-33s   %s", r + 1, a.c_str(), b.c_str());
            std::string line = buf;
            while (!line.empty() && line.back() == ' ') // no trailing blanks when a row has no marks
                line.pop_back();
            std::printf("%s\n", line.c_str());
        }
        std::printf("\nin both lists: %d of %d; same label: embedding %d, exact %d\n", overlap, k, sameEmb, sameEmd);
        std::printf("time, embedding: %s = encode the query %s + search %s (FAISS, exact L2); loading the model "
                    "(%s) and embedding the database (%s), once for all queries, not counted\n",
                    formatDuration(embeddingS).c_str(), formatDuration(encodeS).c_str(), formatDuration(searchS).c_str(),
                    formatDuration(loadS).c_str(), formatDuration(databaseS).c_str());
        std::printf("time, exact:     %s = EMD search, %lld exact EMDs of %lld candidates (%lld skipped by WCD, "
                    "%lld by RWMD), %d thread%s\n",
                    formatDuration(exactS).c_str(), static_cast<long long>(exact.stats.exactSolves),
                    static_cast<long long>(exact.stats.candidates), static_cast<long long>(exact.stats.prunedByWcd),
                    static_cast<long long>(exact.stats.prunedByRwmd), threads, threads == 1 ? "" : "s");
        std::printf("exact / embedding: %.1fx (%.1fx without encoding)\n", exactS / embeddingS,
                    exactS / std::max(searchS, 1e-9));
        rc = 0;
    });
}

} // namespace setscope::cli
