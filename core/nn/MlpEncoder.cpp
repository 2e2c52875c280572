// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/MlpEncoder.h"

#include "core/nn/Pooling.h"

#include <torch/torch.h>

#include <stdexcept>

namespace setscope::nn {

sdk::OptionSchema MlpEncoderImpl::schema()
{
    using sdk::OptionSpec;
    return {OptionSpec::integers("hidden", {128, 128, 64, 64}, 1, 1 << 20,
                                 "hidden widths (ReLU after each; seed 003 §4.3: 128,128,64,64)"),
            OptionSpec::flag("normalize", true, "L2-normalise the output")};
}

MlpEncoderImpl::MlpEncoderImpl(const sdk::EncoderSpec& spec)
{
    const sdk::OptionValues opts = spec.options.orDefaults(schema(), "encoder mlp");
    if (spec.inputDim <= 0 || spec.outputDim <= 0)
        throw std::invalid_argument("mlp: input and output dimensions must be positive");
    m_hidden = opts.integers("hidden");
    m_normalize = opts.flag("normalize");
    m_outputDim = spec.outputDim;

    torch::nn::Sequential net;
    net->push_back(torch::nn::Linear(appendReluLayers(net, spec.inputDim, m_hidden), m_outputDim));
    m_net = register_module("net", net);
}

torch::Tensor weightedMeanPool(const torch::Tensor& values, const torch::Tensor& weights)
{
    const torch::Tensor w = weights.unsqueeze(-1);                        // B x S x 1
    const torch::Tensor num = (values * w).sum(1);                         // B x D
    const torch::Tensor den = weights.sum(1, /*keepdim=*/true).clamp_min(1e-12); // B x 1
    return num / den;
}

torch::Tensor MlpEncoderImpl::forward(const sdk::SetBatch& batch)
{
    torch::Tensor x = batch.values.size(1) == 1 ? batch.values.squeeze(1) : weightedMeanPool(batch.values, batch.weights);
    torch::Tensor y = m_net->forward(x);
    if (m_normalize)
        y = torch::nn::functional::normalize(y, torch::nn::functional::NormalizeFuncOptions().p(2).dim(1).eps(1e-12));
    return y;
}

sdk::EncoderInfo mlpEncoderInfo()
{
    return {"mlp",
            "fully connected d-128-128-64-64-out on the weighted mean of each set (seed 003 §4.3)",
            MlpEncoderImpl::schema(),
            [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> { return MlpEncoder(spec).ptr(); }};
}

} // namespace setscope::nn
