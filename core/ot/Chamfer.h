// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <cstdint>

namespace setscope::ot {

/// Chamfer distance (seed 001 Appendix A; Fan et al. 2017), both directions summed:
///   CD(A, B) = Σ_i ŵ_a,i min_j d(a_i, b_j) + Σ_j ŵ_b,j min_i d(a_i, b_j)
/// with ŵ the weights normalised to sum 1 (weighted), or 1/n each (unweighted: the
/// element weights are ignored). Weighted, an element of weight 0 is absent, as in the EMD:
/// it adds nothing and is nobody's nearest element. With squared Euclidean ground distance
/// and unweighted sets this is PyTorch3D's chamfer_distance (point_reduction "mean", batch
/// of one). Symmetric: CD(A, B) = CD(B, A). Not a lower bound of the EMD; weighted and
/// with equal masses, CD / 2 ≤ RWMD ≤ EMD (CD = ℓ_A + ℓ_B, docs/OT_BOUNDS.md).
struct ChamferOptions {
    GroundDistance ground = GroundDistance::Euclidean;
    bool weighted = true;
};

/// O(na nb d) (one matrix product for the cost matrix, then row and column minima), float64.
/// Throws OtError for bad input (validate(), or different dimensions). Thread-safe.
double chamfer(const PointSet& a, const PointSet& b, const ChamferOptions& options = {});

/// The same on a given cost matrix (na x nb, row-major, finite and non-negative) and weights
/// (normalised inside; may be null when !weighted). Throws OtError for an empty side, a
/// weighted side without positive total weight, or a bad cost entry.
double chamferFromCost(const double* cost, const float* wa, std::int64_t na, const float* wb, std::int64_t nb,
                       bool weighted);

} // namespace setscope::ot
