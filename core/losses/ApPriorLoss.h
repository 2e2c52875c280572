// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Deep-APLLR and Deep-APIT (seed 004; Dutta and Sekhar 2018): a loss that owns the metric M,
// stays close to a prior metric from the labelled rows and reads the batch's propagated
// affinities (docs/SSDML.md).

#include "core/losses/MahalanobisMetric.h"

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/types.h>

#include <vector>

namespace setscope::losses {

/// The prior metric of APLLR / APIT (core/losses/PriorMetrics.h).
enum class PriorKind { LogLikelihoodRatio, InformationTheoretic };

struct ApPriorOptions {
    PriorKind prior = PriorKind::LogLikelihoodRatio;
    double lambda = 1.0;  ///< weight of the Laplacian term
    double ridge = 1e-3;  ///< KISSME's covariance ridge
    double floor = 1e-3;  ///< relative eigenvalue floor of M0 and of M
    double itmlGamma = 1.0;
    int itmlSweeps = 3;
};

/// Deep-APLLR / Deep-APIT on a mini-batch (our reading of Dutta and Sekhar 2018, which seed
/// 004 describes in words: "first computes a prior metric using the labeled data ... the final
/// metric is learned using affinity propagation on unlabeled data while staying close to the
/// prior one"):
///   J = D_ld(M, M0) + λ ½ Σ_{i,j} W_ij δ²_M(z_i, z_j)
///   D_ld(M, M0) = tr(M M0⁻¹) - log det(M M0⁻¹) - d        (the LogDet divergence, ≥ 0, 0 iff M = M0)
/// with W the propagated affinities of the batch (B x B) and M0 given (d x d, positive
/// definite, no gradient). labelled = D_ld, unlabelled = the Laplacian term, regulariser = 0.
/// Throws std::invalid_argument on shape mismatches or λ < 0.
BaselineLoss apPriorLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& prior,
                         const torch::Tensor& affinity, double lambda);

/// Deep-APLLR (prior llr) and Deep-APIT (prior it) as a loss that owns M (the identity at
/// start) and computes M0 per batch from the batch's labelled rows (detached embeddings,
/// kissmePrior / itmlPrior). Registered as "ap-prior"; recipes apllr and apit (sampler
/// ssdml-partition with affinity propagated). Step 3: M ← clip(M - lr ∇_M J) with the
/// spectrum clipped from below at floor · λ_max (M stays positive definite, log det finite).
class ApPriorLoss final : public MetricOwner<PairAffinityLoss> {
public:
    /// prior (llr | it), lambda, ridge, floor, itml-gamma, itml-sweeps, metric-lr-scale.
    static sdk::OptionSchema schema();
    explicit ApPriorLoss(const sdk::LossSpec& spec);

    sdk::LossNeeds needs() const override { return {.labels = true}; }
    using PairAffinityLoss::forward;
    /// terms = the batch's labelled pairs + graph edges (W ≠ 0), activeTerms = the same.
    /// Throws std::invalid_argument when the batch's labelled rows give no prior (fewer than
    /// two, or for llr no similar or no dissimilar pair), std::runtime_error when KISSME's
    /// Σ_S⁻¹ - Σ_D⁻¹ has no positive eigenvalue (the run fails rather than guess a prior).
    sdk::LossOutput forward(const sdk::LossContext& context, const torch::Tensor& affinity) override;
    void stepMetric(double lr) override;

    /// M0 of the labelled rows of (z, labels): d x d float64 on the CPU.
    torch::Tensor priorOf(const torch::Tensor& z, const torch::Tensor& labels) const;

    const ApPriorOptions& options() const { return m_options; }

private:
    ApPriorOptions m_options;
};

/// The registry's entry "ap-prior".
sdk::LossInfo apPriorLossInfo();

} // namespace setscope::losses
