// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <string>

/// The metric matrix L (d x l, l <= d) of seed 004 on the Stiefel manifold {L : LᵀL = I_l},
/// and the steps that keep it there. All functions take tensors of one floating dtype on
/// one device and return tensors on it; none records autograd history.
namespace setscope::semi {

/// How L is updated from its Euclidean gradient G.
enum class MetricUpdate {
    Qr,        ///< Riemannian gradient, step, QR retraction (signs fixed): stays orthogonal
    Cayley,    ///< Cayley transform of the skew matrix G Lᵀ - L Gᵀ (Wen & Yin 2013): stays orthogonal
    Euclidean, ///< L <- L - lr G: the "w/o orth" ablation of seed 004 Table 4
};

/// "qr", "cayley", "euclidean". Throws std::invalid_argument for another name.
MetricUpdate metricUpdateFromName(const std::string& name);
const char* metricUpdateName(MetricUpdate u);

/// An orthogonal d x l start: the identity when l == d, else the Q factor (signs fixed) of a
/// d x l standard Gaussian drawn from its own generator seeded with `seed` (the global
/// generator is left alone). Throws std::invalid_argument unless 1 <= l <= d.
torch::Tensor initialOrthogonal(std::int64_t d, std::int64_t l, std::uint64_t seed,
                                torch::TensorOptions options = torch::kFloat32);

/// Projection of G (d x l) onto the tangent space at L: G - L sym(LᵀG), sym(A) = (A + Aᵀ)/2.
torch::Tensor riemannianGradient(const torch::Tensor& l, const torch::Tensor& g);

/// The Q factor of the thin QR of Y (d x l) with its columns' signs chosen so that R has a
/// non-negative diagonal: unique, and continuous in Y (a plain QR may flip a column's sign
/// between two close Y's).
torch::Tensor retractQr(const torch::Tensor& y);

/// One update of L in place (L may be a parameter: the update runs without autograd).
/// Qr: L <- retractQr(L - lr riemannianGradient(L, G)). Cayley: L <- (I + lr/2 A)^-1 (I - lr/2 A) L
/// with A = G Lᵀ - L Gᵀ (a d x d solve). Euclidean: L <- L - lr G.
void metricStep(torch::Tensor& l, const torch::Tensor& g, double lr, MetricUpdate update);

/// max |LᵀL - I|, as a double.
double orthogonalityError(const torch::Tensor& l);

} // namespace setscope::semi
