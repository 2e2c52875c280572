// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::losses {

/// Contrastive loss with a t-SNE locality penalty, seed 003 §4.2-4.3 (Algorithm 2):
///   L = 1/|pairs| Σ_{i<j} [ Y_ij d_ij² + (1 - Y_ij) max(0, γ - d_ij²) ]  +  α KL(P ‖ Q)
/// over the labelled pairs of the batch (Y_ij = 1 for the same coarse label; d the Euclidean
/// distance of the embeddings). This is Eq. (3) on squared distances with the margin on d²,
/// which differs from ContrastiveLoss (seed 002: d and max(0, m - d)). Eq. (4) adds α f(·)
/// per pair; here the penalty is computed once per batch and added to the pairs' mean.
/// P is built from the input space over all B rows (labelled or not):
///   p_j|i = exp(-|x_i - x_j|² / 2σ_i²) / Σ_{k≠i} exp(-|x_i - x_k|² / 2σ_i²),
/// σ_i by the perplexity search of t-SNE (util::calibratePerplexityRow), and
///   P_ij = (p_j|i + p_i|j) / 2B;
/// Q from the embeddings with a fixed-width Gaussian (not t-SNE's Student-t, as the paper
/// writes it):  Q_ij = exp(-|y_i - y_j|²) / Σ_{k≠l} exp(-|y_k - y_l|²);
/// KL(P ‖ Q) = Σ_{i≠j} P_ij log(P_ij / Q_ij). P is a constant (no gradient).
/// The input space: the batch's sets (LossContext::sets) reduced to their weighted mean
/// element Σ_s w_s x_s / Σ_s w_s. A vector or image dataset is a set of one element of
/// weight 1 per item, so that is the (flattened) vector itself; for real sets (documents,
/// point clouds) it is the set's mean, a choice of setscope (the paper works with vectors).
/// When an augmentation replaces the input, the sets are what the encoder saw.
class LocalityContrastiveLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultMargin = 1.0;
    static constexpr double kDefaultAlpha = 1.0;
    static constexpr double kDefaultPerplexity = 30.0;
    /// margin, alpha, perplexity.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(). Throws std::invalid_argument for a margin
    /// <= 0, α < 0 or perplexity < 1.
    explicit LocalityContrastiveLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override { return {.labels = true}; }
    /// Reads embeddings (B x E), labels (B int64, -1 = no contrastive pair) and, when α > 0,
    /// sets (B sets). terms = labelled pairs. Throws std::invalid_argument when the sets are
    /// missing or do not number B.
    sdk::LossOutput forward(const sdk::LossContext& context) override;

    /// The weighted mean element of each set: B x D float64 on the batch's device.
    static torch::Tensor setMeans(const sdk::SetBatch& sets);
    /// The perplexity used for a batch of n points: min(perplexity, max(1, (n - 1) / 3)),
    /// the cap of layout::Tsne (a row has n - 1 neighbours).
    static double effectivePerplexity(double perplexity, std::int64_t n);
    /// Conditional affinities p_j|i (row i, diagonal 0, each row summing to 1) of the rows of
    /// x (n x D, any device and floating dtype) at effectivePerplexity(perplexity, n):
    /// n x n float64 on the CPU. n < 2 gives zeros.
    static torch::Tensor conditionalAffinities(const torch::Tensor& x, double perplexity);
    /// P_ij = (p_j|i + p_i|j) / 2n from conditionalAffinities(): n x n float64, CPU, sums to 1.
    static torch::Tensor jointAffinities(const torch::Tensor& x, double perplexity);
    /// KL(P ‖ Q) for a constant P (n x n, symmetric, zero diagonal, summing to 1) and the
    /// embeddings y (n x E, differentiable): a scalar in y's dtype on y's device.
    static torch::Tensor klDivergence(const torch::Tensor& p, const torch::Tensor& y);
    /// The contrastive part alone: mean of Eq. (3) over the labelled pairs i < j of
    /// `embeddings` (B x E) under `labels` (B int64, -1 = ignored); terms = pairs.
    sdk::LossOutput contrastive(const torch::Tensor& embeddings, const torch::Tensor& labels) const;

    double margin() const { return m_margin; }
    double alpha() const { return m_alpha; }
    double perplexity() const { return m_perplexity; }

private:
    double m_margin;
    double m_alpha;
    double m_perplexity;
};

/// The registry's entry "locality-contrastive": name, one line of doc, schema and factory.
sdk::LossInfo localityContrastiveLossInfo();

} // namespace setscope::losses
