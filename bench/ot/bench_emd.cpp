// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
//
// setscope's side of the EMD benchmark (bench/ot/run_emd_benchmark.py drives it and runs
// POT and pyemd on the same input in the same run).
//
//   bench_emd pairs  WORKLOAD_DIR OUT.json [--repeat R]
//       per pair of pairs.json: cost matrix (Euclidean, float64) + exact EMD, single
//       thread, the best of R timings; writes emd, work and seconds per pair
//   bench_emd matrix WORKLOAD_DIR OUT.json [--threads T ...]
//       the full pairwise EMD matrix of all documents with PairwiseJob, once per thread
//       count (fresh cache each time); writes wall seconds per thread count
//   bench_emd sizes OUT.json [--repeat R] [--control]
//       the exact solver alone (cost matrix built before the clock starts) on generated
//       problems from WMD-sized to 2000 x 2000: best of R timings per problem, pivots;
//       needs no workload (used for the pivot cap and the cancel poll of issue 8).
//       --control: solve with a JobControl (never cancelled), as EmdKnn and PairwiseJob do
//   bench_emd knn DATASET OUT.json [--k K] [--queries N] [--threads T ...] [--rounds R]
//                 [--methods pruned,brute] [--limit N]
//       EMD kNN (ot::emdKnnQueries) of the first N test items (default 60; the first N items
//       when there is no test split) against the train split, once per method and thread
//       count (default 1 and 2) per round, thread counts alternating in order between rounds;
//       checks that every run returns the same neighbours, bit for bit, and the same serial
//       counters; prints best and median seconds and the ratio to 1 thread (issue 9)
//
// WORKLOAD_DIR holds vocab.npy (V x D float32 word vectors), docs.json ([{"words": [...],
// "weights": [...]}], weights normalised in double) and pairs.json ([[i, j], ...]).

#include "bench/BenchUtil.h"
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/data/VectorLoaders.h"
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"
#include "core/ot/EmdKnn.h"
#include "core/ot/PairwiseMatrix.h"
#include "core/job/Job.h"
#include "core/plugin/Registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>

#include <unistd.h>

using namespace setscope;
using Clock = std::chrono::steady_clock;

namespace {

using bench::loadAverage;
using bench::processCpuSeconds;

struct Workload {
    int dim = 0;
    std::vector<std::vector<float>> points;   // per document, n x dim
    std::vector<std::vector<double>> weights; // per document
    std::vector<std::pair<int, int>> pairs;
};

Workload load(const std::string& dir)
{
    Workload w;
    const data::NpyArray vocab = data::readNpy(dir + "/vocab.npy");
    if (vocab.shape.size() != 2)
        throw std::runtime_error("vocab.npy must be 2-D");
    w.dim = static_cast<int>(vocab.shape[1]);
    std::ifstream df(dir + "/docs.json");
    const auto docs = nlohmann::json::parse(df);
    for (const auto& d : docs) {
        std::vector<float> p;
        for (int word : d.at("words"))
            p.insert(p.end(), vocab.data.begin() + static_cast<std::ptrdiff_t>(word) * w.dim,
                     vocab.data.begin() + static_cast<std::ptrdiff_t>(word + 1) * w.dim);
        w.points.push_back(std::move(p));
        w.weights.push_back(d.at("weights").get<std::vector<double>>());
    }
    std::ifstream pf(dir + "/pairs.json");
    for (const auto& p : nlohmann::json::parse(pf))
        w.pairs.emplace_back(p.at(0).get<int>(), p.at(1).get<int>());
    return w;
}

int runPairs(const Workload& w, const std::string& out, int repeat)
{
    ot::EmdSolver solver;
    std::vector<double> C;
    std::vector<float> unitA, unitB; // PointSet needs weights; the solve gets the double ones
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& [i, j] : w.pairs) {
        const auto na = static_cast<std::int64_t>(w.weights[static_cast<std::size_t>(i)].size());
        const auto nb = static_cast<std::int64_t>(w.weights[static_cast<std::size_t>(j)].size());
        unitA.assign(static_cast<std::size_t>(na), 1.0f);
        unitB.assign(static_cast<std::size_t>(nb), 1.0f);
        const ot::PointSet a{w.points[static_cast<std::size_t>(i)].data(), unitA.data(), na, w.dim};
        const ot::PointSet b{w.points[static_cast<std::size_t>(j)].data(), unitB.data(), nb, w.dim};
        double best = 1e300;
        ot::EmdResult r;
        for (int rep = 0; rep < repeat; ++rep) {
            const auto t0 = Clock::now();
            ot::costMatrix(a, b, ot::GroundDistance::Euclidean, C);
            r = solver.solveCost(C.data(), w.weights[static_cast<std::size_t>(i)].data(), na,
                                 w.weights[static_cast<std::size_t>(j)].data(), nb);
            best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
        }
        rows.push_back({{"i", i}, {"j", j}, {"emd", r.emd}, {"work", r.work}, {"seconds", best}, {"pivots", r.pivots}});
    }
    std::ofstream(out) << rows.dump();
    return 0;
}

