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

sdk::LossInfo contrastiveLossInfo()
{
    return {"contrastive",
            "pairwise contrastive loss y d + (1-y) max(0, m - d) (seed 002)",
            {sdk::OptionSpec::real("margin", ContrastiveLoss::kDefaultMargin, 1e-9, 1e6,
                                    "the margin m: dissimilar pairs closer than m are pushed apart")},
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<ContrastiveLoss>(s.options.real("margin")); }};
}

} // namespace setscope::losses
