// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <vector>

namespace setscope::ot {

/// Lower bounds on the EMD of seed 001 Eq. 2 (Kusner et al., "From word embeddings to
/// document distances", ICML 2015, §4):
///  - word centroid distance WCD = ||Σ ŵ_a,i a_i - Σ ŵ_b,j b_j|| (ŵ normalised weights);
///    a lower bound when the ground distance is Euclidean (by the triangle inequality /
///    Jensen), whatever the masses once they are normalised — see each function's notes;
///  - relaxed EMD RWMD = max(ℓ_A, ℓ_B), ℓ_A = Σ ŵ_a,i min_j d(a_i, b_j): drop one of the
///    two marginal constraints; a lower bound for any ground distance.
/// Each function documents exactly when it is a valid bound (the tests check it against
/// exact EMD on random sets, equal and unequal masses).

/// The weighted centroid Σ ŵ_i x_i of a set (d doubles).
std::vector<double> centroid(const PointSet& s);

/// WCD from two centroids.
double centroidDistance(const std::vector<double>& ca, const std::vector<double>& cb);

/// RWMD given the cost matrix (na x nb) and the raw weights.
double relaxedEmd(const double* cost, const float* wa, std::int64_t na, const float* wb, std::int64_t nb);

} // namespace setscope::ot
