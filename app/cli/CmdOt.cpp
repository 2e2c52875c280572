// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Distributed.h"
#include "Commands.h"
#include "ConsoleSink.h"
#include "Interrupt.h"

#include "core/data/Dataset.h"
#include "core/data/DerivedDatasets.h"
#include "core/data/VectorLoaders.h"
#include "core/eval/Knn.h"
#include "core/ot/Chamfer.h"
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"
#include "core/ot/EmdKnn.h"
#include "core/ot/PairwiseMatrix.h"
#include "core/workspace/EmdKnn.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>
#include <thread>

namespace setscope::cli {

namespace {

/// Runs a job on a worker thread; Ctrl-C, SIGTERM or SIGHUP cancel it (Interrupt.h).
job::JobStatus runInterruptible(job::Job& job, job::ProgressSink& sink)
{
    InterruptScope interrupts;
    job.start(&sink);
    bool cancelling = false;
    while (job.running()) {
        if (!cancelling && interruptRequested()) {
            std::fprintf(stderr, "\ninterrupt: cancelling...\n");
            job.cancel();
            cancelling = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    job.wait();
    return job.status();
}

} // namespace

namespace {

void addEmdCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("emd", "Exact EMD between two items (seed 001 Eq. 1-2), optionally with the "
                                          "optimal flow");
    struct Opt {
        std::string dataset, ground = "euclidean";
        std::int64_t i = 0, j = 1;
        bool flows = false, chamfer = false;
    };
    auto o = std::make_shared<Opt>();
    cmd->add_option("--dataset", o->dataset, "dataset name or path (e.g. fashion-mnist+pointsets)")->required();
    cmd->add_option("--i", o->i, "first item")->required();
    cmd->add_option("--j", o->j, "second item")->required();
    cmd->add_option("--ground", o->ground, "ground distance: euclidean | sqeuclidean | cosine")->capture_default_str();
    cmd->add_flag("--flows", o->flows, "print the optimal flow");
    cmd->add_flag("--chamfer", o->chamfer, "also print the Chamfer distance");
    cmd->callback([ctx, o, &rc] {
        const auto ds = ctx().openDataset(o->dataset);
        const std::size_t i = checkItem(*ds, o->i, "--i"), j = checkItem(*ds, o->j, "--j");
        ot::EmdOptions eo;
        eo.ground = ot::parseGroundDistance(o->ground);
        eo.flows = o->flows;
        const auto t0 = std::chrono::steady_clock::now();
        ot::EmdResult r;
        try {
            r = ot::emd(ot::pointSet(*ds, i), ot::pointSet(*ds, j), eo);
        } catch (const ot::OtError& e) {
            throw std::invalid_argument("items " + std::to_string(i) + " and " + std::to_string(j) + ": " + e.what());
        }
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf("item %zu (%zu elements, label %s) vs item %zu (%zu elements, label %s), %s ground distance\n",
                    i, ds->setSize(i), labelOf(*ds, i, "fine").c_str(), j, ds->setSize(j),
                    labelOf(*ds, j, "fine").c_str(), o->ground.c_str());
        std::printf("EMD          %.10g\n", r.emd);
        std::printf("work         %.10g\n", r.work);
        std::printf("total flow   %.10g\n", r.totalFlow);
        std::printf("pivots       %lld (%.3f ms)\n", static_cast<long long>(r.pivots), ms);
        if (o->chamfer)
            std::printf("Chamfer      %.10g\n",
                        ot::chamfer(ot::pointSet(*ds, i), ot::pointSet(*ds, j), {eo.ground, true}));
        if (o->flows) {
            std::vector<double> C;
            ot::costMatrix(ot::pointSet(*ds, i), ot::pointSet(*ds, j), eo.ground, C);
            std::printf("flows        %zu (from -> to: amount, ground distance)\n", r.flows.size());
            for (const ot::Flow& f : r.flows)
                std::printf("  %4d %-22s -> %4d %-22s %.6g  %.6g\n", f.i, workspace::describeElement(*ds, i, f.i).c_str(), f.j,
                            workspace::describeElement(*ds, j, f.j).c_str(), f.amount,
                            C[static_cast<std::size_t>(f.i) * ds->setSize(j) + static_cast<std::size_t>(f.j)]);
        }
        rc = 0;
    });
}

void addEmdMatrixCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("emd-matrix", "Full pairwise EMD or Chamfer matrix of a dataset (all cores, "
                                                 "cached by content hash, resumable), written as N x N float32 .npy");
    struct Opt {
        std::string dataset, out, distance = "emd", ground = "euclidean", cacheDir;
        int threads = 0;
        int nproc = 1;
        std::int64_t limit = 0;
        bool unweighted = false;
    };
    auto o = std::make_shared<Opt>();
    cmd->add_option("--dataset", o->dataset, "dataset name or path")->required();
    cmd->add_option("--out", o->out, "output .npy file (written by rank 0)")->required();
    cmd->add_option("--nproc", o->nproc,
                    "shard the blocks over this many processes on this machine (c10d Gloo; each gets --threads "
                    "cores/N unless --threads is given); across machines start it once per rank under torchrun "
                    "or srun instead (docs/DISTRIBUTED.md)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--distance", o->distance, "emd | chamfer")->capture_default_str();
    cmd->add_option("--ground", o->ground, "euclidean | sqeuclidean | cosine")->capture_default_str();
    cmd->add_flag("--unweighted", o->unweighted, "Chamfer: ignore element weights");
    cmd->add_option("--threads", o->threads, "threads (0 = all cores)")->capture_default_str();
    cmd->add_option("--limit", o->limit, "only the first N items");
    cmd->add_option("--cache-dir", o->cacheDir, "cache folder (default ~/.cache/setscope)");
    cmd->callback([ctx, o, &rc] {
        if (o->nproc > 1) {
            rc = launchLocalRanks(o->nproc, o->threads, {});
            return;
        }
        const RankContext rank = joinRun(); // before any work: a rank that fails later stops the others at once
        auto ds = ctx().openDataset(o->dataset);
        if (o->limit > 0 && static_cast<std::size_t>(o->limit) < ds->size()) {
            std::vector<std::int64_t> first(static_cast<std::size_t>(o->limit));
            std::iota(first.begin(), first.end(), 0);
            ds = std::make_shared<const data::Dataset>(data::subset(*ds, first));
        }
        ot::PairwiseOptions po;
        po.distance = ot::parseSetDistance(o->distance);
        po.ground = ot::parseGroundDistance(o->ground);
        po.chamferWeighted = !o->unweighted;
        po.threads = o->threads;
        po.cacheDir = o->cacheDir;
        po.comm = rank.comm;
        ot::PairwiseJob job(ds, po);
        if (rank.lead)
            std::fprintf(stderr, "%s matrix of %zu items (%zu pairs); cache %s\n", o->distance.c_str(), ds->size(),
                         ds->size() * (ds->size() - 1) / 2, job.cachePath().c_str());
        ConsoleSink sink;
        const auto t0 = std::chrono::steady_clock::now();
        const job::JobStatus st = runInterruptible(job, sink);
        if (!rank.lead) { // rank 0 writes the matrix and reports
            if (st == job::JobStatus::Failed)
                std::fprintf(stderr, "setscope-cli: %s\n", job.error().c_str());
            rc = exitCode(st);
            return;
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (st == job::JobStatus::Cancelled) {
            std::fprintf(stderr, "cancelled; finished blocks stay in the cache and a rerun resumes from them\n");
            rc = 130;
            return;
        }
        if (st != job::JobStatus::Finished) {
            rc = 1;
            return;
        }
        const auto m = job.result();
        data::writeNpy(o->out, m->row(0), {static_cast<std::uint64_t>(m->size()), static_cast<std::uint64_t>(m->size())});
        std::printf("wrote %s (%lld x %lld float32) in %s%s\n", o->out.c_str(), static_cast<long long>(m->size()),
                    static_cast<long long>(m->size()), formatSeconds(s).c_str(),
                    job.blocksReused() > 0 ? (" (" + std::to_string(job.blocksReused()) + " blocks from the cache)").c_str() : "");
        rc = 0;
    });
}

struct EmdKnnOpt {
    std::string dataset, labelSet = "fine", distance = "emd";
    workspace::EmdKnnRequest request;
    int k = 10;
    int threads = 0;
    bool bruteForce = false;
    int nproc = 1;
};

/// The first queries' neighbours (up to five queries), then the search's counters and the
/// accuracy of the distance-weighted vote.
void printEmdKnn(const data::Dataset& ds, const EmdKnnOpt& o, const workspace::EmdKnnItems& items,
                 const std::vector<ot::EmdKnnResult>& results, const std::string& workers, double seconds)
{
    const ot::SetDistance distance = ot::parseSetDistance(o.distance);
    const bool bruteForce = o.bruteForce || distance != ot::SetDistance::Emd;
    const std::string distanceName = distance == ot::SetDistance::Emd ? "EMD" : "Chamfer";
    for (std::size_t qi = 0; items.queries.size() <= 5 && qi < items.queries.size(); ++qi) {
        const std::int64_t q = items.queries[qi];
        std::printf("query %lld (%s): %d nearest of %zu under %s\n", static_cast<long long>(q),
                    labelOf(ds, static_cast<std::size_t>(q), o.labelSet).c_str(), o.k, items.candidates.size(),
                    distanceName.c_str());
        for (const auto& nb : results[qi].neighbours)
            std::printf("  %8lld  %s %.6g  %s\n", static_cast<long long>(nb.item), distanceName.c_str(), nb.emd,
                        labelOf(ds, static_cast<std::size_t>(nb.item), o.labelSet).c_str());
    }
    const workspace::EmdKnnSummary sum = workspace::summariseEmdKnn(ds, o.labelSet, items.queries, results);
    const ot::EmdKnnStats& total = sum.total;
    // The counts are those of the serial search whatever the thread count; speculative
    // solves (threads that ran ahead of it, then not needed) are extra work.
    const std::string speculative =
        total.speculativeSolves > 0 ? " (+" + std::to_string(total.speculativeSolves) + " speculative)" : std::string();
    if (bruteForce)
        std::printf("brute force: %lld candidates, %lld %s, %s, %s\n", static_cast<long long>(total.candidates),
                    static_cast<long long>(total.exactSolves),
                    distance == ot::SetDistance::Emd ? "exact EMDs" : "Chamfer distances", workers.c_str(),
                    formatSeconds(seconds).c_str());
    else
        std::printf("pruning: %lld candidates, %lld exact EMDs (%.1f %%)%s, %lld skipped by WCD, %lld by RWMD, "
                    "%s, %s\n",
                    static_cast<long long>(total.candidates), static_cast<long long>(total.exactSolves),
                    total.candidates ? 100.0 * static_cast<double>(total.exactSolves) / static_cast<double>(total.candidates) : 0.0,
                    speculative.c_str(), static_cast<long long>(total.prunedByWcd),
                    static_cast<long long>(total.prunedByRwmd), workers.c_str(), formatSeconds(seconds).c_str());
    if (sum.scored > 1)
        std::printf("kNN accuracy (k=%d, distance-weighted, %s, %lld queries): %.4f\n", o.k, distanceName.c_str(),
                    static_cast<long long>(sum.scored), sum.accuracy());
}

/// One process's part of emd-knn; rank 0 prints. Returns the exit code.
int runEmdKnn(CliContext& context, const EmdKnnOpt& o)
{
    const RankContext rank = joinRun(); // before any work: a rank that fails later stops the others at once
    const ot::SetDistance distance = ot::parseSetDistance(o.distance);
    const auto ds = context.openDataset(o.dataset);
    const workspace::EmdKnnItems items = workspace::emdKnnItems(*ds, o.request);
    for (auto q : items.queries)
        checkItem(*ds, q, "--query");
    InterruptScope interrupts;
    job::JobControl control;
    std::thread watch([&] {
        while (!interruptRequested() && !control.cancelRequested())
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        control.requestCancel();
    });
    const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    ConsoleSink sink;
    ot::EmdKnnOptions options;
    options.method = o.bruteForce || distance != ot::SetDistance::Emd ? ot::EmdKnnMethod::BruteForce : ot::EmdKnnMethod::Pruned;
    options.distance = distance;
    options.threads = threads;
    options.control = &control;
    options.progress = [&sink](const ot::EmdKnnProgress& p) { sink.progress(p.candidatesDone, p.candidates, "kNN candidates"); };
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<ot::EmdKnnResult> results;
    bool cancelled = false;
    try {
        results = workspace::emdKnnOnRanks(rank.comm, *ds, items.queries, items.candidates, o.k, options);
    } catch (const job::Cancelled&) {
        cancelled = true;
    } catch (...) { // an error of the search (main prints it): stop the watcher first
        sink.finished(job::JobStatus::Finished, {});
        control.requestCancel();
        watch.join();
        throw;
    }
    sink.finished(job::JobStatus::Finished, {}); // clears a progress bar
    control.requestCancel();
    watch.join();
    if (cancelled) {
        std::fprintf(stderr, "cancelled\n");
        return 130;
    }
    if (rank.lead) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::string workers = (rank.comm ? std::to_string(rank.comm->size()) + " ranks x " : std::string()) +
                                    std::to_string(threads) + (threads == 1 ? " thread" : " threads");
        printEmdKnn(*ds, o, items, results, workers, s);
    }
    return 0;
}

void addEmdKnnCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("emd-knn", "k nearest neighbours under exact EMD, pruned with the centroid and "
                                              "relaxed-EMD bounds (Kusner et al. 2015), on all cores; with several "
                                              "queries also the distance-weighted kNN accuracy (the WMD-kNN "
                                              "classifier)");
    auto o = std::make_shared<EmdKnnOpt>();
    cmd->add_option("--dataset", o->dataset, "dataset name or path")->required();
    cmd->add_option("--nproc", o->nproc,
                    "share the queries among this many processes on this machine (c10d Gloo; each gets --threads "
                    "cores/N unless given); across machines start it once per rank under torchrun or srun "
                    "(docs/DISTRIBUTED.md). Rank 0 prints; the results are those of one process")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--k", o->k, "neighbours")->capture_default_str()->check(CLI::PositiveNumber);
    cmd->add_option("--query", o->request.queries, "query item (repeatable; default: the first test item)");
    cmd->add_option("--test-queries", o->request.testQueries, "use the first N test items as queries");
    cmd->add_option("--candidates", o->request.candidates, "train | all")->capture_default_str();
    cmd->add_option("--limit", o->request.limit, "only the first N candidates");
    cmd->add_option("--label-set", o->labelSet, "labels for the accuracy")->capture_default_str();
    cmd->add_option("--threads", o->threads, "threads (0 = all cores); the results do not depend on it")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--brute-force", o->bruteForce, "exact EMD to every candidate, no pruning (the reference)");
    cmd->add_option("--distance", o->distance,
                    "emd | chamfer (seed 001's CD-kNN baseline: weighted Chamfer distance, Euclidean ground "
                    "distance, to every candidate)")
        ->capture_default_str();
    cmd->callback([ctx, o, &rc] {
        rc = o->nproc > 1 ? launchLocalRanks(o->nproc, o->threads, {}) : runEmdKnn(ctx(), *o);
    });
}

} // namespace

void addOtCommands(CLI::App& app, ContextFn ctx, int& rc)
{
    addEmdCommand(app, ctx, rc);
    addEmdMatrixCommand(app, ctx, rc);
    addEmdKnnCommand(app, ctx, rc);
}

} // namespace setscope::cli
