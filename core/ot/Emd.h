// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace setscope::job {
class JobControl;
} // namespace setscope::job

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
    GroundDistance ground = GroundDistance::Euclidean; ///< ignored by the cost-matrix entry points
    bool flows = false; ///< fill EmdResult::flows
    /// Polled inside the solve with JobControl::checkpoint() on the solving thread: a cancel
    /// throws job::Cancelled, a pause blocks there. Polls come once per component join of
    /// the start, then after at most kEmdPollPivots pivots or kEmdPollEntries priced cost
    /// entries, whichever is first. A solve does not poll on entry (callers poll before a
    /// solve). May be null. Not owned.
    job::JobControl* control = nullptr;
    /// Pivot cap: 0 = emdPivotCap(na, nb). A solve that needs more pivots throws OtError
    /// ("did not converge"). Only tests set it lower.
    std::int64_t maxPivots = 0;
};

/// Cancel polling inside a solve (EmdOptions::control). A pivot costs 0.4–7 µs on average
/// on 90–2 000-element sets, so 4 096 of them take at most tens of milliseconds; the entry
/// budget (4 Mi priced doubles, a few milliseconds of pricing) cuts short a stretch of
/// pivots that each price much of the matrix.
inline constexpr std::int64_t kEmdPollPivots = 4096;
inline constexpr std::int64_t kEmdPollEntries = std::int64_t(1) << 22;

/// The default pivot cap of an na x nb problem: max(10^6, 1000 (na + nb)). Measured pivots
/// are 3.5–7 (na + nb) from 90 x 90 to 2 000 x 2 000 (docs/OT.md), so the cap is 140× that
/// or more; it exists to turn a solver bug (cycling) into an error instead of a hang.
std::int64_t emdPivotCap(std::int64_t na, std::int64_t nb);

/// Exact EMD between two weighted sets, in float64, of any size (network simplex on the
/// bipartite transport graph). Equal total masses are the fast path; unequal masses are
/// solved exactly by a zero-cost slack node that absorbs the heavier side's excess.
/// Throws OtError for bad input or when the pivot cap is reached, job::Cancelled on a
/// cancel through options.control.
/// Thread-safe (no shared state); for many pairs on one thread reuse an EmdSolver.
EmdResult emd(const PointSet& a, const PointSet& b, const EmdOptions& options = {});

/// The same on a given cost matrix (na x nb, row-major) and masses.
EmdResult emdFromCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                      bool flows = false);
EmdResult emdFromCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                      const EmdOptions& options);

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
    /// options.ground is ignored (the cost matrix is given).
    EmdResult solveCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                        const EmdOptions& options);

    /// Pivots of the last solve, also when it ended by an exception (cancel, pivot cap).
    std::int64_t lastPivots() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace setscope::ot
