// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
} // namespace setscope::job

namespace setscope::ot {

struct EmdNeighbour {
    std::int64_t item = -1;
    double emd = 0.0;
};

/// What the search did for one query. The first four counters are those of the serial
/// search (one thread, candidates in the order below) and do not depend on the thread
/// count; `speculativeSolves` does.
struct EmdKnnStats {
    std::int64_t candidates = 0;   ///< items considered (the query and repeated indices excluded)
    std::int64_t exactSolves = 0;  ///< exact EMDs the serial search computes
    std::int64_t prunedByWcd = 0;  ///< never looked at: their centroid bound exceeded the k-th distance
    std::int64_t prunedByRwmd = 0; ///< skipped because their RWMD exceeded the k-th distance
    // candidates == exactSolves + prunedByWcd + prunedByRwmd
    /// Exact solves that idle threads ran ahead of the serial order and that the serial
    /// search then did not need (it skipped those candidates by RWMD or stopped before
    /// them), including solves that failed: wasted work, not part of the sum above. Depends on the thread count and on
    /// timing; always 0 with one thread, for brute force, and for a query that one thread
    /// searched alone (see emdKnnQueries()).
    std::int64_t speculativeSolves = 0;
};

struct EmdKnnResult {
    std::vector<EmdNeighbour> neighbours; ///< ascending EMD, ties by item index
    EmdKnnStats stats;
};

/// Progress of emdKnnQueries(). Both "done" counts never decrease from one report to the next.
struct EmdKnnProgress {
    std::int64_t queriesDone = 0;
    std::int64_t queries = 0;
    /// Candidates decided (solved exactly, skipped by RWMD, or pruned when the search
    /// stopped: a stopped query counts all of its remaining candidates at once), summed
    /// over the queries; `candidates` is the sum of EmdKnnStats::candidates.
    std::int64_t candidatesDone = 0;
    std::int64_t candidates = 0;
};

enum class EmdKnnMethod {
    Pruned,     ///< emdKnn(): centroid and RWMD bounds, exact EMD only where they cannot decide
    BruteForce, ///< exact EMD to every candidate (the reference for tests and benchmarks)
};

struct EmdKnnOptions {
    EmdKnnMethod method = EmdKnnMethod::Pruned;
    /// Worker threads; 0 = std::thread::hardware_concurrency(), as PairwiseOptions::threads.
    /// Results, errors and the serial counters of EmdKnnStats do not depend on it.
    int threads = 0;
    /// Polled before every candidate and inside every exact solve (EmdOptions::control) by
    /// every worker: a cancel throws job::Cancelled from the call once the workers have
    /// stopped (each finishes at most the candidate in hand, so at most one query per thread
    /// completes after the request); a pause blocks the workers. May be null; not owned.
    job::JobControl* control = nullptr;
    /// Called on the calling thread: once at the start, then at most every 100 ms when a
    /// count has changed, and once after the workers have stopped (also when the call ends by
    /// an exception: the last report counts every query that finished). It runs with the
    /// search's lock held, so no query finishes while it runs (a report and a cancel
    /// requested from it are a consistent pair); keep it short and do not call back into
    /// the search. May be empty.
    std::function<void(const EmdKnnProgress&)> progress;
    /// EmdOptions::maxPivots of every exact solve (0 = the default cap). Tests only.
    std::int64_t maxPivots = 0;
    /// The distance of the search. Chamfer (weighted, Euclidean ground distance: chamfer() with
    /// its defaults; seed 001's CD baseline) has no pruning bounds here: it needs
    /// EmdKnnMethod::BruteForce, and EmdNeighbour::emd then holds the Chamfer distance.
    SetDistance distance = SetDistance::Emd;
};

/// The k nearest `candidates` of each dataset item in `queries` under exact EMD (seed 001
/// Eq. 2, partial transport for unequal masses; Euclidean ground distance), on
/// `options.threads` worker threads; the calling thread blocks (and reports progress).
/// Result i belongs to queries[i].
///
/// Pruned (Kusner et al. 2015 §4, "prefetch and prune"): candidates sorted by their centroid
/// bound (centroidBound(): WCD for equal masses, WCD corrected for the mass difference
/// otherwise — plain WCD is no bound then), ties by index; the first k solved exactly; then,
/// in that order, stop once the bound exceeds the k-th best, skip a candidate whose RWMD
/// (relaxedEmd(), valid for any masses) exceeds it, else solve exactly. "Exceeds" means by
/// more than a rounding margin (1e-9 of the k-th distance plus the data's scale), so a
/// candidate that could tie the k-th best is always solved. Returns exactly the brute-force
/// neighbours (same items, bit-identical distances; ties broken by item index).
///
/// Threads (docs/OT_BOUNDS.md, "On all cores"): each thread takes a query of its own and
/// searches it alone, exactly as the serial search does; threads that find no query left
/// join running queries and evaluate candidates ahead of the serial order, using the
/// query's committed k-th best (which only falls) as their bound; results are committed in
/// the serial order with the serial decisions. So neighbours, distances, ties, errors and
/// the serial counters are those of one thread, whatever the thread count.
///
/// A query is never its own neighbour; an index listed twice counts once; fewer than k
/// candidates give them all. Throws OtError for k < 1, an index out of range or a bad item
/// ("item 17: ..."; checked before any search, queries[0] first, then the candidates in
/// ascending order, then the other queries) and for a failed exact solve that the serial
/// search needs ("query item 3, candidate item 17: ..."); when several queries fail, the
/// error of the first in `queries` is thrown (a solve that only a speculating thread ran is
/// not an error). job::Cancelled on a cancel (errors win over a cancel). With
/// options.distance = Chamfer the same search ranks by Chamfer distance (brute force only:
/// std::invalid_argument for the pruned method).
std::vector<EmdKnnResult> emdKnnQueries(const data::Dataset& dataset, const std::vector<std::int64_t>& queries,
                                        const std::vector<std::int64_t>& candidates, int k,
                                        const EmdKnnOptions& options = {});

/// One query, pruned, on all hardware threads: emdKnnQueries({query}, ...) with
/// `control`; the same results, errors and cancellation.
EmdKnnResult emdKnn(const data::Dataset& dataset, std::int64_t query, const std::vector<std::int64_t>& candidates,
                    int k, job::JobControl* control = nullptr);

/// Brute force, on all hardware threads: exact EMD to every candidate. Same conventions,
/// errors and cancellation as emdKnn(); stats.exactSolves == candidates.
EmdKnnResult emdKnnBruteForce(const data::Dataset& dataset, std::int64_t query,
                              const std::vector<std::int64_t>& candidates, int k, job::JobControl* control = nullptr);

} // namespace setscope::ot
