// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/nn/modules/linear.h>

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::losses {

/// The class-uniformity classifier loss of seed 003 §3.1 (weak metric learning): a linear
/// classifier E -> C on the embedding, where C ("classes") is the guessed number of fine
/// classes and the run's supervising label set has K = LossSpec::numClasses coarse classes,
/// C >= K. Coarse class k owns the contiguous outputs [start_k, start_k + size_k) (the
/// "groups" option); its probability is the sum of the C-way softmax over its group, and
///   L_base = mean over the labelled rows of  -log Σ_{c in G(y)} softmax(f)_c
///          = logsumexp_c f_c - logsumexp_{c in G(y)} f_c.
/// With p̄ the batch mean of the C-way softmax (every row, labelled or not),
///   kl:        L = L_base + λ Σ_c p̄_c (log p̄_c - log 1/C)        (Eq. 1-2, KL(p̄ ‖ U_C))
///   threshold: L = L_base + λ Σ_c max(p̄_c - τ, 0)                 (§3.5, soft shares, see below)
///   l2:        L = L_base + λ (1/N) Σ_j Σ_c f_c(x_j)²              (§3.5, on the logits)
/// §3.5 writes the threshold on n_c, the number of argmax predictions of class c: a count
/// has no gradient, so the expected share p̄_c stands for n_c / Σ n. §3.5's L2 penalty has no
/// weight; λ = 1 is its form.
/// confidence β > 0 (not in seed 003; default 0) adds β (1/N) Σ_n H(softmax(f(x_n))), the mean
/// per-row entropy. KL(p̄ ‖ U) alone is also minimised by rows that spread their mass evenly
/// over their group, which splits nothing; with the entropy term the objective is the
/// information-maximising clustering loss (λ = β: λ (log C - I(x; c))) and every row must
/// pick one output (docs/LOSSES.md has the measurements).
/// The classifier is a registered submodule ("classifier"): trained with the encoder, moved
/// with to(device), saved in checkpoints.
class UniformityLoss final : public sdk::MetricLoss {
public:
    enum class Penalty { Kl, Threshold, L2 };
    static constexpr double kDefaultLambda = 1.0;
    static constexpr double kDefaultTau = 0.2;
    /// classes, groups, lambda, penalty, tau, confidence.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(); spec.numClasses >= 1 (the coarse classes),
    /// spec.embeddingDim >= 1; classes = 0 means 2 * numClasses. Throws std::invalid_argument
    /// when C < numClasses or the groups do not parse, are not positive, do not number one
    /// per coarse class or do not sum to C. The classifier starts from LibTorch's default
    /// initialisation (its default generator).
    explicit UniformityLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override { return {.labels = true}; }
    /// Reads embeddings (B x E) and labels (B int64, -1 = unlabelled: no cross-entropy term,
    /// but the row counts in p̄). terms = labelled rows. Throws std::invalid_argument for a
    /// label outside [-1, numClasses) or misshapen tensors.
    sdk::LossOutput forward(const sdk::LossContext& context) override;

    /// The C-way softmax of the classifier on `embeddings` (B x E) -> B x C, differentiable;
    /// its argmax is the "discovered fine class", which belongs to coarse class
    /// coarseOf(argmax).
    torch::Tensor fineProbabilities(const torch::Tensor& embeddings);
    /// The classifier's logits f (B x C), differentiable.
    torch::Tensor logits(const torch::Tensor& embeddings);
    /// The penalty term alone (without λ) for B x C logits.
    torch::Tensor penaltyOf(const torch::Tensor& logits) const;
    /// The mean per-row entropy of softmax(logits) (B x C), the confidence term without β.
    static torch::Tensor meanEntropy(const torch::Tensor& logits);
    /// The grouped cross-entropy per row (B) for logits (B x C) and coarse labels (B, all >= 0).
    torch::Tensor groupedCrossEntropy(const torch::Tensor& logits, const torch::Tensor& labels) const;

    std::int64_t numClasses() const { return m_numCoarse; }
    std::int64_t fineClasses() const { return m_fine; }
    /// Group sizes, one per coarse class, summing to fineClasses().
    const std::vector<std::int64_t>& groupSizes() const { return m_groups; }
    /// The coarse class that owns output c (0 <= c < fineClasses()).
    std::int64_t coarseOf(std::int64_t c) const;
    double lambda() const { return m_lambda; }
    double tau() const { return m_tau; }
    double confidence() const { return m_confidence; }
    Penalty penalty() const { return m_penalty; }
    const torch::nn::Linear& classifier() const { return m_classifier; }

    /// Group sizes from the "groups" text: "" = C split as equally as possible, the remainder
    /// going one each to the first groups (C = 5, K = 2 -> 3,2); else a comma list of K
    /// positive integers summing to C. Throws std::invalid_argument with the reason.
    static std::vector<std::int64_t> parseGroups(const std::string& text, std::int64_t coarse, std::int64_t fine);

private:
    std::int64_t m_numCoarse;
    std::int64_t m_fine;
    std::vector<std::int64_t> m_groups;
    double m_lambda;
    double m_tau;
    double m_confidence;
    Penalty m_penalty;
    torch::Tensor m_groupMask; ///< K x C bool, on the CPU: row k marks G(k)
    torch::nn::Linear m_classifier{nullptr};
};

/// The registry's entry "uniformity": name, one line of doc, schema and factory.
sdk::LossInfo uniformityLossInfo();

} // namespace setscope::losses
