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
    const PairTerms t = marginPairTerms(safeSqrt(pairwiseSquaredDistances(emb)), labels, m_margin);
    sdk::LossOutput out;
    out.loss = t.loss;
    out.terms = t.terms;
    out.activeTerms = t.active;
    return out;
}

} // namespace setscope::losses
