// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/types.h>

#include <cstdint>
#include <vector>

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
/// LRML (Eq. 2) and SERAPH (Eq. 1) as seed 004 states them; ISDML is LRML on density-adapted
/// affinities (the sampler's); APLLR / APIT (apPriorLoss) are our reading of the words of seed
/// 004 and of Dutta and Sekhar 2018 (docs/SSDML.md, "Deep baselines").
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

/// The symmetric square root P = M^1/2 of sym(M) with its negative eigenvalues set to 0, so
/// that δ²_M(a, b) = ‖(a - b) P‖² for row vectors: what the baselines' losses give as their
/// embeddingProjection() (the model is z P, the space M measures). No autograd history.
torch::Tensor metricSquareRoot(const torch::Tensor& m);

/// The nearest (Frobenius) matrix to M in LRML's feasible set {M ⪰ 0, log|M| ≥ 0}: in the
/// eigenbasis of sym(M) with eigenvalues μ_i, the clipped max(μ_i, 0) when their log-product
/// is ≥ 0, else λ_i = (μ_i + sqrt(μ_i² + 4ν)) / 2 with ν > 0 found by bisection so that
/// Σ log λ_i = 0 (the KKT point of the convex projection). No autograd history.
torch::Tensor projectLrmlFeasible(const torch::Tensor& m);

/// A loss that weighs the batch's pairs by a graph's affinities W (B x B), which the plugin
/// SDK's LossContext does not carry: the trainer takes them from a sampler with the core
/// capability train::PairAffinitySampler ("ssdml-partition") and calls forward(context,
/// affinity). forward(context) alone throws std::logic_error rather than drop the graph term.
/// (A core interface, not an SDK field: docs/SSDML.md, "Deep baselines".)
class PairAffinityLoss : public sdk::MetricLoss {
public:
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    /// affinity: B x B, W[idx][:, idx] of the partition's graph (not its Laplacian).
    virtual sdk::LossOutput forward(const sdk::LossContext& context, const torch::Tensor& affinity) = 0;
};

/// Deep-SERAPH as an sdk::MetricLoss that owns M (d x d, parameter "metric", the identity at
/// start; saved in checkpoints, moved with to(device)). Reads embeddings and labels from the
/// LossContext: any batch of rows works, with labelled and unlabelled rows mixed. Registered
/// as "seraph" (recipe seraph, sampler ssdml-partition with affinity none).
///
/// Algorithm 1: M is a self-updated parameter (left out of the network's optimizer);
/// afterBackward(lr) calls stepMetric(lr × metric-lr-scale) (step 3, a projected step that
/// keeps M ⪰ 0) before the optimizer steps the network (step 4).
class SeraphLoss final : public sdk::MetricLoss {
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
    std::vector<torch::Tensor> selfUpdatedParameters() override { return {m_metric}; }
    void afterBackward(double learningRate) override { stepMetric(learningRate * m_lrScale); }
    /// M^1/2 (metricSquareRoot): the model is scored and used as z M^1/2.
    torch::Tensor embeddingProjection() const override { return metricSquareRoot(m_metric.detach()); }
    /// Step 3 of Algorithm 1: M ← projectPsd(M - lr ∇_M), then clears the gradient. No-op when
    /// M has no gradient.
    void stepMetric(double lr);

    torch::Tensor& metric() { return m_metric; }
    const SeraphOptions& options() const { return m_options; }

private:
    SeraphOptions m_options;
    double m_lrScale = 1.0;
    torch::Tensor m_metric;
};

/// Deep-LRML (and Deep-ISDML: the same loss on density-adapted affinities) as a loss that owns
/// M (d x d, parameter "metric", the identity at start: feasible, log|I| = 0). Registered as
/// "lrml"; recipes lrml (affinity heat) and isdml (affinity density).
class LrmlLoss final : public PairAffinityLoss {
public:
    /// gamma-s, gamma-d (defaults 1: the paper gives no values), metric-lr-scale (1).
    static sdk::OptionSchema schema();
    explicit LrmlLoss(const sdk::LossSpec& spec);

    sdk::LossNeeds needs() const override { return {.labels = true}; }
    using PairAffinityLoss::forward;
    /// affinity: B x B, W[idx][:, idx] of the partition's kNN graph (see lrmlLoss()).
    /// terms = similar + dissimilar pairs, activeTerms = those with δ² > 0.
    sdk::LossOutput forward(const sdk::LossContext& context, const torch::Tensor& affinity) override;
    std::vector<torch::Tensor> selfUpdatedParameters() override { return {m_metric}; }
    void afterBackward(double learningRate) override { stepMetric(learningRate * m_lrScale); }
    /// M^1/2 (metricSquareRoot): the model is scored and used as z M^1/2.
    torch::Tensor embeddingProjection() const override { return metricSquareRoot(m_metric.detach()); }
    /// Step 3 of Algorithm 1: M ← projectLrmlFeasible(M - lr ∇_M), then clears the gradient.
    void stepMetric(double lr);

    torch::Tensor& metric() { return m_metric; }
    const LrmlOptions& options() const { return m_options; }

private:
    LrmlOptions m_options;
    double m_lrScale = 1.0;
    torch::Tensor m_metric;
};

/// The prior metric of APLLR / APIT (core/semi/PriorMetrics.h).
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
class ApPriorLoss final : public PairAffinityLoss {
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
    std::vector<torch::Tensor> selfUpdatedParameters() override { return {m_metric}; }
    void afterBackward(double learningRate) override { stepMetric(learningRate * m_lrScale); }
    /// M^1/2 (metricSquareRoot): the model is scored and used as z M^1/2.
    torch::Tensor embeddingProjection() const override { return metricSquareRoot(m_metric.detach()); }
    void stepMetric(double lr);

    /// M0 of the labelled rows of (z, labels): d x d float64 on the CPU.
    torch::Tensor priorOf(const torch::Tensor& z, const torch::Tensor& labels) const;

    torch::Tensor& metric() { return m_metric; }
    const ApPriorOptions& options() const { return m_options; }

private:
    ApPriorOptions m_options;
    double m_lrScale = 1.0;
    torch::Tensor m_metric;
};

/// The registry's entries "seraph", "lrml" and "ap-prior".
sdk::LossInfo seraphLossInfo();
sdk::LossInfo lrmlLossInfo();
sdk::LossInfo apPriorLossInfo();

} // namespace setscope::semi