int runMatrix(const Workload& w, const std::string& out, const std::vector<int>& threads)
{
    data::DatasetBuilder b("wmd-workload");
    b.setDimension(w.dim);
    for (std::size_t d = 0; d < w.points.size(); ++d) {
        const std::vector<float> wf(w.weights[d].begin(), w.weights[d].end());
        b.addItem(w.points[d].data(), wf.data(), wf.size(), data::Split::Train);
    }
    auto ds = std::make_shared<const data::Dataset>(b.finish());
    nlohmann::json res = nlohmann::json::object();
    const auto cacheRoot = std::filesystem::temp_directory_path() / ("setscope-bench-" + std::to_string(::getpid()));
    for (int t : threads) {
        ot::PairwiseOptions o;
        o.threads = t;
        o.cacheDir = (cacheRoot / ("t" + std::to_string(t))).string();
        std::filesystem::remove_all(o.cacheDir);
        ot::PairwiseJob job(ds, o);
        const auto t0 = Clock::now();
        if (job.runHere(nullptr) != job::JobStatus::Finished) {
            std::cerr << "bench_emd: pairwise matrix failed: " << job.error() << "\n";
            return 1;
        }
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        res[std::to_string(t)] = s;
        std::fprintf(stderr, "matrix of %zu documents on %d thread(s): %.1f s\n", ds->size(), t, s);
    }
    std::filesystem::remove_all(cacheRoot);
    std::ofstream(out) << res.dump();
    return 0;
}

/// One generated EMD problem: two point sets with float weights (as datasets store them).
struct Problem {
    int dim = 0;
    std::vector<float> pa, pb, wa, wb;
};

/// `pairs` problems of one kind. kind: "wmd" (300-d, ~90 words around 8 of 100 topic
/// centres, random weights summing to 1), "pixels" (distinct pixels of a 28 x 28 grid,
/// random intensities summing to 1: Fashion-MNIST point sets), "grid" (the same pixels with
/// equal weights: an assignment problem, as degenerate as it gets, with many equal costs),
/// "uniform" (uniform in the unit cube, 3-D, random weights summing to 1).
std::vector<Problem> makeProblems(const std::string& kind, int na, int nb, int pairs, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::vector<float> centres;
    if (kind == "wmd") {
        centres.resize(100 * 300);
        for (float& c : centres)
            c = normal(rng);
    }
    const auto makeSet = [&](int n, int dim, std::vector<float>& p, std::vector<float>& w) {
        p.clear();
        w.clear();
        if (kind == "pixels" || kind == "grid") {
            std::vector<int> cells(28 * 28);
            std::iota(cells.begin(), cells.end(), 0);
            std::shuffle(cells.begin(), cells.end(), rng);
            for (int e = 0; e < n; ++e)
                p.insert(p.end(), {static_cast<float>(cells[static_cast<std::size_t>(e)] % 28),
                                   static_cast<float>(cells[static_cast<std::size_t>(e)] / 28)});
        } else if (kind == "wmd") {
            int topics[8];
            for (int& t : topics)
                t = static_cast<int>(rng() % 100);
            for (int e = 0; e < n; ++e) {
                const int c = topics[rng() % 8];
                for (int k = 0; k < dim; ++k)
                    p.push_back(centres[static_cast<std::size_t>(c * dim + k)] + 0.3f * normal(rng));
            }
        } else {
            for (int e = 0; e < n * dim; ++e)
                p.push_back(unit(rng));
        }
        float sum = 0.0f;
        for (int e = 0; e < n; ++e) {
            w.push_back(kind == "grid" ? 1.0f : 0.05f + unit(rng));
            sum += w.back();
        }
        for (float& x : w)
            x /= sum;
    };
    std::vector<Problem> out(static_cast<std::size_t>(pairs));
    for (Problem& pr : out) {
        pr.dim = kind == "wmd" ? 300 : kind == "uniform" ? 3 : 2;
        makeSet(na, pr.dim, pr.pa, pr.wa);
        makeSet(nb, pr.dim, pr.pb, pr.wb);
    }
    return out;
}

