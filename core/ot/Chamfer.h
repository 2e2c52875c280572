// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

namespace setscope::ot {

/// Chamfer distance (seed 001 Appendix A; Fan et al. 2017), both directions summed:
///   CD(A, B) = Σ_i ŵ_a,i min_j d(a_i, b_j) + Σ_j ŵ_b,j min_i d(a_i, b_j)
/// with ŵ the weights normalised to sum 1 (weighted), or 1/n each (unweighted: the
/// element weights are ignored). With squared Euclidean ground distance and unweighted
/// sets this is PyTorch3D's chamfer_distance (point_reduction "mean", batch of one).
struct ChamferOptions {
    GroundDistance ground = GroundDistance::Euclidean;
    bool weighted = true;
};

/// Throws OtError for bad input (validate()).
double chamfer(const PointSet& a, const PointSet& b, const ChamferOptions& options = {});

/// The same on a given cost matrix (na x nb, row-major) and weights (normalised inside).
double chamferFromCost(const double* cost, const float* wa, std::int64_t na, const float* wb, std::int64_t nb,
                       bool weighted);

} // namespace setscope::ot
