// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <cstdint>
#include <vector>

namespace setscope::ot {

/// Lower bounds on the EMD of seed 001 Eq. 2 (partial transport: min(Σa, Σb) moves, and the
/// work is divided by it), after Kusner et al., "From word embeddings to document
/// distances", ICML 2015, §4. Kusner's bounds assume normalised (equal) masses; for
/// unequal masses two of them are NOT lower bounds of the partial EMD. Where each bound is
/// valid, with proofs and counterexamples: docs/OT_BOUNDS.md. In short:
///  - centroidDistance() (WCD): Euclidean ground distance, equal masses only;
///  - centroidBound(): WCD corrected for unequal masses; Euclidean (its square for
///    squared Euclidean), any masses;
///  - relaxedEmdDirected() (ℓ_A): any ground distance, only when A is not the heavier set;
///  - relaxedEmd() (RWMD): any ground distance, any masses.
/// WCD ≤ RWMD does NOT hold in general (Kusner report RWMD as the tighter bound
/// empirically, not as a theorem); the tests carry a counterexample.
/// All functions are pure and thread-safe. centroidBound() and relaxedEmd() vary
/// continuously with the masses and reduce to Kusner's WCD and RWMD when the masses are
/// equal, so weight sums that differ only by rounding are harmless for them.

/// The weighted centroid Σ ŵ_i x_i of a set (d doubles). Does not validate (call
/// validate() first: it needs a positive total weight).
std::vector<double> centroid(const PointSet& s);

/// Kusner's word centroid distance ||ca - cb|| between two centroids. A lower bound on the
/// EMD only for the Euclidean ground distance AND equal masses: with unequal masses the
/// lighter set moves onto an unknown part of the heavier one, whose centroid is not cb.
/// (Counterexample: A = {0} mass 1, B = {0, 10} mass 1 each: EMD = 0, WCD = 5.)
double centroidDistance(const std::vector<double>& ca, const std::vector<double>& cb);

/// Everything centroidBound() needs about one set, computed once per set in O(n d).
struct CentroidSummary {
    std::vector<double> centroid; ///< Σ ŵ_i x_i
    double mass = 0.0;            ///< Σ w_i
    double radius = 0.0;          ///< max ||x_i - centroid|| over elements with w_i > 0
    double scale = 0.0;           ///< max ||x_i|| over all elements: the size rounding errors scale with
};

/// Does not validate (call validate() first).
CentroidSummary summarize(const PointSet& s);

/// A centroid lower bound on the EMD valid for ANY masses. With H the heavier set (mass M,
/// radius ρ_H) and L the lighter (mass m):
///   Euclidean:         max(0, ||c_A - c_B|| - 2 (1 - m / M) ρ_H)   (= WCD when m = M)
///   SquaredEuclidean:  the square of the Euclidean value (Jensen)
///   Cosine:            0 (no centroid bound: the cosine distance is not a norm of x - y)
double centroidBound(const CentroidSummary& a, const CentroidSummary& b, GroundDistance g);

/// One-sided relaxation ℓ_A = Σ_i ŵ_a,i min_{j: w_b,j > 0} cost_ij (A's mass to its nearest
/// elements of B; zero-weight elements of B receive no flow and are skipped). A lower bound
/// for any ground distance when Σ w_a ≤ Σ w_b (then all of A's mass must move); NOT when A
/// is heavier (counterexample with A and B swapped above: ℓ = 5, EMD = 0).
/// Throws OtError when a side is empty or has no positive weight.
double relaxedEmdDirected(const double* cost, const float* wa, std::int64_t na, const float* wb, std::int64_t nb);

/// RWMD given the cost matrix (na x nb, row-major) and the raw weights; a lower bound on
/// the EMD for any ground distance and any masses. Equal masses: Kusner's
/// max(ℓ_A, ℓ_B). Unequal masses: max(ℓ_L, r_H), where ℓ_L is the lighter side's ℓ and r_H
/// relaxes the heavier side to the cheapest partial fill: min Σ_j c_j μ_j / m over
/// 0 ≤ c_j ≤ w_H,j, Σ c_j = m, μ_j = the nearest-element cost of H's element j (Kusner's
/// ℓ_H itself is not a bound then). Throws OtError as relaxedEmdDirected().
double relaxedEmd(const double* cost, const float* wa, std::int64_t na, const float* wb, std::int64_t nb);

} // namespace setscope::ot
