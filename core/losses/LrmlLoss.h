// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Deep-LRML and Deep-ISDML (seed 004 Eq. 2, Algorithm 1): a loss that owns the metric M and
// reads the batch's graph affinities (docs/SSDML.md).

#include "core/losses/MahalanobisMetric.h"

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/types.h>

#include <vector>

namespace setscope::losses {

/// LRML (Hoi, Liu and Chang 2010) as seed 004 Eq. (2) writes it:
///   γ_S Σ_{similar} δ²_M - γ_D Σ_{dissimilar} δ²_M + Tr(M Z 𝓛 Zᵀ),  M ⪰ 0, log|M| ≥ 0.
/// The extracted Eq. (2) shows a single weight γ_S and an unweighted dissimilar sum: that is
/// γ_D = 1, the default. No values are given in the paper; 1 is ours.
struct LrmlOptions {
    double gammaS = 1.0;
    double gammaD = 1.0;
};

/// Deep-LRML on a mini-batch. affinity: B x B, the kNN graph's affinities W restricted to the
/// batch rows and columns (W[idx][:, idx] of the partition's graph, not its Laplacian).
/// Sums over the batch's pairs as the paper writes them (no mean); unbounded below in z and M
/// unless the trainer keeps log|M| ≥ 0 and the embeddings bounded (l2-normalised).
/// Throws std::invalid_argument on shape mismatches, bad labels or negative weights γ.
BaselineLoss lrmlLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& labels,
                      const torch::Tensor& affinity, const LrmlOptions& options = {});

/// Deep-LRML (and Deep-ISDML: the same loss on density-adapted affinities) as a loss that owns
/// M (d x d, parameter "metric", the identity at start: feasible, log|I| = 0). Registered as
/// "lrml"; recipes lrml (affinity heat) and isdml (affinity density).
class LrmlLoss final : public MetricOwner<PairAffinityLoss> {
public:
    /// gamma-s, gamma-d (defaults 1: the paper gives no values), metric-lr-scale (1).
    static sdk::OptionSchema schema();
    explicit LrmlLoss(const sdk::LossSpec& spec);

    sdk::LossNeeds needs() const override { return {.labels = true}; }
    using PairAffinityLoss::forward;
    /// affinity: B x B, W[idx][:, idx] of the partition's kNN graph (see lrmlLoss()).
    /// terms = similar + dissimilar pairs, activeTerms = those with δ² > 0.
    sdk::LossOutput forward(const sdk::LossContext& context, const torch::Tensor& affinity) override;
    /// Step 3 of Algorithm 1: M ← projectLrmlFeasible(M - lr ∇_M), then clears the gradient.
    void stepMetric(double lr) override;

    const LrmlOptions& options() const { return m_options; }

private:
    LrmlOptions m_options;
};

/// The registry's entry "lrml".
sdk::LossInfo lrmlLossInfo();

} // namespace setscope::losses
