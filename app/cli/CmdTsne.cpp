// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `tsne`: a 2-D t-SNE map of every item (core/layout/FastTsne), written as an n x 2 float32
// .npy, with the time of the affinities and of the iterations; `--warm-bench` also times
// warm-start iterations on the finished map (what a live map costs per training snapshot).
#include "CliContext.h"
#include "Commands.h"
#include "ConsoleSink.h"

#include "core/data/Dataset.h"
#include "core/data/SetMeans.h"
#include "core/data/VectorLoaders.h"
#include "core/layout/FastTsne.h"
#include "core/layout/Pca.h"
#include "core/train/ModelHandle.h"
#include "core/util/FloatRange.h"

#include <setscope/sdk/Errors.h>

#include <nlohmann/json.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <span>
#include <stdexcept>

namespace setscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

} // namespace

void addTsneCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("tsne", "A 2-D t-SNE map of every item (kNN affinities, FFT-accelerated gradient), "
                                           "written as an n x 2 float32 .npy");
    struct Opt {
        std::string dataset, input, checkpoint, out;
        std::int64_t subset = 0;
        int pca = 50;
        double perplexity = 30.0;
        int iterations = 1000;
        std::uint64_t seed = 1;
        int threads = 0;
        int warmBench = 0;
        int nodes = layout::FastTsneOptions{}.interpolationPoints;
        int minBoxes = layout::FastTsneOptions{}.minBoxes;
        double boxesPerUnit = layout::FastTsneOptions{}.boxesPerUnit;
        bool otherData = false, json = false;
    };
    auto o = std::make_shared<Opt>();
    auto* dsOpt = cmd->add_option("--dataset", o->dataset, "dataset name or path (one vector per item: a set is "
                                                           "the weighted mean of its elements)");
    auto* inOpt = cmd->add_option("--input", o->input, "an n x d .npy of vectors instead of a dataset");
    dsOpt->excludes(inOpt);
    cmd->add_option("--subset", o->subset, "map only the first N items (0 = every item)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--pca", o->pca, "reduce the vectors to this many principal components first (0 = no PCA; "
                                     "skipped when the vectors have no more dimensions)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--perplexity", o->perplexity, "t-SNE perplexity (k = 3 perplexity neighbours)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--iterations", o->iterations, "gradient iterations (the first 250 with early exaggeration 12)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--seed", o->seed, "seed (the map is bit-identical for the same input and seed)")
        ->capture_default_str();
    cmd->add_option("--threads", o->threads, "threads (0 = all cores)")->capture_default_str()->check(CLI::NonNegativeNumber);
    cmd->add_option("--checkpoint", o->checkpoint, "map the items' embeddings by this checkpoint instead of their "
                                                   "own vectors (with --dataset)");
    cmd->add_flag("--allow-other-data", o->otherData, "use a checkpoint trained on other data of the same dimension");
    cmd->add_option("--warm-bench", o->warmBench, "after the map, recompute the affinities and time this many "
                                                  "warm-start iterations from it")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--interpolation-points", o->nodes, "FFT repulsion: Lagrange nodes per box and axis")
        ->capture_default_str()
        ->check(CLI::Range(1, 10));
    cmd->add_option("--min-boxes", o->minBoxes, "FFT repulsion: boxes per axis at least (openTSNE: 50)")
        ->capture_default_str()
        ->check(CLI::Range(1, 300));
    cmd->add_option("--boxes-per-unit", o->boxesPerUnit, "FFT repulsion: boxes per unit of the map's extent (openTSNE: 1)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--json", o->json, "print the timings as JSON on stdout");
    cmd->add_option("--out", o->out, "output .npy (n x 2 float32, rows in item order)")->required();
    cmd->callback([ctx, o, &rc] {
        if (o->dataset.empty() == o->input.empty())
            throw std::invalid_argument("tsne: give --dataset or --input");
        if (!o->checkpoint.empty() && o->dataset.empty())
            throw std::invalid_argument("tsne: --checkpoint needs --dataset");
        if (o->threads > 0)
            omp_set_num_threads(o->threads);
        const int threads = o->threads > 0 ? o->threads : omp_get_max_threads();

        // --- input vectors ---------------------------------------------------------------------
        auto t0 = Clock::now();
        std::vector<float> x;
        std::int64_t n = 0;
        int d = 0;
        std::string source;
        if (!o->input.empty()) {
            data::NpyArray a = data::readNpy(o->input);
            if (a.shape.size() != 2 || a.shape[0] < 1 || a.shape[1] < 1)
                throw sdk::InputError(o->input, "", "expected a 2-D array (n x d) of vectors, got " +
                                                        std::to_string(a.shape.size()) + " dimensions");
            n = static_cast<std::int64_t>(a.shape[0]);
            d = static_cast<int>(a.shape[1]);
            // The same range as every dataset's values (util/FloatRange.h): beyond it FAISS's
            // float distances overflow.
            const double bound = util::maxSafeMagnitude(d);
            for (std::size_t k = 0; k < a.data.size(); ++k)
                if (!(std::fabs(a.data[k]) <= bound)) // also NaN
                    throw sdk::InputError(o->input, "row " + std::to_string(k / static_cast<std::size_t>(d)),
                                          "column " + std::to_string(k % static_cast<std::size_t>(d)) + " is " +
                                              util::valueProblem(a.data[k], d));
            if (o->subset > 0 && o->subset < n) {
                n = o->subset;
                a.data.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(d));
            }
            x = std::move(a.data);
            source = o->input;
        } else {
            CliContext& c = ctx();
            const auto ds = c.openDataset(o->dataset);
            n = static_cast<std::int64_t>(ds->size());
            if (o->subset > 0 && o->subset < n)
                n = o->subset;
            if (o->checkpoint.empty()) {
                std::vector<std::int64_t> first(static_cast<std::size_t>(n));
                std::iota(first.begin(), first.end(), std::int64_t{0});
                x = data::weightedMeans(*ds, first);
                d = ds->dim();
                source = ds->name();
            } else {
                const auto model = train::ModelHandle::fromCheckpoint(o->checkpoint, c.registry);
                checkModelFitsDataset(*model, *ds, o->checkpoint, o->otherData);
                std::vector<std::int64_t> items(static_cast<std::size_t>(n));
                for (std::int64_t i = 0; i < n; ++i)
                    items[static_cast<std::size_t>(i)] = i;
                x = model->embed(*ds, items);
                d = model->dim();
                source = ds->name() + " embedded by " + o->checkpoint;
            }
        }
        const double loadS = secondsSince(t0);
        const int inputDim = d;
        t0 = Clock::now();
        if (o->pca > 0 && o->pca < d && n > 1) {
            x = layout::pca(x.data(), n, d, o->pca);
            d = o->pca;
        }
        const double pcaS = secondsSince(t0);

        // --- t-SNE -----------------------------------------------------------------------------
        layout::FastTsneOptions opt;
        opt.perplexity = o->perplexity;
        opt.maxIterations = o->iterations;
        opt.seed = o->seed;
        opt.threads = threads;
        opt.interpolationPoints = o->nodes;
        opt.minBoxes = o->minBoxes;
        opt.boxesPerUnit = o->boxesPerUnit;
        ConsoleSink sink;
        if (!o->json)
            std::fprintf(stderr, "t-SNE of %lld points (%s, %d-d%s), perplexity %g, %d threads\n",
                         static_cast<long long>(n), source.c_str(), inputDim,
                         d != inputDim ? (", PCA to " + std::to_string(d) + "-d").c_str() : "", o->perplexity,
                         threads);
        t0 = Clock::now();
        layout::FastTsne tsne(x.data(), n, d, opt);
        const double affinityS = secondsSince(t0);
        t0 = Clock::now();
        constexpr int kReportEvery = 10;
        while (!tsne.done()) {
            tsne.step(kReportEvery);
            if (!o->json)
                sink.progress(tsne.iteration(), o->iterations, "t-SNE iterations");
        }
        const double iterateS = secondsSince(t0);
        if (!o->json)
            sink.finished(job::JobStatus::Finished, {});
        try {
            data::writeNpy(o->out, tsne.embedding().data(), {static_cast<std::uint64_t>(n), 2});
        } catch (const std::exception& e) {
            throw std::runtime_error("tsne: cannot write " + o->out + ": " + e.what());
        }

        // --- warm start -------------------------------------------------------------------------
        double warmAffinityS = 0.0, warmIterateS = 0.0;
        if (o->warmBench > 0) {
            const std::vector<float> map = tsne.embedding();
            auto t1 = Clock::now();
            tsne.setInput(x.data(), n, d);
            warmAffinityS = secondsSince(t1);
            tsne.initialize(map.data());
            tsne.setMaxIterations(o->warmBench);
            t1 = Clock::now();
            tsne.step(o->warmBench);
            warmIterateS = secondsSince(t1);
        }

        const double perIteration = o->iterations > 0 ? iterateS / o->iterations : 0.0;
        if (o->json) {
            nlohmann::ordered_json j = {{"points", n},
                                        {"input_dim", inputDim},
                                        {"dim", d},
                                        {"perplexity", o->perplexity},
                                        {"iterations", o->iterations},
                                        {"threads", threads},
                                        {"fft", tsne.usesFft()},
                                        {"learning_rate", tsne.learningRate()},
                                        {"seconds",
                                         {{"load", loadS},
                                          {"pca", pcaS},
                                          {"affinities", affinityS},
                                          {"iterations", iterateS},
                                          {"total", pcaS + affinityS + iterateS}}},
                                        {"out", o->out}};
            if (o->warmBench > 0)
                j["warm"] = {{"iterations", o->warmBench},
                             {"affinity_seconds", warmAffinityS},
                             {"iteration_seconds", warmIterateS},
                             {"seconds_per_iteration", warmIterateS / o->warmBench}};
            std::printf("%s\n", j.dump(2).c_str());
        } else {
            std::printf("wrote %s (%lld x 2)\n", o->out.c_str(), static_cast<long long>(n));
            std::printf("time: PCA %.2f s, affinities %.2f s, %d iterations %.2f s (%.1f ms each, %s repulsion), "
                        "total %.2f s (loading %.2f s not counted)\n",
                        pcaS, affinityS, o->iterations, iterateS, perIteration * 1e3,
                        tsne.usesFft() ? "FFT" : "exact", pcaS + affinityS + iterateS, loadS);
            if (o->warmBench > 0)
                std::printf("warm start: affinities %.2f s, %d iterations %.3f s (%.1f ms each)\n", warmAffinityS,
                            o->warmBench, warmIterateS, warmIterateS / o->warmBench * 1e3);
        }
        rc = 0;
    });
}

} // namespace setscope::cli
