// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Deep-SERAPH (seed 004 Eq. 1, Algorithm 1): a loss that owns the metric M (docs/SSDML.md).

#include "core/losses/MahalanobisMetric.h"

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/types.h>

#include <vector>

namespace setscope::losses {

/// SERAPH (Niu et al. 2014) as seed 004 Eq. (1) writes it:
///   - Σ_{labelled pairs} log p_ij(y_ij) - μ Σ_{unlabelled pairs} Σ_{y = ±1} p_ij(y) log p_ij(y) + λ Tr(M)
/// with p_ij(y) = 1 / (1 + exp(y (δ²_M(z_i, z_j) - η))), y_ij = +1 for same-class pairs and -1
/// for different-class ones. "η, µ, λ > 0 are hyperparameters": the paper gives no values;
/// the defaults (1, 1, 1) are ours.
struct SeraphOptions {
    double eta = 1.0;
    double mu = 1.0;
    double lambda = 1.0;
};

/// Deep-SERAPH on a mini-batch (no graph). Labelled pairs: both rows labelled; unlabelled
/// pairs: both rows unlabelled (Eq. 1's "z_i, z_j ∈ X_U"); a labelled-unlabelled pair enters
/// neither sum. Sums over pairs as the paper writes them; λ Tr(M) once per batch.
/// -log p = softplus(y (δ² - η)), the entropy by softplus as well (no overflow).
/// Throws std::invalid_argument on shape mismatches, bad labels or η, μ, λ < 0.
BaselineLoss seraphLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& labels,
                        const SeraphOptions& options = {});

/// Deep-SERAPH as an sdk::MetricLoss that owns M (d x d, parameter "metric", the identity at
/// start; saved in checkpoints, moved with to(device)). Reads embeddings and labels from the
/// LossContext: any batch of rows works, with labelled and unlabelled rows mixed. Registered
/// as "seraph" (recipe seraph, sampler ssdml-partition with affinity none).
///
/// Algorithm 1: M is a self-updated parameter (left out of the network's optimizer);
/// afterBackward(lr) calls stepMetric(lr × metric-lr-scale) (step 3, a projected step that
/// keeps M ⪰ 0) before the optimizer steps the network (step 4).
class SeraphLoss final : public MetricOwner<sdk::MetricLoss> {
public:
    /// eta, mu, lambda (defaults 1: the paper gives no values), metric-lr-scale (1).
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(); spec.embeddingDim is d. Throws
    /// std::invalid_argument for d < 1.
    explicit SeraphLoss(const sdk::LossSpec& spec);

    sdk::LossNeeds needs() const override { return {.labels = true}; }
    /// terms = labelled + unlabelled pairs of the batch, activeTerms = the same (every SERAPH
    /// term is positive). Throws std::invalid_argument as seraphLoss().
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    /// Step 3 of Algorithm 1: M ← projectPsd(M - lr ∇_M), then clears the gradient. No-op when
    /// M has no gradient.
    void stepMetric(double lr) override;

    const SeraphOptions& options() const { return m_options; }

private:
    SeraphOptions m_options;
};

/// The registry's entry "seraph".
sdk::LossInfo seraphLossInfo();

} // namespace setscope::losses
