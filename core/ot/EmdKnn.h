// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <cstdint>
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

struct EmdKnnStats {
    std::int64_t candidates = 0;   ///< items considered (the query and repeated indices excluded)
    std::int64_t exactSolves = 0;  ///< exact EMDs computed
    std::int64_t prunedByWcd = 0;  ///< never looked at: their centroid bound exceeded the k-th distance
    std::int64_t prunedByRwmd = 0; ///< skipped because their RWMD exceeded the k-th distance
    // candidates == exactSolves + prunedByWcd + prunedByRwmd
};

struct EmdKnnResult {
    std::vector<EmdNeighbour> neighbours; ///< ascending EMD, ties by item index
    EmdKnnStats stats;
};

/// The k nearest `candidates` of dataset item `query` under exact EMD (seed 001 Eq. 2,
/// partial transport for unequal masses; Euclidean ground distance), pruned with lower
/// bounds (Kusner et al. 2015 §4, "prefetch and prune"): candidates sorted by their
/// centroid bound (centroidBound(): WCD for equal masses, WCD corrected for the mass
/// difference otherwise — plain WCD is no bound then); the first k solved exactly; then, in
/// that order, stop once the bound exceeds the k-th best, skip a candidate whose RWMD
/// (relaxedEmd(), valid for any masses) exceeds it, else solve exactly. "Exceeds" means by
/// more than a rounding margin (1e-9 of the k-th distance plus the data's scale), so a
/// candidate that could tie the k-th best is always solved. Returns exactly the
/// brute-force neighbours (same items, bit-identical distances; ties broken by item index).
///
/// `query` is never its own neighbour; an index listed twice counts once; fewer than k
/// candidates give them all. Throws OtError for k < 1, an index out of range or a bad
/// item. `control` (may be null) is polled before every candidate and inside every exact
/// solve (EmdOptions::control): cancel throws job::Cancelled within a few thousand pivots
/// of the solve in progress. Runs on the calling thread; one EmdSolver and one cost-matrix
/// buffer serve all candidates.
EmdKnnResult emdKnn(const data::Dataset& dataset, std::int64_t query, const std::vector<std::int64_t>& candidates,
                    int k, job::JobControl* control = nullptr);

/// Brute force: exact EMD to every candidate (the reference for tests and benchmarks).
/// Same conventions, errors and cancellation as emdKnn(); stats.exactSolves == candidates.
EmdKnnResult emdKnnBruteForce(const data::Dataset& dataset, std::int64_t query,
                              const std::vector<std::int64_t>& candidates, int k, job::JobControl* control = nullptr);

} // namespace setscope::ot
