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
//
// WORKLOAD_DIR holds vocab.npy (V x D float32 word vectors), docs.json ([{"words": [...],
// "weights": [...]}], weights normalised in double) and pairs.json ([[i, j], ...]).

#include "core/data/Dataset.h"
#include "core/data/VectorLoaders.h"
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"
#include "core/ot/PairwiseMatrix.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <unistd.h>

using namespace setscope;
using Clock = std::chrono::steady_clock;

namespace {

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
        if (job.runHere(nullptr) != train::JobStatus::Finished) {
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

} // namespace

int main(int argc, char** argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: bench_emd pairs|matrix WORKLOAD_DIR OUT.json [--repeat R] [--threads T ...]\n");
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
