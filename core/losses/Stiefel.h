// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

/// The metric matrix L (d x l, l <= d) of seed 004 on the Stiefel manifold {L : LᵀL = I_l},
/// and the steps that keep it there. All functions take tensors of one floating dtype on
/// one device and return tensors on it; none records autograd history.
namespace setscope::losses {

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

/// f(L) and its Euclidean gradient ∂f/∂L (L's shape) at L.
using MetricObjective = std::function<std::pair<double, torch::Tensor>(const torch::Tensor& l)>;

struct ConjugateGradientOptions {
    int maxIterations = 10;      ///< seed 004: Manopt's CG with max iter = 10
    double minGradNorm = 1e-6;   ///< stop when the (Riemannian) gradient's norm falls below (Manopt's tolgradnorm)
    bool onManifold = true;      ///< false: the same iteration in flat space (no projection, no retraction)
};

struct ConjugateGradientResult {
    int iterations = 0;
    int costEvaluations = 0;
    double initialCost = 0;
    double finalCost = 0;
    double gradNorm = 0;         ///< at the returned L
};

/// Minimises f over the Stiefel manifold {L : LᵀL = I} from L (updated in place): nonlinear
/// conjugate gradient in the manner of Manopt's `conjugategradient` with its defaults
/// (Boumal et al. 2014): the Riemannian gradient (riemannianGradient), the modified
/// Hestenes-Stiefel β = max(0, ⟨g_k, g_k - T(g_{k-1})⟩ / ⟨g_k - T(g_{k-1}), T(η_{k-1})⟩) with
/// vector transport by projection onto the new tangent space, a restart with -g whenever the
/// direction is not a descent direction, the QR retraction (retractQr), and Manopt's adaptive
/// line search (first trial 1/‖η‖, then twice the last accepted step when it was taken at
/// once, halved until f falls by 0.5 · t · ⟨g, η⟩, at most 10 halvings, no move when none
/// does). The cost never rises. Without onManifold: the same in flat space (L <- L + t η).
/// The inner product is the Euclidean one, tr(AᵀB). f is evaluated on copies; its gradient
/// must have L's shape. Throws std::invalid_argument when it has not.
ConjugateGradientResult conjugateGradient(torch::Tensor& l, const MetricObjective& f,
                                          const ConjugateGradientOptions& options = {});

} // namespace setscope::losses
