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

} // namespace setscope::nn
