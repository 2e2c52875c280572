// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/MlpEncoder.h"

#include "core/nn/Pooling.h"

#include <torch/torch.h>

#include <sstream>
#include <stdexcept>

namespace setscope::nn {

namespace {
std::vector<std::int64_t> parseWidths(const std::string& s)
{
    std::vector<std::int64_t> out;
    std::stringstream ss(s);
    std::string tok;
    while (std::getline(ss, tok, ',')) {
        std::size_t pos = 0;
        long long v = 0;
        try {
            v = std::stoll(tok, &pos);
        } catch (const std::exception&) {
            pos = 0;
        }
        if (pos != tok.size() || v <= 0)
            throw std::invalid_argument("mlp: hidden widths must be positive integers, got '" + s + "'");
        out.push_back(v);
    }
    return out;
}
} // namespace

MlpEncoderImpl::MlpEncoderImpl(const sdk::EncoderSpec& spec)
{
    if (spec.inputDim <= 0 || spec.outputDim <= 0)
        throw std::invalid_argument("mlp: input and output dimensions must be positive");
    auto opt = [&](const std::string& k, const std::string& def) {
        auto it = spec.options.find(k);
        return it == spec.options.end() ? def : it->second;
    };
    m_hidden = parseWidths(opt("hidden", "128,128,64,64"));
    const std::string norm = opt("normalize", "true");
    if (norm != "true" && norm != "false")
        throw std::invalid_argument("mlp: normalize must be true or false, got '" + norm + "'");
    m_normalize = norm == "true";
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

} // namespace setscope::nn
