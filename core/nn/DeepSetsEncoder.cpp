// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/DeepSetsEncoder.h"

#include "core/nn/Pooling.h"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace setscope::nn {

sdk::OptionSchema DeepSetsEncoderImpl::schema()
{
    using sdk::OptionSpec;
    return {OptionSpec::integers("phi", {256, 256}, 1, 1 << 20, "widths of the per-element MLP phi (at least one layer)"),
            OptionSpec::integers("rho", {256}, 1, 1 << 20, "hidden widths of rho after the sum (may be empty)")};
}

DeepSetsEncoderImpl::DeepSetsEncoderImpl(const sdk::EncoderSpec& spec)
{
    const sdk::OptionValues opts = spec.options.orDefaults(schema(), "encoder deepsets");
    if (spec.inputDim <= 0 || spec.outputDim <= 0)
        throw std::invalid_argument("deepsets: input and output dimensions must be positive, got " +
                                    std::to_string(spec.inputDim) + " and " + std::to_string(spec.outputDim));
    m_phiWidths = opts.integers("phi");
    m_rhoHidden = opts.integers("rho");
    if (m_phiWidths.empty())
        throw std::invalid_argument("encoder deepsets: option 'phi' needs at least one width (phi is an MLP)");
    m_inputDim = spec.inputDim;
    m_outputDim = spec.outputDim;

    torch::nn::Sequential phi;
    const std::int64_t phiOut = appendReluLayers(phi, m_inputDim, m_phiWidths);
    m_phi = register_module("phi", phi);
    torch::nn::Sequential rho;
    rho->push_back(torch::nn::Linear(appendReluLayers(rho, phiOut, m_rhoHidden), m_outputDim));
    m_rho = register_module("rho", rho);
}

torch::Tensor DeepSetsEncoderImpl::forward(const sdk::SetBatch& batch)
{
    const torch::Tensor mask = realElementMask(batch, m_inputDim, "deepsets");
    return normalizeRows(m_rho->forward(maskedSum(m_phi->forward(batch.values), mask)));
}

bool DeepSetsEncoderImpl::resetHead()
{
    resetLinearLayers(*m_rho);
    return true;
}

sdk::EncoderInfo deepSetsEncoderInfo()
{
    return {"deepsets",
            "DeepSets: per-element MLP phi, sum over the set, MLP rho, L2-normalised (Zaheer et al.)",
            DeepSetsEncoderImpl::schema(),
            [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> { return DeepSetsEncoder(spec).ptr(); }};
}

} // namespace setscope::nn
