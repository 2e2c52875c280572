// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/nn/modules/linear.h>

namespace setscope::losses {

/// Supervised cross-entropy through a linear classifier, the "+CE" baselines of seed 001
/// §6.3.2 / §7: logits = W f(x) + b (E -> numClasses), L = mean over the labelled rows of
/// -log softmax(logits)[y]; rows labelled -1 are ignored. A batch without a labelled row
/// gives a zero loss that keeps the graph, terms = 0.
/// The classifier is a registered submodule ("classifier"): trained with the encoder, moved
/// with to(device), saved in checkpoints.
class CrossEntropyLoss final : public sdk::MetricLoss {
public:
    /// No options.
    static sdk::OptionSchema schema();
    /// spec.numClasses >= 2 and spec.embeddingDim >= 1, else std::invalid_argument. The
    /// classifier starts from LibTorch's default initialisation (its default generator).
    explicit CrossEntropyLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override { return {.labels = true}; }
    /// Reads embeddings (B x E) and labels (B int64, -1 = unlabelled). terms = labelled rows.
    /// Throws std::invalid_argument for a label outside [-1, numClasses).
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    std::int64_t numClasses() const { return m_numClasses; }
    const torch::nn::Linear& classifier() const { return m_classifier; }

private:
    std::int64_t m_numClasses;
    torch::nn::Linear m_classifier{nullptr};
};

/// The registry's entry "cross-entropy": name, one line of doc, schema and factory.
sdk::LossInfo crossEntropyLossInfo();

} // namespace setscope::losses