int runSizes(const std::string& out, int repeat, bool withControl)
{
    struct Spec {
        const char* kind;
        int na, nb, pairs;
    };
    const Spec specs[] = {{"wmd", 90, 90, 40},       {"pixels", 450, 490, 6}, {"grid", 450, 450, 6},
                          {"grid", 784, 784, 2},   {"uniform", 200, 150, 10},
                          {"uniform", 700, 500, 3}, {"uniform", 2000, 2000, 1}};
    nlohmann::json rows = nlohmann::json::array();
    std::printf("| problem | pairs | pivots (median, max) | solve time per pair (median of best-of-%d) |\n|---|---|---|---|\n",
                repeat);
    ot::EmdSolver solver;
    std::vector<double> C, wa, wb;
    job::JobControl control;
    ot::EmdOptions options;
    options.control = withControl ? &control : nullptr;
    for (const Spec& sp : specs) {
        const std::vector<Problem> problems = makeProblems(sp.kind, sp.na, sp.nb, sp.pairs, 2026);
        std::vector<double> seconds;
        std::vector<std::int64_t> pivots;
        for (const Problem& pr : problems) {
            const ot::PointSet a{pr.pa.data(), pr.wa.data(), sp.na, pr.dim};
            const ot::PointSet b{pr.pb.data(), pr.wb.data(), sp.nb, pr.dim};
            ot::costMatrix(a, b, ot::GroundDistance::Euclidean, C);
            wa.assign(pr.wa.begin(), pr.wa.end());
            wb.assign(pr.wb.begin(), pr.wb.end());
            double best = 1e300;
            ot::EmdResult r;
            for (int rep = 0; rep < repeat; ++rep) {
                const auto t0 = Clock::now();
                r = solver.solveCost(C.data(), wa.data(), sp.na, wb.data(), sp.nb, options);
                best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
            }
            seconds.push_back(best);
            pivots.push_back(r.pivots);
        }
        const auto median = [](auto v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        const double med = median(seconds);
        const std::int64_t medPivots = median(pivots);
        const std::int64_t maxPivots = *std::max_element(pivots.begin(), pivots.end());
        const std::string name = std::string(sp.kind) + " " + std::to_string(sp.na) + "x" + std::to_string(sp.nb);
        std::printf("| %s | %d | %lld, %lld | %.3f ms |\n", name.c_str(), sp.pairs, static_cast<long long>(medPivots),
                    static_cast<long long>(maxPivots), med * 1e3);
        std::fflush(stdout);
        rows.push_back({{"problem", name},
                        {"pairs", sp.pairs},
                        {"median_pivots", medPivots},
                        {"max_pivots", maxPivots},
                        {"median_seconds", med}});
    }
    std::ofstream(out) << rows.dump(2);
    return 0;
}

struct KnnArgs {
    std::string spec, out;
    int k = 10;
    std::int64_t queries = 60, limit = 0;
    std::vector<int> threads;
    int rounds = 1;
    std::vector<ot::EmdKnnMethod> methods{ot::EmdKnnMethod::Pruned};
};

bool sameResults(const std::vector<ot::EmdKnnResult>& x, const std::vector<ot::EmdKnnResult>& y)
{
    if (x.size() != y.size())
        return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const auto &a = x[i], &b = y[i];
        if (a.neighbours.size() != b.neighbours.size() || a.stats.candidates != b.stats.candidates ||
            a.stats.exactSolves != b.stats.exactSolves || a.stats.prunedByWcd != b.stats.prunedByWcd ||
            a.stats.prunedByRwmd != b.stats.prunedByRwmd)
            return false;
        for (std::size_t j = 0; j < a.neighbours.size(); ++j)
            if (a.neighbours[j].item != b.neighbours[j].item || a.neighbours[j].emd != b.neighbours[j].emd)
                return false;
    }
    return true;
}

