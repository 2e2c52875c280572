// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>

#include <torch/types.h>

#include <cstdint>

/// The stochastic deep extensions of the classical SSDML baselines of seed 004 ("Extending
/// Classical SSDML to Deep SSDML", Algorithm 1): each loss is evaluated on one mini-batch drawn
/// from a partition X_L ∪ X_U^(p), differentiable in the embeddings z and in the metric M.
///
/// The baselines learn the Mahalanobis matrix M (d x d, M ⪰ 0) itself, not the factor L of the
/// paper's own method: δ²_M(z_i, z_j) = (z_i - z_j)ᵀ M (z_i - z_j). The constraints on M
/// (M ⪰ 0, and log|M| ≥ 0 for LRML) are not part of the losses; Algorithm 1 step 3 keeps them
/// with projectPsd() / projectLrmlFeasible() after each step on M.
///
/// Shapes and devices, for every function here: z is B x d (floating, differentiable); M is
/// d x d (cast to z's dtype); labels is B int64 with -1 for unlabelled rows and any value ≥ 0 a
/// class (other negatives are refused); affinity is B x B. All tensors on one device; the
/// results live there. Pairs are unordered (i < j) pairs of distinct batch rows.
///
/// Only LRML (Eq. 2) and SERAPH (Eq. 1) are here: seed 004 states these two losses. For ISDML,
/// APLLR and APIT it describes the methods in words only (docs/SSDML.md, "Deep baselines").
namespace setscope::semi {

/// δ²_M(z_i, z_j) for every pair of rows: B x B, zero diagonal, symmetric. Computed from the
/// Gram form q = z M zᵀ as q_ii + q_jj - q_ij - q_ji (no B x B x d difference tensor).
/// Throws std::invalid_argument when z is not B x d or M not d x d.
torch::Tensor pairwiseMetricDistances(const torch::Tensor& z, const torch::Tensor& m);

/// The Laplacian regulariser of seed 004 in the form the paper gives below Eq. (2):
/// Tr(M Z 𝓛 Zᵀ) = ½ Σ_{i,j} W_ij δ²_M(z_i, z_j), over all B x B entries of W (labelled and
/// unlabelled rows alike). For a symmetric W this is the trace with 𝓛 = D - W, D_ii = Σ_j W_ij;
/// a non-symmetric W acts as its symmetric part. A scalar.
/// Throws std::invalid_argument on shape mismatches.
torch::Tensor laplacianRegulariser(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& affinity);

/// Pairs of the batch by kind (unordered, i < j).
struct BaselinePairCounts {
    std::int64_t similar = 0;    ///< both labelled, same class
    std::int64_t dissimilar = 0; ///< both labelled, different classes
    std::int64_t unlabelled = 0; ///< both unlabelled (SERAPH's second term)
};

/// A baseline's loss on one mini-batch and its parts (scalars on z's device; the parts are
/// differentiable too, for logging call .item()). loss = labelled + unlabelled + regulariser.
struct BaselineLoss {
    torch::Tensor loss;
    torch::Tensor labelled;    ///< the terms over labelled pairs
    torch::Tensor unlabelled;  ///< LRML: the Laplacian term; SERAPH: the entropy term
    torch::Tensor regulariser; ///< SERAPH: λ Tr(M); LRML: 0 (its log|M| ≥ 0 is a constraint)
    BaselinePairCounts pairs;
};

/// LRML (Hoi, Liu and Chang 2010) as seed 004 Eq. (2) writes it:
///   γ_S Σ_{similar} δ²_M - γ_D Σ_{dissimilar} δ²_M + Tr(M Z 𝓛 Zᵀ),  M ⪰ 0, log|M| ≥ 0.
/// The extracted Eq. (2) shows a single weight γ_S and an unweighted dissimilar sum: that is
/// γ_D = 1, the default. No values are given in the paper; 1 is ours.
struct LrmlOptions {
    double gammaS = 1.0;
    double gammaD = 1.0;
};

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

/// Deep-LRML on a mini-batch. affinity: B x B, the kNN graph's affinities W restricted to the
/// batch rows and columns (W[idx][:, idx] of the partition's graph, not its Laplacian).
/// Sums over the batch's pairs as the paper writes them (no mean); unbounded below in z and M
/// unless the trainer keeps log|M| ≥ 0 and the embeddings bounded (l2-normalised).
/// Throws std::invalid_argument on shape mismatches, bad labels or negative weights γ.
BaselineLoss lrmlLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& labels,
                      const torch::Tensor& affinity, const LrmlOptions& options = {});

