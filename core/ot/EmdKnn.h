// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <cstdint>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::train {
class JobControl;
}

namespace setscope::ot {

struct EmdNeighbour {
    std::int64_t item = -1;
    double emd = 0.0;
};

struct EmdKnnStats {
    std::int64_t candidates = 0;   ///< items considered
    std::int64_t exactSolves = 0;  ///< exact EMDs computed
    std::int64_t prunedByWcd = 0;  ///< skipped because WCD ≥ the current k-th distance
    std::int64_t prunedByRwmd = 0; ///< skipped because RWMD ≥ the current k-th distance
};

struct EmdKnnResult {
    std::vector<EmdNeighbour> neighbours; ///< ascending EMD, ties by item index
    EmdKnnStats stats;
};

/// The k nearest `candidates` of dataset item `query` under exact EMD (Euclidean ground
/// distance), pruned with WCD and RWMD (Kusner et al. 2015 §4: "prefetch and prune"):
/// candidates sorted by WCD; the first k solved exactly; then, in WCD order, stop when
/// WCD ≥ the k-th best, skip when RWMD ≥ the k-th best, else solve exactly. Returns
/// exactly the brute-force neighbours (same items and distances; ties broken by item index).
/// `query` is never its own neighbour. `control` (may be null) is polled for cancel.
EmdKnnResult emdKnn(const data::Dataset& dataset, std::int64_t query, const std::vector<std::int64_t>& candidates,
                    int k, train::JobControl* control = nullptr);

/// Brute force: exact EMD to every candidate (the reference for tests and benchmarks).
EmdKnnResult emdKnnBruteForce(const data::Dataset& dataset, std::int64_t query,
                              const std::vector<std::int64_t>& candidates, int k, train::JobControl* control = nullptr);

} // namespace setscope::ot