int runKnn(const KnnArgs& a)
{
    plugin::Registry registry;
    builtins::registerBuiltins(registry);
    const data::Dataset ds = catalog::openDataset(a.spec, registry);
    std::vector<std::int64_t> candidates = ds.indices(data::Split::Train);
    std::vector<std::int64_t> queries = ds.indices(data::Split::Test);
    if (queries.empty() || candidates.empty()) { // no split: the first items query the rest
        candidates.resize(ds.size());
        std::iota(candidates.begin(), candidates.end(), 0);
        queries.assign(candidates.begin(), candidates.begin() + std::min<std::ptrdiff_t>(a.queries, std::ptrdiff_t(ds.size())));
    }
    if (queries.size() > static_cast<std::size_t>(a.queries))
        queries.resize(static_cast<std::size_t>(a.queries));
    if (a.limit > 0 && candidates.size() > static_cast<std::size_t>(a.limit))
        candidates.resize(static_cast<std::size_t>(a.limit));
    const std::string loadBefore = loadAverage();
    std::printf("%s: %zu queries x %zu candidates, k = %d, %u hardware threads, %d round(s); load average at start %s\n",
                a.spec.c_str(), queries.size(), candidates.size(), a.k, std::thread::hardware_concurrency(), a.rounds,
                loadBefore.c_str());
    std::fflush(stdout);

    struct Row {
        ot::EmdKnnMethod method;
        int threads;
        std::vector<double> seconds, cpu; // wall and process CPU seconds per round
        std::int64_t exact = 0, speculative = 0;
    };
    std::vector<Row> rows;
    for (const auto m : a.methods)
        for (const int t : a.threads)
            rows.push_back({m, t, {}, {}, 0, 0});
    std::vector<ot::EmdKnnResult> first[2];
    bool identical = true;
    for (int round = 0; round < a.rounds; ++round)
        for (std::size_t mi = 0; mi < a.methods.size(); ++mi)
            for (std::size_t ti = 0; ti < a.threads.size(); ++ti) {
                const std::size_t tj = round % 2 ? a.threads.size() - 1 - ti : ti; // alternate the order
                Row& row = rows[mi * a.threads.size() + tj];
                ot::EmdKnnOptions o;
                o.method = row.method;
                o.threads = row.threads;
                const double c0 = processCpuSeconds();
                const auto t0 = Clock::now();
                const auto res = ot::emdKnnQueries(ds, queries, candidates, a.k, o);
                const double s = std::chrono::duration<double>(Clock::now() - t0).count();
                const double cpu = processCpuSeconds() - c0;
                row.seconds.push_back(s);
                row.cpu.push_back(cpu);
                row.exact = 0;
                row.speculative = 0;
                for (const auto& r : res) {
                    row.exact += r.stats.exactSolves;
                    row.speculative += r.stats.speculativeSolves;
                }
                const bool pruned = row.method == ot::EmdKnnMethod::Pruned;
                std::vector<ot::EmdKnnResult>& ref = first[pruned ? 0 : 1];
                if (ref.empty())
                    ref = res;
                else if (!sameResults(ref, res))
                    identical = false;
                std::fprintf(stderr, "round %d: %s, %d thread(s): %.1f s (CPU %.1f s: %.2f cores; load %s)\n", round + 1,
                             pruned ? "pruned" : "brute force", row.threads, s, cpu, cpu / s, loadAverage().c_str());
            }
    if (!first[0].empty() && !first[1].empty()) { // pruned and brute force: same neighbours
        for (std::size_t i = 0; i < first[0].size(); ++i)
            for (std::size_t j = 0; j < first[0][i].neighbours.size(); ++j)
                if (first[0][i].neighbours[j].item != first[1][i].neighbours[j].item ||
                    first[0][i].neighbours[j].emd != first[1][i].neighbours[j].emd)
                    identical = false;
    }
    const auto best = [](std::vector<double> v) { return *std::min_element(v.begin(), v.end()); };
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    };
    // Cores obtained = process CPU seconds / wall seconds: on a shared machine it shows how
    // much of the hardware a run actually got (the ratio of wall times means little without it).
    std::printf("| method | threads | best s | median s | cores obtained (per round) | exact EMDs | speculative | "
                "1 thread / this (best, median) |\n|---|---|---|---|---|---|---|---|\n");
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows) {
        const Row* one = nullptr;
        for (const Row& x : rows)
            if (x.method == r.method && x.threads == 1)
                one = &x;
        const bool pruned = r.method == ot::EmdKnnMethod::Pruned;
        std::string ratio = "-";
        if (one) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.2fx, %.2fx", best(one->seconds) / best(r.seconds),
                          median(one->seconds) / median(r.seconds));
            ratio = buf;
        }
        std::string cores;
        for (std::size_t i = 0; i < r.seconds.size(); ++i) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%s%.2f", i ? ", " : "", r.cpu[i] / r.seconds[i]);
            cores += buf;
        }
        std::printf("| %s | %d | %.1f | %.1f | %s | %lld | %lld | %s |\n", pruned ? "pruned" : "brute force", r.threads,
                    best(r.seconds), median(r.seconds), cores.c_str(), static_cast<long long>(r.exact),
                    static_cast<long long>(r.speculative), ratio.c_str());
        out.push_back({{"method", pruned ? "pruned" : "brute"},
                       {"threads", r.threads},
                       {"seconds", r.seconds},
                       {"cpu_seconds", r.cpu},
                       {"exact", r.exact},
                       {"speculative", r.speculative}});
    }
    std::printf("identical neighbours, distances and serial counters in every run: %s; load average at end %s\n",
                identical ? "yes" : "NO", loadAverage().c_str());
    std::ofstream(a.out) << nlohmann::json{{"dataset", a.spec},
                                           {"queries", queries.size()},
                                           {"candidates", candidates.size()},
                                           {"k", a.k},
                                           {"load_start", loadBefore},
                                           {"identical", identical},
                                           {"rows", out}}
                                .dump(2);
    return identical ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc >= 4 && !std::strcmp(argv[1], "knn")) {
        KnnArgs a;
        a.spec = argv[2];
        a.out = argv[3];
        for (int k = 4; k < argc; ++k) {
            const std::string arg = argv[k];
            const bool more = k + 1 < argc;
            if (arg == "--k" && more)
                a.k = std::max(1, std::atoi(argv[++k]));
            else if (arg == "--queries" && more)
                a.queries = std::max(1, std::atoi(argv[++k]));
            else if (arg == "--threads" && more)
                a.threads.push_back(std::max(1, std::atoi(argv[++k])));
            else if (arg == "--rounds" && more)
                a.rounds = std::max(1, std::atoi(argv[++k]));
            else if (arg == "--limit" && more)
                a.limit = std::atoll(argv[++k]);
            else if (arg == "--methods" && more) {
                const std::string m = argv[++k];
                a.methods.clear();
                if (m.find("pruned") != std::string::npos)
                    a.methods.push_back(ot::EmdKnnMethod::Pruned);
                if (m.find("brute") != std::string::npos)
                    a.methods.push_back(ot::EmdKnnMethod::BruteForce);
            } else {
                std::fprintf(stderr, "bench_emd knn: unknown argument '%s'\n", arg.c_str());
                return 2;
            }
        }
        if (a.threads.empty())
            a.threads = {1, 2};
        if (a.methods.empty()) {
            std::fprintf(stderr, "bench_emd knn: --methods takes pruned, brute or pruned,brute\n");
            return 2;
        }
        try {
            return runKnn(a);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_emd: %s\n", e.what());
            return 1;
        }
    }
    if (argc >= 3 && !std::strcmp(argv[1], "sizes")) {
        int repeat = 3;
        bool withControl = false;
        for (int k = 3; k < argc; ++k) {
            if (!std::strcmp(argv[k], "--repeat") && k + 1 < argc)
                repeat = std::max(1, std::atoi(argv[++k]));
            else if (!std::strcmp(argv[k], "--control"))
                withControl = true;
        }
        return runSizes(argv[2], repeat, withControl);
    }
    if (argc < 4) {
        std::fprintf(stderr, "usage: bench_emd pairs|matrix WORKLOAD_DIR OUT.json [--repeat R] [--threads T ...]\n"
                             "       bench_emd sizes OUT.json [--repeat R] [--control]\n"
                             "       bench_emd knn DATASET OUT.json [--k K] [--queries N] [--threads T ...] [--rounds R]\n"
                             "                     [--methods pruned,brute] [--limit N]\n");
        return 2;
    }
    const std::string mode = argv[1], dir = argv[2], out = argv[3];
    int repeat = 5;
    std::vector<int> threads;
    for (int k = 4; k < argc; ++k) {
        if (!std::strcmp(argv[k], "--repeat") && k + 1 < argc)
            repeat = std::atoi(argv[++k]);
        else if (!std::strcmp(argv[k], "--threads") && k + 1 < argc)
            threads.push_back(std::atoi(argv[++k]));
    }
    if (threads.empty())
        threads = {1, 2};
    try {
        const Workload w = load(dir);
        if (mode == "pairs")
            return runPairs(w, out, repeat);
        if (mode == "matrix")
            return runMatrix(w, out, threads);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_emd: %s\n", e.what());
        return 1;
    }
    std::fprintf(stderr, "bench_emd: unknown mode '%s'\n", mode.c_str());
    return 2;
}
