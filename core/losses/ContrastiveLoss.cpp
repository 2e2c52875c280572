// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/ContrastiveLoss.h"

#include "core/losses/Mining.h"

#include <torch/torch.h>

#include <stdexcept>

namespace setscope::losses {

ContrastiveLoss::ContrastiveLoss(double margin)
    : m_margin(margin)
{
    if (!(margin > 0.0))
        throw std::invalid_argument("contrastive: margin must be > 0");
}

sdk::LossOutput ContrastiveLoss::compute(const torch::Tensor& emb, const torch::Tensor& labels)
{
    const torch::Tensor d = safeSqrt(pairwiseSquaredDistances(emb));
    const PairMasks m = pairMasks(labels);
    const auto b = emb.size(0);
    const torch::Tensor upper = torch::ones({b, b}, torch::TensorOptions().dtype(torch::kBool).device(emb.device())).triu(1);
    const torch::Tensor pos = m.positive & upper;
    const torch::Tensor neg = m.negative & upper;
    sdk::LossOutput out;
    out.terms = (pos | neg).sum().item<std::int64_t>();
    if (out.terms == 0) {
        out.loss = emb.sum() * 0.0;
        return out;
    }
    const torch::Tensor posTerm = d.masked_select(pos);
    const torch::Tensor negTerm = torch::relu(m_margin - d.masked_select(neg));
    out.activeTerms = posTerm.numel() + (negTerm > 0).sum().item<std::int64_t>();
    out.loss = (posTerm.sum() + negTerm.sum()) / static_cast<double>(out.terms);
    return out;
}

} // namespace setscope::losses
