// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `tsne`: a 2-D t-SNE map of every item (core/layout/FastTsne), written as an n x 2 float32
// .npy, with the time of the affinities and of the iterations; `--warm-bench` also times
// warm-start iterations on the finished map (what a live map costs per training snapshot).
#include "CliContext.h"
#include "Commands.h"
#include "ConsoleSink.h"

#include "core/data/Dataset.h"
#include "core/data/VectorLoaders.h"
#include "core/model/ModelHandle.h"
#include "core/workspace/Models.h"
#include "core/workspace/TsneMap.h"

#include <nlohmann/json.hpp>

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace setscope::cli {


namespace {

struct TsneOpt {
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

void addTsneFlags(CLI::App* cmd, TsneOpt* o)
{
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
}

/// The vectors the map is made of, with the time it took to read them.
workspace::TsneInput tsneInput(CliContext& context, const TsneOpt& o)
{
    if (!o.input.empty())
        return workspace::tsneInputFromNpy(o.input, o.subset);
    const auto ds = context.openDataset(o.dataset);
    if (o.checkpoint.empty())
        return workspace::tsneInputFromDataset(*ds, o.subset);
    const auto model = workspace::openModel(o.checkpoint, context.registry);
    checkModelFitsDataset(*model, *ds, o.checkpoint, o.otherData);
    return workspace::tsneInputFromDataset(*ds, o.subset, model.get(), o.checkpoint);
}

void printTsne(const TsneOpt& o, const workspace::TsneMap& m, std::int64_t n, int inputDim, int dim, int threads,
               double loadS, double pcaS)
{
    const workspace::TsneTimings& s = m.seconds;
    if (o.json) {
        nlohmann::ordered_json j = {{"points", n},
                                    {"input_dim", inputDim},
                                    {"dim", dim},
                                    {"perplexity", o.perplexity},
                                    {"iterations", o.iterations},
                                    {"threads", threads},
                                    {"fft", m.fft},
                                    {"learning_rate", m.learningRate},
                                    {"seconds",
                                     {{"load", loadS},
                                      {"pca", pcaS},
                                      {"affinities", s.affinities},
                                      {"iterations", s.iterations},
                                      {"total", pcaS + s.affinities + s.iterations}}},
                                    {"out", o.out}};
        if (o.warmBench > 0)
            j["warm"] = {{"iterations", o.warmBench},
                         {"affinity_seconds", s.warmAffinities},
                         {"iteration_seconds", s.warmIterations},
                         {"seconds_per_iteration", s.warmIterations / o.warmBench}};
        std::printf("%s\n", j.dump(2).c_str());
        return;
    }
    const double perIteration = o.iterations > 0 ? s.iterations / o.iterations : 0.0;
    std::printf("wrote %s (%lld x 2)\n", o.out.c_str(), static_cast<long long>(n));
    std::printf("time: PCA %.2f s, affinities %.2f s, %d iterations %.2f s (%.1f ms each, %s repulsion), "
                "total %.2f s (loading %.2f s not counted)\n",
                pcaS, s.affinities, o.iterations, s.iterations, perIteration * 1e3, m.fft ? "FFT" : "exact",
                pcaS + s.affinities + s.iterations, loadS);
    if (o.warmBench > 0)
        std::printf("warm start: affinities %.2f s, %d iterations %.3f s (%.1f ms each)\n", s.warmAffinities,
                    o.warmBench, s.warmIterations, s.warmIterations / o.warmBench * 1e3);
}

int runTsne(CliContext& context, const TsneOpt& o)
{
    if (o.dataset.empty() == o.input.empty())
        throw std::invalid_argument("tsne: give --dataset or --input");
    if (!o.checkpoint.empty() && o.dataset.empty())
        throw std::invalid_argument("tsne: --checkpoint needs --dataset");
    if (o.threads > 0)
        omp_set_num_threads(o.threads);
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    const auto t0 = std::chrono::steady_clock::now();
    workspace::TsneInput input = tsneInput(context, o);
    const double loadS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int inputDim = input.d;
    const double pcaS = workspace::reduceByPca(input, o.pca);
    layout::FastTsneOptions opt;
    opt.perplexity = o.perplexity;
    opt.maxIterations = o.iterations;
    opt.seed = o.seed;
    opt.threads = threads;
    opt.interpolationPoints = o.nodes;
    opt.minBoxes = o.minBoxes;
    opt.boxesPerUnit = o.boxesPerUnit;
    ConsoleSink sink;
    if (!o.json)
        std::fprintf(stderr, "t-SNE of %lld points (%s, %d-d%s), perplexity %g, %d threads\n",
                     static_cast<long long>(input.n), input.source.c_str(), inputDim,
                     input.d != inputDim ? (", PCA to " + std::to_string(input.d) + "-d").c_str() : "", o.perplexity,
                     threads);
    const workspace::TsneMap m = workspace::mapByTsne(input, opt, o.warmBench, [&](int iteration) {
        if (!o.json)
            sink.progress(iteration, o.iterations, "t-SNE iterations");
    });
    if (!o.json)
        sink.finished(job::JobStatus::Finished, {});
    try {
        data::writeNpy(o.out, m.map.data(), {static_cast<std::uint64_t>(input.n), 2});
    } catch (const std::exception& e) {
        throw std::runtime_error("tsne: cannot write " + o.out + ": " + e.what());
    }
    printTsne(o, m, input.n, inputDim, input.d, threads, loadS, pcaS);
    return 0;
}

} // namespace

void addTsneCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("tsne", "A 2-D t-SNE map of every item (kNN affinities, FFT-accelerated gradient), "
                                           "written as an n x 2 float32 .npy");
    auto o = std::make_shared<TsneOpt>();
    addTsneFlags(cmd, o.get());
    cmd->callback([ctx, o, &rc] { rc = runTsne(ctx(), *o); });
}

} // namespace setscope::cli
