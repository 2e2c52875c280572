// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::losses {

/// SimCLR's normalised temperature-scaled cross-entropy (NT-Xent), the "Cont." competitor
/// of seed 001 §7.1. The 2B views z_1..z_2B are the embeddings followed by their augmented
/// views; with s(i,j) = cos(z_i, z_j) / τ and k(i) the partner of i (the other view of the
/// same set),
///   ℓ_i = -log( exp s(i,k(i)) / Σ_{j != i} exp s(i,j) ),   L = 1/(2B) Σ_i ℓ_i
/// so each view has one positive and 2B - 2 negatives. Cosine similarity normalises the
/// rows itself (eps 1e-12), whether or not the encoder already L2-normalises.
class NtXentLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultTemperature = 0.5;
    /// temperature.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(). Throws std::invalid_argument for τ <= 0.
    explicit NtXentLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override { return {.augmentedView = true}; }
    /// Reads embeddings and augmented (both B x E). terms = 2B anchors. Throws
    /// std::invalid_argument when augmented is missing or of another shape.
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    double temperature() const { return m_temperature; }

private:
    double m_temperature;
};

/// The registry's entry "nt-xent": name, one line of doc, schema and factory.
sdk::LossInfo ntXentLossInfo();

} // namespace setscope::losses
