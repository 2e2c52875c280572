// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/semi/Stiefel.h"

#include <setscope/sdk/Model.h>

namespace setscope::semi {

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
/// "metric", initialised by initialOrthogonal()).
///
/// Batch layout: the mining happens outside the batch (semi::minePartition), so a batch is T
/// mined triplets laid out as 3T embedding rows (a_1, p_1, n_1, a_2, p_2, n_2, ...): what the
/// sampler ssdml-triplets produces. Registered as "ssdml-angular", used by the recipe ssdml
/// with that sampler (another sampler's batches are not triplets).
///
/// L and Algorithm 1: L is a registered parameter (checkpoints, to(device)), and it is this
/// loss's selfUpdatedParameters(): the trainer leaves it out of the network's optimizer and
/// calls afterBackward(lr) = stepMetric(lr x metric-lr-scale) after backward (Algorithm 1
/// step 3, a Riemannian step that keeps LᵀL = I; plain SGD when orthogonal = false, the
/// "w/o orth" ablation), then steps the network (step 4).
class AngularLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultAlpha = 40.0; ///< degrees, seed 004 (MNIST, CIFAR-10)

    /// alpha (degrees), metric-dim (l; 0 = the embedding width d), orthogonal, retraction
    /// (qr | cayley), seed (of L's initialisation), metric-lr-scale (L's step size over the
    /// network's learning rate).
    static sdk::OptionSchema schema();

    /// `spec.options` resolved against schema(); spec.embeddingDim is d. Throws
    /// std::invalid_argument for α outside (0, 90), l > d or d < 1.
    explicit AngularLoss(const sdk::LossSpec& spec);

    sdk::LossNeeds needs() const override { return {}; }
    /// embeddings: 3T x d in triplet layout (see above). terms = T, activeTerms = triplets
    /// with m_i > 0. Throws std::invalid_argument when the rows are not a multiple of 3 or the
    /// width is not d.
    sdk::LossOutput forward(const sdk::LossContext& context) override;

    /// Algorithm 1 step 3: one update of L from metric().grad() with learning rate lr (the
    /// configured retraction, or a Euclidean step when not orthogonal), then clears the
    /// gradient. No-op when L has no gradient.
    void stepMetric(double lr);

    /// {L}: the trainer's optimizer must not update it.
    std::vector<torch::Tensor> selfUpdatedParameters() override { return {m_metric}; }
    /// stepMetric(learningRate x metric-lr-scale).
    void afterBackward(double learningRate) override { stepMetric(learningRate * m_metricLrScale); }
    /// L (d x l, detached): the model is scored and used as z L, the space the loss measures
    /// (with l = d and L orthogonal a rotation of z, so the same distances).
    torch::Tensor embeddingProjection() const override { return m_metric.detach(); }

    torch::Tensor& metric() { return m_metric; }
    double alpha() const { return m_alpha; }
    bool orthogonal() const { return m_orthogonal; }
    MetricUpdate update() const { return m_orthogonal ? m_retraction : MetricUpdate::Euclidean; }

private:
    double m_alpha = kDefaultAlpha;
    bool m_orthogonal = true;
    MetricUpdate m_retraction = MetricUpdate::Qr;
    double m_metricLrScale = 1.0;
    torch::Tensor m_metric;
};

} // namespace setscope::semi
