// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::losses {

/// Pairwise (contrastive) loss of seed 002:
///   L(r0, r1, y) = y ||r0 - r1|| + (1 - y) max(0, m - ||r0 - r1||)
/// over every pair i < j of labelled items in the batch (y = 1 for the same label),
/// averaged over pairs. Default margin m = 1.0 (on unit-norm embeddings distances lie in [0, 2]).
class ContrastiveLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultMargin = 1.0;
    explicit ContrastiveLoss(double margin = kDefaultMargin);
    sdk::LossNeeds needs() const override { return {.labels = true}; }
    sdk::LossOutput forward(const sdk::LossContext& context) override { return compute(context.embeddings, context.labels); }
    /// The loss of `embeddings` (B x E) under `labels` (B int64, -1 = ignored).
    sdk::LossOutput compute(const torch::Tensor& embeddings, const torch::Tensor& labels);
    double margin() const { return m_margin; }

private:
    double m_margin;
};

/// The registry's entry "contrastive": name, one line of doc, schema and factory.
sdk::LossInfo contrastiveLossInfo();

} // namespace setscope::losses
