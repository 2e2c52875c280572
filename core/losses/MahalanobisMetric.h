// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// The Mahalanobis metric M that seed 004's deep baselines learn (SeraphLoss, LrmlLoss,
// ApPriorLoss): distances under M, the Laplacian term, the projections onto M's feasible sets,
// the checks and pair masks the three share, and PairAffinityLoss, the base of the losses that
// read the batch's graph affinities.

#include <setscope/sdk/Model.h>

#include <torch/types.h>

#include <cstdint>
#include <string>
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
namespace setscope::losses {

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

/// What the losses owning M share (their checks name the caller, `who`, in every message).
namespace detail {

/// "B x d", "a scalar" or "undefined".
std::string shapeOf(const torch::Tensor& t);
/// z floating B x d, M d x d; else std::invalid_argument.
void checkEmbeddingsAndMetric(const char* who, const torch::Tensor& z, const torch::Tensor& m);
/// labels: B integers ≥ -1; else std::invalid_argument.
void checkLabels(const char* who, const torch::Tensor& z, const torch::Tensor& labels);
/// affinity: B x B; else std::invalid_argument.
void checkAffinity(const char* who, const torch::Tensor& z, const torch::Tensor& w);
/// v finite and ≥ 0; else std::invalid_argument naming `name`.
void checkNonNegative(const char* who, const char* name, double v);

/// Unordered pairs (i < j) by kind, as B x B masks in `dtype`.
struct PairMasks {
    torch::Tensor similar, dissimilar, unlabelled;
    BaselinePairCounts counts;
};
PairMasks pairMasks(const torch::Tensor& labels, torch::Dtype dtype);

/// The identity, d x d float32: where M starts (feasible for every baseline). d ≥ 1.
torch::Tensor initialMetric(const char* who, std::int64_t d);
/// M ← project(M - lr ∇_M), then clears the gradient; nothing when M has no gradient.
void projectedStep(torch::Tensor& metric, double lr, torch::Tensor (*project)(const torch::Tensor&));

} // namespace detail

/// What a loss that owns a Mahalanobis metric M shares (SeraphLoss, LrmlLoss, ApPriorLoss; Base
/// is sdk::MetricLoss or PairAffinityLoss): M is the parameter "metric" (saved in checkpoints,
/// moved with to(device)), left out of the network's optimizer and stepped by the loss itself
/// in afterBackward(lr) with lr × metric-lr-scale (Algorithm 1 step 3, before the optimizer's
/// step 4); the model is scored and used as z M^1/2 (metricSquareRoot).
template <class Base>
class MetricOwner : public Base {
public:
    std::vector<torch::Tensor> selfUpdatedParameters() override { return {m_metric}; }
    void afterBackward(double learningRate) override { stepMetric(learningRate * m_lrScale); }
    torch::Tensor embeddingProjection() const override { return metricSquareRoot(m_metric.detach()); }
    /// Step 3 of Algorithm 1: M from its gradient, kept in the loss's feasible set; then the
    /// gradient cleared. Nothing when M has no gradient.
    virtual void stepMetric(double lr) = 0;

    torch::Tensor& metric() { return m_metric; }

protected:
    /// Registers M (the d x d identity: feasible for every baseline); `who` names the loss in
    /// the error for d < 1.
    void ownMetric(const char* who, std::int64_t d, double lrScale)
    {
        m_lrScale = lrScale;
        m_metric = this->register_parameter("metric", detail::initialMetric(who, d));
    }

    double m_lrScale = 1.0;
    torch::Tensor m_metric;
};

} // namespace setscope::losses
