// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>

#include <memory>

namespace setscope::train {

/// MoCo's momentum key encoder (He et al. 2020 §3.2; sdk::LossNeeds::momentumKeys): a second
/// copy θ_k of the query encoder θ_q that is never back-propagated and follows it by an
/// exponential moving average after each optimizer step. Used on the training thread only.
class KeyEncoder {
public:
    /// `fresh`: an encoder built from the same registry entry and EncoderSpec as `query` (so
    /// its parameters and buffers have the same names and shapes). Copies query's parameters
    /// and buffers into it, turns off requires_grad on its parameters and moves it to query's
    /// device (the device of query's first parameter or buffer; the CPU when it has none).
    /// Throws std::invalid_argument when the two do not have the same parameters and buffers,
    /// or m is outside [0, 1].
    KeyEncoder(std::shared_ptr<sdk::SetEncoder> fresh, const sdk::SetEncoder& query, double momentum);

    /// The keys of `batch`: B x outputDim, computed under NoGradGuard in the query encoder's
    /// mode (train or eval, as `query`).
    torch::Tensor keys(const sdk::SetBatch& batch, const sdk::SetEncoder& query);
    /// θ_k <- m θ_k + (1 - m) θ_q for every parameter (under NoGradGuard, in place, on their
    /// device); buffers (BatchNorm's running statistics) are copied from the query encoder.
    void update(const sdk::SetEncoder& query);

    sdk::SetEncoder& encoder() { return *m_encoder; }
    const sdk::SetEncoder& encoder() const { return *m_encoder; }
    double momentum() const { return m_momentum; }

private:
    std::shared_ptr<sdk::SetEncoder> m_encoder;
    double m_momentum;
};

/// θ_k <- m θ_k + (1 - m) θ_q for the parameters of `key` and `query`, matched by name; buffers
/// copied. m = 0 copies every parameter; m = 1 leaves them. Throws std::invalid_argument when
/// the names or shapes differ.
void momentumUpdate(torch::nn::Module& key, const torch::nn::Module& query, double momentum);

} // namespace setscope::train
