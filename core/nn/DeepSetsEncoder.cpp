// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/DeepSetsEncoder.h"

#include "core/nn/EncoderOptions.h"
#include "core/nn/Pooling.h"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace setscope::nn {

DeepSetsEncoderImpl::DeepSetsEncoderImpl(const sdk::EncoderSpec& spec)
{
    const EncoderOptions opts("deepsets", spec.options, {"phi", "rho"});
    if (spec.inputDim <= 0 || spec.outputDim <= 0)
        throw std::invalid_argument("deepsets: input and output dimensions must be positive, got " +
                                    std::to_string(spec.inputDim) + " and " + std::to_string(spec.outputDim));
    m_phiWidths = opts.widths("phi", {256, 256}, /*allowEmpty=*/false);
    m_rhoHidden = opts.widths("rho", {256}, /*allowEmpty=*/true);
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

} // namespace setscope::nn
