// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <torch/types.h>

#include <cstdint>

namespace setscope::losses {

/// Pairwise squared Euclidean distances of the rows of x (B x E) -> B x B, >= 0, exact 0
/// on the diagonal. Differentiable.
torch::Tensor pairwiseSquaredDistances(const torch::Tensor& x);

/// Euclidean distances sqrt(max(d2, eps)); the clamp keeps the gradient finite at 0.
torch::Tensor safeSqrt(const torch::Tensor& d2, double eps = 1e-12);

/// Masks from labels (B, int64; -1 = ignore):
///  positive[a][p]: same label, a != p, both labelled;  negative[a][n]: both labelled, labels differ.
struct PairMasks {
    torch::Tensor positive; ///< B x B bool
    torch::Tensor negative; ///< B x B bool
};
PairMasks pairMasks(const torch::Tensor& labels);

/// The margin terms of a contrastive loss (Hadsell, Chopra and LeCun 2006) over the unordered
/// labelled pairs i < j of a batch: `distances[i][j]` for a same-label pair, relu(margin -
/// distances[i][j]) for a different-label pair, averaged over all those pairs. `distances`
/// (B x B, differentiable) is Euclidean for `contrastive` and squared for seed 003's Eq. 3
/// (`locality-contrastive`); the caller chooses. labels: B int64, -1 = unlabelled (its pairs
/// count in neither sum). With no labelled pair, loss = 0 (still attached to `distances`).
struct PairTerms {
    torch::Tensor loss;       ///< scalar
    std::int64_t terms = 0;   ///< labelled pairs that entered the mean
    std::int64_t active = 0;  ///< of those, how many have a non-zero term
};
PairTerms marginPairTerms(const torch::Tensor& distances, const torch::Tensor& labels, double margin);

/// FaceNet's semi-hard negative for every anchor-positive pair, on distances `d` (B x B):
/// the negative closest to the anchor among those farther from it than the positive,
/// d[a][n] > d[a][p]. When no negative is farther, the fallback of FaceNet-style
/// implementations (TensorFlow Addons' TripletSemiHardLoss): the farthest negative.
/// Returns B x B int64 indices of n for each (a, p); -1 where (a, p) is not a positive
/// pair or the anchor has no negative at all. Not differentiable (indices only).
torch::Tensor semiHardNegatives(const torch::Tensor& d, const torch::Tensor& labels);

/// For each row a of the distances `d` (B x B), the nearest other column: argmin over
/// j != a of d[a][j], ties to the lowest index. What the self-supervised losses take as the
/// EMD positive (seed 000 §IV-A). Returns B int64 on d's device, -1 in every row when B < 2.
/// Not differentiable.
torch::Tensor nearestOther(const torch::Tensor& d);

/// Semi-hard negative of each anchor for an explicit anchor-positive distance (seed 000
/// §IV-A; seed 001 Eq. 7 where the positive is the augmented view): among the columns n
/// with candidates[a][n], the one closest to the anchor with d[a][n] > positiveDistance[a];
/// when no candidate is that far, the farthest candidate (the fallback of TensorFlow Addons'
/// TripletSemiHardLoss and of the WSSET code). Ties go to the lowest index.
/// d: A x N distances (anchors x candidates), positiveDistance: A, candidates: A x N bool,
/// all on one device. Returns A int64 column indices, -1 where a row has no candidate.
/// Not differentiable (indices only).
torch::Tensor semiHardNegatives(const torch::Tensor& d, const torch::Tensor& positiveDistance,
                                const torch::Tensor& candidates);

} // namespace setscope::losses
