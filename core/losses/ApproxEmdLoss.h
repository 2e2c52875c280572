// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::losses {

/// Direct EMD approximation, "Approx.EMD" of seed 001 §7.1:
///   L = 1/n² Σ_{i,j} (s · EMD(x_i, x_j) - ||f(x_i) - f(x_j)||²)²
/// over all n² ordered pairs of the batch, the diagonal included (both sides are 0 there, as
/// in the paper's 1/n² normalisation). s is the option emd-scale: L2-normalised embeddings
/// have squared distances in [0, 4], so EMDs on another scale are brought into that range
/// before the comparison. (Seed 000 §IV-A writes the unsquared norm; seed 001's squared
/// form is the one implemented.)
class ApproxEmdLoss final : public sdk::MetricLoss {
public:
    /// emd-scale.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(). Throws std::invalid_argument for emd-scale <= 0.
    explicit ApproxEmdLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override { return {.transport = true}; }
    /// Reads embeddings (B x E) and emd (B x B). terms = B², activeTerms = pairs with a
    /// non-zero residual. Throws std::invalid_argument when emd is missing or not B x B.
    sdk::LossOutput forward(const sdk::LossContext& context) override;
    double emdScale() const { return m_emdScale; }

private:
    double m_emdScale;
};

/// The registry's entry "approx-emd": name, one line of doc, schema and factory.
sdk::LossInfo approxEmdLossInfo();

} // namespace setscope::losses
