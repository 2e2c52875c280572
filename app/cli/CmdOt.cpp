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

#include <algorithm>
#include <bit>
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

/// emdKnnQueries() with the queries shared among the ranks (query i to rank i mod W); rank 0 gets
/// every query's result (in order), the other ranks only their own. Results and counters are
/// those of one process: each query's search does not depend on where it runs.
std::vector<ot::EmdKnnResult> knnOnRanks(const RankContext& rank, const data::Dataset& ds,
                                         const std::vector<std::int64_t>& queries, const std::vector<std::int64_t>& cands,
                                         int k, const ot::EmdKnnOptions& options)
{
    if (!rank.comm)
        return ot::emdKnnQueries(ds, queries, cands, k, options);
    const int world = rank.comm->size(), me = rank.comm->rank();
    std::vector<std::int64_t> mine;
    for (std::size_t i = static_cast<std::size_t>(me); i < queries.size(); i += static_cast<std::size_t>(world))
        mine.push_back(queries[i]);
    const std::vector<ot::EmdKnnResult> own = ot::emdKnnQueries(ds, mine, cands, k, options);
    // One message per rank: per query its counters, its neighbour count, then item and EMD (bits).
    constexpr int kTagSize = 21, kTagData = 22;
    if (me != 0) {
        std::vector<std::int64_t> msg;
        for (const ot::EmdKnnResult& r : own) {
            msg.insert(msg.end(), {r.stats.candidates, r.stats.exactSolves, r.stats.prunedByWcd, r.stats.prunedByRwmd,
                                   r.stats.speculativeSolves, static_cast<std::int64_t>(r.neighbours.size())});
            for (const ot::EmdNeighbour& nb : r.neighbours)
                msg.insert(msg.end(), {nb.item, std::bit_cast<std::int64_t>(nb.emd)});
        }
        const std::int64_t size = static_cast<std::int64_t>(msg.size());
        rank.comm->send(std::span<const std::int64_t>(&size, 1), 0, kTagSize);
        rank.comm->send(std::span<const std::int64_t>(msg), 0, kTagData);
        return own;
    }
    std::vector<ot::EmdKnnResult> all(queries.size());
    for (std::size_t j = 0; j < own.size(); ++j)
        all[j * static_cast<std::size_t>(world)] = own[j];
    for (int src = 1; src < world; ++src) {
        std::int64_t size = 0;
        rank.comm->recv(std::span<std::int64_t>(&size, 1), src, kTagSize);
        std::vector<std::int64_t> msg(static_cast<std::size_t>(size));
        rank.comm->recv(std::span<std::int64_t>(msg), src, kTagData);
        std::size_t at = 0;
        for (std::size_t i = static_cast<std::size_t>(src); i < queries.size(); i += static_cast<std::size_t>(world)) {
            if (at + 6 > msg.size())
                throw std::runtime_error("rank " + std::to_string(src) + " sent fewer kNN results than it has queries");
            ot::EmdKnnResult& r = all[i];
            r.stats = {msg[at], msg[at + 1], msg[at + 2], msg[at + 3], msg[at + 4]};
            const auto n = static_cast<std::size_t>(msg[at + 5]);
            at += 6;
            if (at + 2 * n > msg.size())
                throw std::runtime_error("rank " + std::to_string(src) + " sent a truncated kNN result");
            for (std::size_t t = 0; t < n; ++t, at += 2)
                r.neighbours.push_back({msg[at], std::bit_cast<double>(msg[at + 1])});
        }
    }
    return all;
}

} // namespace

