// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::losses {

/// Triplet loss on the cosine distance, seed 002 ("Video Processing", Wang & Gupta 2015):
///   D(x1, x2) = 1 - f(x1)ᵀf(x2) / (|f(x1)| |f(x2)|),
///   L(x, x⁺, x⁻) = max(0, D(x, x⁺) - D(x, x⁻) + M),  M = 0.5 as in the paper;
/// the paper's "+ weight decay" is the optimizer's (weight-decay option), not this loss's.
/// positive = label: every anchor-positive pair (a, p) of the labelled batch (same label,
///   a != p); positive = augmented: each set's augmented view is its positive and every other
///   set of the batch a candidate negative (no labels; seed 002's tracked patches).
/// mining = semi-hard: for each (a, p) the negative of Mining's semi-hard rule on D (the
///   closest one farther than the positive, else the farthest); mining = all: every negative,
///   one term each (seed 002 takes a random patch; all negatives is its expectation).
/// L = mean over the terms.
class CosineTripletLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultMargin = 0.5;
    enum class Positive { Label, Augmented };
    enum class Mining { SemiHard, All };
    /// margin, positive, mining.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(). Throws std::invalid_argument for a margin < 0.
    explicit CosineTripletLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override
    {
        return {.labels = m_positive == Positive::Label, .augmentedView = m_positive == Positive::Augmented};
    }
    /// Reads embeddings (B x E) and labels (B int64, -1 = ignored) or augmented (B x E).
    /// terms = triplets. Throws std::invalid_argument for a missing or misshapen tensor.
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    /// Cosine distances 1 - cos between the rows of x (A x E) and y (N x E) -> A x N,
    /// differentiable (rows normalised with eps 1e-12).
    static torch::Tensor cosineDistances(const torch::Tensor& x, const torch::Tensor& y);
    double margin() const { return m_margin; }

private:
    double m_margin;
    Positive m_positive;
    Mining m_mining;
};

/// The registry's entry "cosine-triplet": name, one line of doc, schema and factory.
sdk::LossInfo cosineTripletLossInfo();

} // namespace setscope::losses
