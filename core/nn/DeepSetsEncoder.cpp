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
    std::int64_t in = m_inputDim;
    for (std::int64_t w : m_phiWidths) {
        phi->push_back(torch::nn::Linear(in, w));
        phi->push_back(torch::nn::ReLU());
        in = w;
    }
    m_phi = register_module("phi", phi);
    torch::nn::Sequential rho;
    for (std::int64_t w : m_rhoHidden) {
        rho->push_back(torch::nn::Linear(in, w));
        rho->push_back(torch::nn::ReLU());
        in = w;
    }
    rho->push_back(torch::nn::Linear(in, m_outputDim));
    m_rho = register_module("rho", rho);
}

torch::Tensor DeepSetsEncoderImpl::forward(const sdk::SetBatch& batch)
{
    const torch::Tensor& values = batch.values; // B x S x D
    TORCH_CHECK(values.dim() == 3 && values.size(2) == m_inputDim, "deepsets: expected B x S x ", m_inputDim,
                " values, got ", values.sizes());
    const torch::Tensor mask = batch.mask.defined() ? batch.mask.to(torch::kBool)
                                                    : torch::ones({values.size(0), values.size(1)},
                                                                  values.options().dtype(torch::kBool));
    TORCH_CHECK(mask.sizes() == values.sizes().slice(0, 2), "deepsets: mask must be B x S, got ", mask.sizes());
    return normalizeRows(m_rho->forward(maskedSum(m_phi->forward(values), mask)));
}

} // namespace setscope::nn
