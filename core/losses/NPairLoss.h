// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::losses {

/// Multi-class N-pair loss (Sohn 2016) as seed 002 ("N Pair Loss") writes it: for pairs
/// (x_i, x_i⁺) of N different classes, with f the embeddings,
///   L_i = -log( exp(fᵢᵀfᵢ⁺) / (exp(fᵢᵀfᵢ⁺) + Σ_{j≠i} exp(fᵢᵀfⱼ⁺)) ) = log(1 + Σ_{j≠i} exp(fᵢᵀfⱼ⁺ - fᵢᵀfᵢ⁺)),
/// the other pairs' positives as the negatives; L = mean over the pairs that have a negative.
/// positive = label: the pairs come from the labelled batch: within each class, in batch
///   order, rows 1 and 2 form a pair, rows 3 and 4 the next, ... (an odd last row is unused);
///   a pair's negatives are the positives of the pairs of *other* classes, so with one pair
///   per class (a class-balanced batch of two per class, the paper's construction) this is
///   exactly the formula above.
/// positive = augmented: xᵢ⁺ is the augmented view of set i; every other set's view is a
///   negative (no labels).
/// l2 > 0 adds the N-pair paper's regulariser on the embedding norms, which seed 002 does not
/// write: l2 · (1/N) Σᵢ (|fᵢ|² + |fᵢ⁺|²) over the N pairs. Raw inner products, as the paper:
/// the encoder's own normalisation (or not) decides their scale.
class NPairLoss final : public sdk::MetricLoss {
public:
    enum class Positive { Label, Augmented };
    /// positive, l2.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(). Throws std::invalid_argument for l2 < 0.
    explicit NPairLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override
    {
        return {.labels = m_positive == Positive::Label, .augmentedView = m_positive == Positive::Augmented};
    }
    /// Reads embeddings (B x E) and labels (B int64, -1 = unused) or augmented (B x E).
    /// terms = pairs with at least one negative. Throws std::invalid_argument for a missing or
    /// misshapen tensor.
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    /// The loss of explicit pairs: anchors and positives (N x E each), pairLabels (N int64:
    /// pairs with equal labels are not each other's negatives; pass 0..N-1 for "all others").
    sdk::LossOutput compute(const torch::Tensor& anchors, const torch::Tensor& positives,
                            const torch::Tensor& pairLabels) const;
    Positive positive() const { return m_positive; }
    double l2() const { return m_l2; }

private:
    Positive m_positive;
    double m_l2;
};

/// The registry's entry "npair": name, one line of doc, schema and factory.
sdk::LossInfo npairLossInfo();

} // namespace setscope::losses
