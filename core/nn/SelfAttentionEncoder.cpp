// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/SelfAttentionEncoder.h"

#include "core/nn/Pooling.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace setscope::nn {

sdk::OptionSchema SelfAttentionEncoderImpl::schema()
{
    using sdk::OptionSpec;
    return {OptionSpec::integer("layers", 5, 1, 64, "Transformer encoder layers (seed 001 §6.2.2: 5)"),
            OptionSpec::integer("heads", 7, 1, 64, "attention heads (7); the input is projected to a multiple of them"),
            OptionSpec::integer("ff", 1000, 1, 1 << 20, "feed-forward width of each layer (1000)"),
            OptionSpec::real("dropout", 0.1, 0.0, 0.999, "dropout of the layers (0.1)"),
            OptionSpec::integers("rho", {512, 256}, 1, 1 << 20, "hidden widths of rho after the sum (512,256)"),
            OptionSpec::integer("group-tokens", kDefaultGroupTokens, 0, 1LL << 40,
                                "padded slots per group of similar-length rows (0 = whole batch at once; same output)")};
}

SelfAttentionEncoderImpl::SelfAttentionEncoderImpl(const sdk::EncoderSpec& spec)
{
    const sdk::OptionValues opts = spec.options.orDefaults(schema(), "encoder selfattn");
    if (spec.inputDim <= 0 || spec.outputDim <= 0)
        throw std::invalid_argument("selfattn: input and output dimensions must be positive, got " +
                                    std::to_string(spec.inputDim) + " and " + std::to_string(spec.outputDim));
    m_layers = opts.integer("layers");
    m_heads = opts.integer("heads");
    m_ff = opts.integer("ff");
    m_dropout = opts.real("dropout");
    m_rhoHidden = opts.integers("rho");
    m_groupTokens = opts.integer("group-tokens");
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
    rho->push_back(torch::nn::Linear(appendReluLayers(rho, m_modelDim, m_rhoHidden), m_outputDim));
    m_rho = register_module("rho", rho);
}

torch::Tensor SelfAttentionEncoderImpl::forward(const sdk::SetBatch& batch)
{
    const torch::Tensor mask = realElementMask(batch, m_inputDim, "selfattn"); // checks the shapes
    const torch::Tensor& values = batch.values;                                 // B x S x D
    const std::int64_t b = values.size(0);
    const std::int64_t s = values.size(1);
    torch::Tensor pooled;
    if (s == 0)
        pooled = torch::zeros({b, m_modelDim}, values.options());
    else if (m_groupTokens == 0 || b * s <= m_groupTokens)
        pooled = poolRows(values, mask);
    else
        pooled = poolGrouped(values, mask);
    return normalizeRows(m_rho->forward(pooled));
}

torch::Tensor SelfAttentionEncoderImpl::poolRows(const torch::Tensor& values, const torch::Tensor& mask)
{
    torch::Tensor x = m_project.is_empty() ? values : m_project->forward(values);
    // LibTorch's layers take S x B x D (no batch_first in 1.13's C++ options).
    x = x.transpose(0, 1);
    // Key padding mask: true = ignore. Rows without padding pass none (no masked_fill).
    // Rows without any real element attend over their padding (a softmax over keys that are
    // all -inf is NaN); their result is dropped by the masked sum below.
    torch::Tensor padding;
    if (!mask.all().item<bool>()) {
        const torch::Tensor empty = mask.logical_not().all(1, /*keepdim=*/true); // B x 1
        padding = mask.logical_not().logical_and(empty.logical_not());
    }
    const torch::Tensor h = m_encoder->forward(x, /*src_mask=*/{}, padding); // S x B x D'
    return maskedSum(h.transpose(0, 1), mask);                              // B x D'
}

torch::Tensor SelfAttentionEncoderImpl::poolGrouped(const torch::Tensor& values, const torch::Tensor& mask)
{
    const std::int64_t b = values.size(0);
    const std::int64_t s = values.size(1);
    // Extent of a row: one past its last real element (0 for an empty row). Rows sorted by
    // extent, longest first, are cut into groups of at most m_groupTokens slots, each group
    // padded only to its own longest row.
    const torch::Tensor positions = torch::arange(1, s + 1, mask.options().dtype(torch::kLong));
    const torch::Tensor extent = (mask.to(torch::kLong) * positions).amax(1).cpu();
    const torch::Tensor order = std::get<1>(extent.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true));
    const auto ext = extent.accessor<std::int64_t, 1>();
    const auto ord = order.accessor<std::int64_t, 1>();
    const torch::Tensor orderOnDevice = order.to(values.device());
    std::vector<torch::Tensor> parts;
    for (std::int64_t i = 0; i < b;) {
        const std::int64_t len = std::max<std::int64_t>(1, ext[ord[i]]);
        const std::int64_t rows = std::min(b - i, std::max<std::int64_t>(1, m_groupTokens / len));
        const torch::Tensor idx = orderOnDevice.narrow(0, i, rows);
        parts.push_back(poolRows(values.index_select(0, idx).narrow(1, 0, len), mask.index_select(0, idx).narrow(1, 0, len)));
        i += rows;
    }
    // Back to the batch's row order.
    return torch::cat(parts, 0).index_select(0, orderOnDevice.argsort());
}

bool SelfAttentionEncoderImpl::resetHead()
{
    resetLinearLayers(*m_rho);
    return true;
}

sdk::EncoderInfo selfAttentionEncoderInfo()
{
    return {"selfattn",
            "self-attention set encoder: Transformer layers (no positional encoding, padding masked), sum over "
        "the set, FC 512-256-out, L2-normalised (seed 001 §4.3)",
            SelfAttentionEncoderImpl::schema(),
            [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> { return SelfAttentionEncoder(spec).ptr(); }};
}

} // namespace setscope::nn
