// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace setscope::ot {

/// One non-zero entry of an optimal flow: `amount` of element i of A moves to element j of B.
struct Flow {
    std::int32_t i = 0;
    std::int32_t j = 0;
    double amount = 0.0;
};

/// Result of an exact EMD (seed 001 §3, Eq. 1–2; Rubner et al. 2000):
///   minimise WORK = Σ f_ij d_ij  subject to  f_ij ≥ 0, Σ_j f_ij ≤ w_a,i, Σ_i f_ij ≤ w_b,j,
///   Σ f_ij = min(Σ w_a, Σ w_b);   EMD = WORK / Σ f_ij.
struct EmdResult {
    double emd = 0.0;        ///< WORK / total flow
    double work = 0.0;       ///< Σ f_ij d_ij
    double totalFlow = 0.0;  ///< min(Σ w_a, Σ w_b)
    std::vector<Flow> flows; ///< the optimal flow (non-zero entries), when asked for
    std::int64_t pivots = 0; ///< simplex pivots (for benchmarks)
};

struct EmdOptions {
    GroundDistance ground = GroundDistance::Euclidean;
    bool flows = false; ///< fill EmdResult::flows
};

/// Exact EMD between two weighted sets, in float64, of any size (network simplex on the
/// bipartite transport graph). Equal total masses are the fast path; unequal masses are
/// solved exactly by a zero-cost slack node that absorbs the heavier side's excess.
/// Throws OtError for bad input.
/// Thread-safe (no shared state); for many pairs on one thread reuse an EmdSolver.
EmdResult emd(const PointSet& a, const PointSet& b, const EmdOptions& options = {});

/// The same on a given cost matrix (na x nb, row-major) and masses.
EmdResult emdFromCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                      bool flows = false);

/// Reusable solver: keeps its buffers between calls so that a loop over many pairs does
/// not allocate. One solver per thread.
class EmdSolver {
public:
    EmdSolver();
    ~EmdSolver();
    EmdSolver(EmdSolver&&) noexcept;
    EmdSolver& operator=(EmdSolver&&) noexcept;

    EmdResult solve(const PointSet& a, const PointSet& b, const EmdOptions& options = {});
    EmdResult solveCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                        bool flows = false);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace setscope::ot
