// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

namespace setscope::nn {

/// DeepSets (Zaheer et al. 2017), the baseline set encoder of seed 001 §7.1:
///   f(x) = normalize( rho( sum over the real elements w of x of phi(w) ) )
/// phi is an MLP applied to each element (ReLU after every layer, so phi(w) >= 0), the
/// pooling is the plain sum of Zaheer et al. over the real elements (mask true), not
/// weighted by SetBatch::weights (for documents the frequency is a feature already), rho is
/// an MLP with ReLU between its layers and outputDim outputs, and the output is L2-normalised.
/// Padded slots contribute nothing whatever they hold, so the output is invariant to the
/// element order and to the amount of padding. A set without real elements is the empty sum:
/// normalize(rho(0)).
///
/// Options (schema(); EncoderSpec::options resolved against it):
///   phi = "256,256"  widths of phi's layers (at least one)
///   rho = "256"      hidden widths of rho (may be empty: one Linear to outputDim)
/// At 301-d input, 64 outputs and the defaults: phi 77 312 + 65 792, rho 65 792 + 16 448
/// = 225 344 parameters.
class DeepSetsEncoderImpl : public sdk::SetEncoder {
public:
    static constexpr const char* kName = "deepsets";
    static sdk::OptionSchema schema();
    explicit DeepSetsEncoderImpl(const sdk::EncoderSpec& spec);

    /// batch.values B x S x D float32, batch.mask B x S bool (true on real elements), both on
    /// one device -> B x outputDim on that device, rows of unit norm.
    torch::Tensor forward(const sdk::SetBatch& batch) override;
    std::int64_t outputDim() const override { return m_outputDim; }
    /// Fresh weights for every Linear layer of rho (LibTorch's default initialisation), the
    /// rest unchanged: the "ρ re-initialised" of fine-tuning (seed 001 §5).
    bool resetHead() override;

    const std::vector<std::int64_t>& phiWidths() const { return m_phiWidths; }
    const std::vector<std::int64_t>& rhoHidden() const { return m_rhoHidden; }

private:
    torch::nn::Sequential m_phi{nullptr};
    torch::nn::Sequential m_rho{nullptr};
    std::int64_t m_inputDim = 0;
    std::int64_t m_outputDim = 0;
    std::vector<std::int64_t> m_phiWidths;
    std::vector<std::int64_t> m_rhoHidden;
};
TORCH_MODULE(DeepSetsEncoder);

/// The registry's entry "deepsets": name, one line of doc, DeepSetsEncoderImpl::schema() and its factory.
sdk::EncoderInfo deepSetsEncoderInfo();

} // namespace setscope::nn