/// Deep-SERAPH on a mini-batch (no graph). Labelled pairs: both rows labelled; unlabelled
/// pairs: both rows unlabelled (Eq. 1's "z_i, z_j ∈ X_U"); a labelled-unlabelled pair enters
/// neither sum. Sums over pairs as the paper writes them; λ Tr(M) once per batch.
/// -log p = softplus(y (δ² - η)), the entropy by softplus as well (no overflow).
/// Throws std::invalid_argument on shape mismatches, bad labels or η, μ, λ < 0.
BaselineLoss seraphLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& labels,
                        const SeraphOptions& options = {});

/// The nearest (Frobenius) symmetric positive semi-definite matrix to M: sym(M) with its
/// negative eigenvalues set to 0. d x d in, d x d out; no autograd history.
torch::Tensor projectPsd(const torch::Tensor& m);

/// The nearest (Frobenius) matrix to M in LRML's feasible set {M ⪰ 0, log|M| ≥ 0}: in the
/// eigenbasis of sym(M) with eigenvalues μ_i, the clipped max(μ_i, 0) when their log-product
/// is ≥ 0, else λ_i = (μ_i + sqrt(μ_i² + 4ν)) / 2 with ν > 0 found by bisection so that
/// Σ log λ_i = 0 (the KKT point of the convex projection). No autograd history.
torch::Tensor projectLrmlFeasible(const torch::Tensor& m);

/// Deep-SERAPH as an sdk::MetricLoss that owns M (d x d, parameter "metric", the identity at
/// start; saved in checkpoints, moved with to(device)). Reads embeddings and labels from the
/// LossContext: any batch of rows works, with labelled and unlabelled rows mixed.
///
/// Algorithm 1: M must be left out of the network's optimizer; the trainer calls
/// stepMetric(lr) after backward (step 3, a projected step that keeps M ⪰ 0). Not registered
/// in plugins/builtin for that reason (docs/SSDML.md, "Deep baselines").
class SeraphLoss final : public sdk::MetricLoss {
public:
    /// eta, mu, lambda (defaults 1: the paper gives no values).
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(); spec.embeddingDim is d. Throws
    /// std::invalid_argument for d < 1.
    explicit SeraphLoss(const sdk::LossSpec& spec);

    sdk::LossNeeds needs() const override { return {}; }
    /// terms = labelled + unlabelled pairs of the batch, activeTerms = the same (every SERAPH
    /// term is positive). Throws std::invalid_argument as seraphLoss().
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    /// Step 3 of Algorithm 1: M ← projectPsd(M - lr ∇_M), then clears the gradient. No-op when
    /// M has no gradient.
    void stepMetric(double lr);

    torch::Tensor& metric() { return m_metric; }
    const SeraphOptions& options() const { return m_options; }

private:
    SeraphOptions m_options;
    torch::Tensor m_metric;
};

/// Deep-LRML as an sdk::MetricLoss that owns M (d x d, parameter "metric", the identity at
/// start: feasible, log|I| = 0). LossContext has no affinity, so the loss is computed by the
/// two-argument forward(); the one-argument override throws std::logic_error rather than
/// silently drop the Laplacian term. Not registered in plugins/builtin (docs/SSDML.md).
class LrmlLoss final : public sdk::MetricLoss {
public:
    /// gamma-s, gamma-d (defaults 1: the paper gives no values).
    static sdk::OptionSchema schema();
    explicit LrmlLoss(const sdk::LossSpec& spec);

    sdk::LossNeeds needs() const override { return {}; }
    /// Throws std::logic_error: LRML needs the batch's affinity (use the overload below).
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    /// affinity: B x B, W[idx][:, idx] of the partition's kNN graph (see lrmlLoss()).
    /// terms = similar + dissimilar pairs, activeTerms = those with δ² > 0.
    sdk::LossOutput forward(const sdk::LossContext& context, const torch::Tensor& affinity);
    /// Step 3 of Algorithm 1: M ← projectLrmlFeasible(M - lr ∇_M), then clears the gradient.
    void stepMetric(double lr);

    torch::Tensor& metric() { return m_metric; }
    const LrmlOptions& options() const { return m_options; }

private:
    LrmlOptions m_options;
    torch::Tensor m_metric;
};

} // namespace setscope::semi
