// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/SelfAttentionEncoder.h"

#include "core/nn/EncoderOptions.h"
#include "core/nn/Pooling.h"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace setscope::nn {

SelfAttentionEncoderImpl::SelfAttentionEncoderImpl(const sdk::EncoderSpec& spec)
{
    const EncoderOptions opts("selfattn", spec.options, {"layers", "heads", "ff", "dropout", "rho"});
    if (spec.inputDim <= 0 || spec.outputDim <= 0)
        throw std::invalid_argument("selfattn: input and output dimensions must be positive, got " +
                                    std::to_string(spec.inputDim) + " and " + std::to_string(spec.outputDim));
    m_layers = opts.positiveInt("layers", 5);
    m_heads = opts.positiveInt("heads", 7);
    m_ff = opts.positiveInt("ff", 1000);
    m_dropout = opts.probability("dropout", 0.1);
    m_rhoHidden = opts.widths("rho", {512, 256}, /*allowEmpty=*/true);
    m_inputDim = spec.inputDim;
    m_outputDim = spec.outputDim;
    m_modelDim = (m_inputDim + m_heads - 1) / m_heads * m_heads;

    if (m_modelDim != m_inputDim)
        m_project = register_module("project", torch::nn::Linear(m_inputDim, m_modelDim));
    const auto layer = torch::nn::TransformerEncoderLayer(
        torch::nn::TransformerEncoderLayerOptions(m_modelDim, m_heads).dim_feedforward(m_ff).dropout(m_dropout));
    m_encoder = register_module("encoder",
                                torch::nn::TransformerEncoder(torch::nn::TransformerEncoderOptions(layer, m_layers)));
    torch::nn::Sequential rho;
    std::int64_t in = m_modelDim;
    for (std::int64_t h : m_rhoHidden) {
        rho->push_back(torch::nn::Linear(in, h));
        rho->push_back(torch::nn::ReLU());
        in = h;
    }
    rho->push_back(torch::nn::Linear(in, m_outputDim));
    m_rho = register_module("rho", rho);
}

torch::Tensor SelfAttentionEncoderImpl::forward(const sdk::SetBatch& batch)
{
    const torch::Tensor& values = batch.values; // B x S x D
    TORCH_CHECK(values.dim() == 3 && values.size(2) == m_inputDim, "selfattn: expected B x S x ", m_inputDim,
                " values, got ", values.sizes());
    const torch::Tensor mask = batch.mask.defined() ? batch.mask.to(torch::kBool)
                                                    : torch::ones({values.size(0), values.size(1)},
                                                                  values.options().dtype(torch::kBool));
    TORCH_CHECK(mask.sizes() == values.sizes().slice(0, 2), "selfattn: mask must be B x S, got ", mask.sizes());

    torch::Tensor x = m_project.is_empty() ? values : m_project->forward(values);
    // LibTorch's layers take S x B x D (no batch_first in 1.13's C++ options).
    x = x.transpose(0, 1);
    // Key padding mask: true = ignore. A batch without padding passes none (no masked_fill).
    // Rows without any real element attend over their padding (a softmax over keys that are
    // all -inf is NaN); their result is dropped by the masked sum below.
    torch::Tensor padding;
    if (!mask.all().item<bool>()) {
        const torch::Tensor empty = mask.logical_not().all(1, /*keepdim=*/true); // B x 1
        padding = mask.logical_not().logical_and(empty.logical_not());
    }
    torch::Tensor h = m_encoder->forward(x, /*src_mask=*/{}, padding); // S x B x D'
    h = maskedSum(h.transpose(0, 1), mask);                            // B x D'
    return normalizeRows(m_rho->forward(h));
}

} // namespace setscope::nn