void addOtCommands(CLI::App& app, ContextFn ctx, int& rc)
{
    // --- emd -----------------------------------------------------------------------------
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

    // --- emd-matrix ----------------------------------------------------------------------
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

    // --- emd-knn -------------------------------------------------------------------------
    {
        auto* cmd = app.add_subcommand("emd-knn", "k nearest neighbours under exact EMD, pruned with the centroid and "
                                                  "relaxed-EMD bounds (Kusner et al. 2015), on all cores; with several "
                                                  "queries also the distance-weighted kNN accuracy (the WMD-kNN "
                                                  "classifier)");
        struct Opt {
            std::string dataset, candidates = "train", labelSet = "fine", distance = "emd";
            int k = 10;
            int threads = 0;
            bool bruteForce = false;
            std::vector<std::int64_t> queries;
            std::int64_t testQueries = 0, limit = 0;
            int nproc = 1;
        };
        auto o = std::make_shared<Opt>();
        cmd->add_option("--dataset", o->dataset, "dataset name or path")->required();
        cmd->add_option("--nproc", o->nproc,
                        "share the queries among this many processes on this machine (c10d Gloo; each gets --threads "
                        "cores/N unless given); across machines start it once per rank under torchrun or srun "
                        "(docs/DISTRIBUTED.md). Rank 0 prints; the results are those of one process")
            ->check(CLI::PositiveNumber);
        cmd->add_option("--k", o->k, "neighbours")->capture_default_str()->check(CLI::PositiveNumber);
        cmd->add_option("--query", o->queries, "query item (repeatable; default: the first test item)");
        cmd->add_option("--test-queries", o->testQueries, "use the first N test items as queries");
        cmd->add_option("--candidates", o->candidates, "train | all")->capture_default_str();
        cmd->add_option("--limit", o->limit, "only the first N candidates");
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
            if (o->nproc > 1) {
                rc = launchLocalRanks(o->nproc, o->threads, {});
                return;
            }
            const RankContext rank = joinRun(); // before any work: a rank that fails later stops the others at once
            const ot::SetDistance distance = ot::parseSetDistance(o->distance);
            const bool bruteForce = o->bruteForce || distance != ot::SetDistance::Emd;
            const std::string distanceName = distance == ot::SetDistance::Emd ? "EMD" : "Chamfer";
            const auto ds = ctx().openDataset(o->dataset);
            std::vector<std::int64_t> cands = o->candidates == "all" ? std::vector<std::int64_t>() : ds->indices(data::Split::Train);
            if (o->candidates == "all" || cands.empty()) {
                cands.resize(ds->size());
                std::iota(cands.begin(), cands.end(), 0);
            } else if (o->candidates != "train") {
                throw std::invalid_argument("--candidates must be train or all");
            }
            if (o->limit > 0 && static_cast<std::size_t>(o->limit) < cands.size())
                cands.resize(static_cast<std::size_t>(o->limit));
            std::vector<std::int64_t> queries = o->queries;
            const auto test = ds->indices(data::Split::Test);
            if (o->testQueries > 0)
                for (std::int64_t t = 0; t < o->testQueries && static_cast<std::size_t>(t) < test.size(); ++t)
                    queries.push_back(test[static_cast<std::size_t>(t)]);
            if (queries.empty())
                queries.push_back(test.empty() ? 0 : test.front());
            for (auto q : queries)
                checkItem(*ds, q, "--query");

            InterruptScope interrupts;
            job::JobControl control;
            std::thread watch([&] {
                while (!interruptRequested() && !control.cancelRequested())
                    std::this_thread::sleep_for(std::chrono::milliseconds(50));
                control.requestCancel();
            });
            ot::EmdKnnStats total;
            std::int64_t correct = 0, scored = 0;
            const data::LabelSet* ls = ds->labelSet(o->labelSet);
            const int threads = o->threads > 0 ? o->threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
            ConsoleSink sink;
            ot::EmdKnnOptions options;
            options.method = bruteForce ? ot::EmdKnnMethod::BruteForce : ot::EmdKnnMethod::Pruned;
            options.distance = distance;
            options.threads = threads;
            options.control = &control;
            options.progress = [&sink](const ot::EmdKnnProgress& p) {
                sink.progress(p.candidatesDone, p.candidates, "kNN candidates");
            };
            const auto t0 = std::chrono::steady_clock::now();
            try {
                const std::vector<ot::EmdKnnResult> results = knnOnRanks(rank, *ds, queries, cands, o->k, options);
                sink.finished(job::JobStatus::Finished, {}); // clears a progress bar
                for (std::size_t qi = 0; rank.lead && qi < queries.size(); ++qi) { // rank 0 prints and scores

                    const std::int64_t q = queries[qi];
                    const ot::EmdKnnResult& r = results[qi];
                    total.candidates += r.stats.candidates;
                    total.exactSolves += r.stats.exactSolves;
                    total.prunedByWcd += r.stats.prunedByWcd;
                    total.prunedByRwmd += r.stats.prunedByRwmd;
                    total.speculativeSolves += r.stats.speculativeSolves;
                    if (queries.size() <= 5) {
                        std::printf("query %lld (%s): %d nearest of %zu under %s\n", static_cast<long long>(q),
                                    labelOf(*ds, static_cast<std::size_t>(q), o->labelSet).c_str(), o->k, cands.size(),
                                    distanceName.c_str());
                        for (const auto& nb : r.neighbours)
                            std::printf("  %8lld  %s %.6g  %s\n", static_cast<long long>(nb.item), distanceName.c_str(),
                                        nb.emd, labelOf(*ds, static_cast<std::size_t>(nb.item), o->labelSet).c_str());
                    }
                    if (ls && ls->labels[static_cast<std::size_t>(q)] >= 0) {
                        // Distance-weighted vote (seed 000 §VI-A: weight 1/distance; zero distances decide alone).
                        std::vector<std::int32_t> labels;
                        std::vector<double> distances;
                        for (const auto& nb : r.neighbours) {
                            labels.push_back(ls->labels[static_cast<std::size_t>(nb.item)]);
                            distances.push_back(nb.emd);
                        }
                        const std::int32_t best = eval::weightedVote(labels, distances);
                        ++scored;
                        correct += best == ls->labels[static_cast<std::size_t>(q)];
                    }
                }
            } catch (const job::Cancelled&) {
                sink.finished(job::JobStatus::Finished, {}); // clears a progress bar
                std::fprintf(stderr, "cancelled\n");
                rc = 130;
            } catch (...) { // an error of the search (main prints it): stop the watcher first
                sink.finished(job::JobStatus::Finished, {});
                control.requestCancel();
                watch.join();
                throw;
            }
            control.requestCancel();
            watch.join();
            if (rc == 130)
                return;
            if (!rank.lead) {
                rc = 0;
                return;
            }
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            // The counts are those of the serial search whatever the thread count; speculative
            // solves (threads that ran ahead of it, then not needed) are extra work.
            const std::string speculative = total.speculativeSolves > 0
                ? " (+" + std::to_string(total.speculativeSolves) + " speculative)"
                : std::string();
            const std::string workers = (rank.comm ? std::to_string(rank.comm->size()) + " ranks x " : std::string()) +
                                        std::to_string(threads) + (threads == 1 ? " thread" : " threads");
            if (bruteForce)
                std::printf("brute force: %lld candidates, %lld %s, %s, %s\n",
                            static_cast<long long>(total.candidates), static_cast<long long>(total.exactSolves),
                            distance == ot::SetDistance::Emd ? "exact EMDs" : "Chamfer distances", workers.c_str(),
                            formatSeconds(s).c_str());
            else
                std::printf("pruning: %lld candidates, %lld exact EMDs (%.1f %%)%s, %lld skipped by WCD, %lld by RWMD, "
                            "%s, %s\n",
                            static_cast<long long>(total.candidates), static_cast<long long>(total.exactSolves),
                            total.candidates ? 100.0 * static_cast<double>(total.exactSolves) / static_cast<double>(total.candidates) : 0.0,
                            speculative.c_str(), static_cast<long long>(total.prunedByWcd),
                            static_cast<long long>(total.prunedByRwmd), workers.c_str(), formatSeconds(s).c_str());
            if (scored > 1)
                std::printf("kNN accuracy (k=%d, distance-weighted, %s, %lld queries): %.4f\n", o->k,
                            distanceName.c_str(), static_cast<long long>(scored),
                            static_cast<double>(correct) / static_cast<double>(scored));
            rc = 0;
        });
    }
}

} // namespace setscope::cli
