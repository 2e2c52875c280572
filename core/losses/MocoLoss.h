// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::losses {

/// MoCo's InfoNCE with a queue of negative keys (He et al. 2020; seed 002, "MoCo"): with the
/// query q_i = normalize(embeddings_i), its key k_i⁺ = normalize(keys_i) (LossContext::keys, no
/// gradient) and the queued keys k_1..k_K (unit rows),
///   ℓ_i = -log( exp(q_iᵀk_i⁺ / τ) / (exp(q_iᵀk_i⁺ / τ) + Σ_j exp(q_iᵀk_j / τ)) ),  L = mean_i ℓ_i.
/// After the loss is computed (in training mode only), the batch's keys enter the queue and
/// the oldest leave it (FIFO, capacity K); until the queue has filled, only the keys queued
/// so far are negatives (none at the first step: ℓ = 0). The queue is a registered buffer
/// ("queue", K x E, with "queue_next" and "queue_filled"), so it moves with to(device) and
/// is saved in checkpoints.
///
/// The keys come from MoCo's momentum key encoder: the loss asks for them with
/// LossNeeds::momentumKeys, and the trainer encodes each set's augmented view with an
/// exponential moving average θ_k <- m θ_k + (1 - m) θ_q of the query encoder (option
/// "key-momentum" m, MoCo's 0.999). m = 0 makes the key encoder the query encoder itself: the keys
/// are then the query encoder's embeddings of the augmented view, detached (what this loss did
/// before the trainer had a key encoder).
class MocoLoss final : public sdk::MetricLoss {
public:
    static constexpr std::int64_t kDefaultQueue = 4096;
    static constexpr double kDefaultTemperature = 0.07;
    static constexpr double kDefaultMomentum = 0.999;
    /// queue, temperature, key-momentum.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(); spec.embeddingDim >= 1 (the keys' width).
    /// Throws std::invalid_argument for a queue < 1, τ <= 0, m outside [0, 1] or no embedding
    /// dimension.
    explicit MocoLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override { return {.momentumKeys = true, .keyMomentum = m_momentum}; }
    /// Reads embeddings (queries) and keys, both B x E. terms = B queries.
    /// Throws std::invalid_argument when keys are missing or of another shape.
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    /// Appends keys (B x E, unit rows expected) to the queue, dropping the oldest beyond
    /// capacity (of a batch larger than the queue only its last `capacity` rows stay).
    void enqueue(const torch::Tensor& keys);
    /// The queued keys, oldest first: filled x E on the queue's device (a copy).
    torch::Tensor queuedKeys() const;
    std::int64_t capacity() const { return m_capacity; }
    std::int64_t filled() const;
    double temperature() const { return m_temperature; }
    double momentum() const { return m_momentum; }

private:
    std::int64_t m_capacity;
    double m_temperature;
    double m_momentum;
    torch::Tensor m_queue;  ///< K x E float32: ring buffer of keys
    torch::Tensor m_next;   ///< int64 scalar: the slot the next key goes to
    torch::Tensor m_filled; ///< int64 scalar: how many slots hold a key
};

/// The registry's entry "moco": name, one line of doc, schema and factory.
sdk::LossInfo mocoLossInfo();

} // namespace setscope::losses
