// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/Pooling.h"

#include <torch/torch.h>

namespace setscope::nn {

torch::Tensor maskedSum(const torch::Tensor& values, const torch::Tensor& mask)
{
    // where() rather than a product with the mask: 0 * NaN would be NaN, and where's gradient
    // for the unselected slots is exactly 0.
    return torch::where(mask.unsqueeze(-1), values, torch::zeros({}, values.options())).sum(1);
}

torch::Tensor normalizeRows(const torch::Tensor& x)
{
    return torch::nn::functional::normalize(x, torch::nn::functional::NormalizeFuncOptions().p(2).dim(1).eps(1e-12));
}

void resetLinearLayers(torch::nn::Module& net)
{
    torch::NoGradGuard noGrad;
    for (const auto& m : net.modules(/*include_self=*/false))
        if (auto* linear = m->as<torch::nn::Linear>())
            linear->reset_parameters();
}

std::int64_t appendReluLayers(torch::nn::Sequential& net, std::int64_t in, const std::vector<std::int64_t>& widths)
{
    for (std::int64_t w : widths) {
        net->push_back(torch::nn::Linear(in, w));
        net->push_back(torch::nn::ReLU());
        in = w;
    }
    return in;
}

torch::Tensor realElementMask(const sdk::SetBatch& batch, std::int64_t inputDim, const char* encoder)
{
    const torch::Tensor& values = batch.values; // B x S x D
    TORCH_CHECK(values.dim() == 3 && values.size(2) == inputDim, encoder, ": expected B x S x ", inputDim,
                " values, got ", values.sizes());
    const torch::Tensor mask = batch.mask.defined() ? batch.mask.to(torch::kBool)
                                                    : torch::ones({values.size(0), values.size(1)},
                                                                  values.options().dtype(torch::kBool));
    TORCH_CHECK(mask.sizes() == values.sizes().slice(0, 2), encoder, ": mask must be B x S, got ", mask.sizes());
    return mask;
}

} // namespace setscope::nn
