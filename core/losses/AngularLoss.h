// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/losses/Stiefel.h"

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::losses {

/// δ²_L(a, b) = ‖Lᵀ(a - b)‖² row by row: a, b T x d, L d x l; returns T.
torch::Tensor metricSquaredDistance(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& l);

/// The per-triplet margins of seed 004 Eq. (3):
///   m_i = δ²_L(z_i, z⁺_i) - 4 tan²α δ²_L(z⁻_i, (z_i + z⁺_i) / 2)
/// anchor, positive, negative: T x d; L: d x l; α in degrees. Returns T, differentiable in
/// all inputs.
torch::Tensor angularMargins(const torch::Tensor& anchor, const torch::Tensor& positive, const torch::Tensor& negative,
                             const torch::Tensor& l, double alphaDegrees);

/// Seed 004 Eq. (3) averaged over the T triplets: mean_i log(1 + exp(m_i)), by softplus
/// (no overflow for large m). A scalar; an empty batch gives 0 that keeps the graph.
torch::Tensor angularLoss(const torch::Tensor& anchor, const torch::Tensor& positive, const torch::Tensor& negative,
                          const torch::Tensor& l, double alphaDegrees);

/// The SSDML loss of seed 004 as an sdk::MetricLoss that owns the metric L (d x l, parameter
/// "metric", initialised by initialOrthogonal()); l = d / 2 by default (seed 004: FC(500 → 128),
/// l2, L(128 → 64); CIFAR-10 L(64 → 32)). With l = d an orthogonal L is a rotation and the
/// learned metric changes no distance.
///
/// Batch layout: the mining happens outside the batch (semi::minePartition), so a batch is T
/// mined triplets laid out as 3T embedding rows (a_1, p_1, n_1, a_2, p_2, n_2, ...): what the
/// sampler ssdml-triplets produces. Registered as "ssdml-angular", used by the recipe ssdml
/// with that sampler (another sampler's batches are not triplets).
///
/// L and Algorithm 1: L is a registered parameter (checkpoints, to(device)) and this loss's
/// selfUpdatedParameters(): the trainer leaves it out of the network's optimizer.
///   metric-solver = cg (the paper's): forward() first solves L on the batch with the network
///     fixed (step 3: Riemannian conjugate gradient on the Stiefel manifold, at most
///     metric-iterations = 10 iterations, as seed 004 runs Manopt's CGD; flat-space CG for the
///     "w/o orth" ablation), then returns the loss with that L fixed, whose backward reaches
///     the network only (step 4).
///   metric-solver = step: one Riemannian gradient step of L after backward at the network's
///     learning rate x metric-lr-scale (afterBackward; plain SGD when not orthogonal).
/// With several ranks each rank would solve L on its own parts; the trainer refuses that
/// (docs/DISTRIBUTED.md).
class AngularLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultAlpha = 40.0; ///< degrees, seed 004 (MNIST, CIFAR-10)

    /// alpha (degrees), metric-dim (l; 0 = d / 2), orthogonal, retraction (qr | cayley),
    /// seed (of L's initialisation), metric-solver (cg | step), metric-iterations,
    /// metric-lr-scale (the step solver's step size over the network's learning rate).
    static sdk::OptionSchema schema();

    /// `spec.options` resolved against schema(); spec.embeddingDim is d. Throws
    /// std::invalid_argument for α outside (0, 90), l > d or d < 1.
    explicit AngularLoss(const sdk::LossSpec& spec);

    sdk::LossNeeds needs() const override { return {}; }
    /// embeddings: 3T x d in triplet layout (see above). terms = T, activeTerms = triplets
    /// with m_i > 0. With the cg solver, L is solved on the batch first (lastSolve()). Throws
    /// std::invalid_argument when the rows are not a multiple of 3 or the width is not d.
    sdk::LossOutput forward(const sdk::LossContext& context) override;

    /// Step 3 alone: solves L on fixed triplets (3T x d, triplet layout) by conjugate
    /// gradient, as forward() does with the cg solver.
    ConjugateGradientResult solveMetric(const torch::Tensor& embeddings);
    /// The last solve of forward() (zeros before the first, and with the step solver).
    const ConjugateGradientResult& lastSolve() const { return m_lastSolve; }

    /// Algorithm 1 step 3: one update of L from metric().grad() with learning rate lr (the
    /// configured retraction, or a Euclidean step when not orthogonal), then clears the
    /// gradient. No-op when L has no gradient.
    void stepMetric(double lr);

    /// {L}: the trainer's optimizer must not update it.
    std::vector<torch::Tensor> selfUpdatedParameters() override { return {m_metric}; }
    /// The step solver: stepMetric(learningRate x metric-lr-scale). The cg solver: nothing
    /// (L was solved in forward()).
    void afterBackward(double learningRate) override
    {
        if (!m_conjugateGradient)
            stepMetric(learningRate * m_metricLrScale);
    }
    /// L (d x l, detached): the model is scored and used as z L, the space the loss measures
    /// (with l = d and L orthogonal a rotation of z, so the same distances).
    torch::Tensor embeddingProjection() const override { return m_metric.detach(); }

    torch::Tensor& metric() { return m_metric; }
    double alpha() const { return m_alpha; }
    bool orthogonal() const { return m_orthogonal; }
    MetricUpdate update() const { return m_orthogonal ? m_retraction : MetricUpdate::Euclidean; }
    bool conjugateGradientSolver() const { return m_conjugateGradient; }
    int metricIterations() const { return m_metricIterations; }

private:
    double m_alpha = kDefaultAlpha;
    bool m_orthogonal = true;
    MetricUpdate m_retraction = MetricUpdate::Qr;
    double m_metricLrScale = 1.0;
    bool m_conjugateGradient = true;
    int m_metricIterations = 10;
    ConjugateGradientResult m_lastSolve;
    torch::Tensor m_metric;
};

/// The registry's entry "ssdml-angular": name, one line of doc, schema and factory.
sdk::LossInfo angularLossInfo();

} // namespace setscope::losses
