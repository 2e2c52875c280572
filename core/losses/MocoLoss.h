// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>

namespace setscope::losses {

/// MoCo's InfoNCE with a queue of negative keys (He et al. 2020; seed 002, "MoCo"): with the
/// query q_i = normalize(embeddings_i), its key k_i⁺ = normalize(augmented_i), detached, and
/// the queued keys k_1..k_K (unit rows),
///   ℓ_i = -log( exp(q_iᵀk_i⁺ / τ) / (exp(q_iᵀk_i⁺ / τ) + Σ_j exp(q_iᵀk_j / τ)) ),  L = mean_i ℓ_i.
/// After the loss is computed (in training mode only), the batch's keys enter the queue and
/// the oldest leave it (FIFO, capacity K); until the queue has filled, only the keys queued
/// so far are negatives (none at the first step: ℓ = 0). The queue is a registered buffer
/// ("queue", K x E, with "queue_next" and "queue_filled"), so it moves with to(device) and
/// is saved in checkpoints.
///
/// What MoCo proper adds, and this loss cannot: the keys come from a *momentum key encoder*,
/// an exponential moving average θ_k <- m θ_k + (1 - m) θ_q (m = 0.999) of the query
/// encoder, never back-propagated. A loss sees embeddings only, so without trainer support
/// the keys are the same encoder's embedding of the augmented view, detached (no gradient
/// through the keys, as in MoCo, but no momentum: older queue entries come from older
/// weights). The trainer should keep an EMA copy of the encoder, encode the augmented view
/// with it under no-grad and put that in LossContext::augmented for this loss.
class MocoLoss final : public sdk::MetricLoss {
public:
    static constexpr std::int64_t kDefaultQueue = 4096;
    static constexpr double kDefaultTemperature = 0.07;
    /// queue, temperature.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(); spec.embeddingDim >= 1 (the keys' width).
    /// Throws std::invalid_argument for a queue < 1, τ <= 0 or no embedding dimension.
    explicit MocoLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override { return {.augmentedView = true}; }
    /// Reads embeddings (queries) and augmented (keys), both B x E. terms = B queries.
    /// Throws std::invalid_argument when augmented is missing or of another shape.
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    /// Appends keys (B x E, unit rows expected) to the queue, dropping the oldest beyond
    /// capacity (of a batch larger than the queue only its last `capacity` rows stay).
    void enqueue(const torch::Tensor& keys);
    /// The queued keys, oldest first: filled x E on the queue's device (a copy).
    torch::Tensor queuedKeys() const;
    std::int64_t capacity() const { return m_capacity; }
    std::int64_t filled() const;
    double temperature() const { return m_temperature; }

private:
    std::int64_t m_capacity;
    double m_temperature;
    torch::Tensor m_queue;  ///< K x E float32: ring buffer of keys
    torch::Tensor m_next;   ///< int64 scalar: the slot the next key goes to
    torch::Tensor m_filled; ///< int64 scalar: how many slots hold a key
};

} // namespace setscope::losses
