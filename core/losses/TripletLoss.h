// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::losses {

/// Triplet loss with semi-hard negative mining, seed 000 Eq. (1):
///   L = 1/n̂ Σ [ ||f(a) - f(p)||² - ||f(a) - f(n)||² + α ]_+
/// over every anchor-positive pair (a, p) in the batch, n its semi-hard negative
/// (semiHardNegatives()). Default margin α = 0.1 (seed 000 §VI-A).
class TripletLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultMargin = 0.1;
    explicit TripletLoss(double margin = kDefaultMargin);
    sdk::LossNeeds needs() const override { return {.labels = true}; }
    sdk::LossOutput forward(const sdk::LossContext& context) override { return compute(context.embeddings, context.labels); }
    /// The loss of `embeddings` (B x E) under `labels` (B int64, -1 = ignored).
    sdk::LossOutput compute(const torch::Tensor& embeddings, const torch::Tensor& labels);
    double margin() const { return m_margin; }

private:
    double m_margin;
};

/// The registry's entry "triplet": name, one line of doc, schema and factory.
sdk::LossInfo tripletLossInfo();

} // namespace setscope::losses
