// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/nn/modules/linear.h>

namespace setscope::losses {

/// Exemplar (Dosovitskiy et al.; "Exemplar" of seed 001 §7.1): every item of the dataset is
/// its own class. A linear classifier E -> datasetSize (with bias) on the embeddings is
/// trained with cross-entropy against the item's dataset index (LossContext::items); with
/// use-augmented the augmented views are classified too (target: the index of the set they
/// were made from), and the mean runs over the 2B rows.
/// The classifier is a registered submodule ("classifier"): it is trained with the encoder,
/// moved with to(device) and saved in checkpoints.
class ExemplarLoss final : public sdk::MetricLoss {
public:
    /// use-augmented.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(); spec.embeddingDim >= 1, spec.datasetSize >= 2.
    /// Throws std::invalid_argument otherwise. The classifier starts from LibTorch's default
    /// initialisation (drawn from its default generator).
    explicit ExemplarLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override { return {.augmentedView = m_useAugmented}; }
    /// Reads embeddings (B x E), items (B int64) and, with use-augmented, augmented (B x E).
    /// terms = B or 2B rows. Throws std::invalid_argument for an item outside
    /// [0, datasetSize) or a missing / misshapen tensor.
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    bool useAugmented() const { return m_useAugmented; }
    std::int64_t datasetSize() const { return m_datasetSize; }
    /// The classifier (datasetSize x E weight, datasetSize bias).
    const torch::nn::Linear& classifier() const { return m_classifier; }

private:
    bool m_useAugmented;
    std::int64_t m_datasetSize;
    torch::nn::Linear m_classifier{nullptr};
};

/// The registry's entry "exemplar": name, one line of doc, schema and factory.
sdk::LossInfo exemplarLossInfo();

} // namespace setscope::losses
