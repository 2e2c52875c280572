// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/TripletLoss.h"

#include "core/losses/Mining.h"

#include <torch/torch.h>

#include <stdexcept>

namespace setscope::losses {

TripletLoss::TripletLoss(double margin)
    : m_margin(margin)
{
    if (!(margin >= 0.0))
        throw std::invalid_argument("triplet: margin must be >= 0");
}

sdk::LossOutput TripletLoss::compute(const torch::Tensor& emb, const torch::Tensor& labels)
{
    const torch::Tensor d2 = pairwiseSquaredDistances(emb);
    const torch::Tensor negIdx = semiHardNegatives(d2, labels); // B x B, -1 = no triplet
    const torch::Tensor valid = negIdx >= 0;
    sdk::LossOutput out;
    out.terms = valid.sum().item<std::int64_t>();
    if (out.terms == 0) {
        out.loss = emb.sum() * 0.0; // keeps the graph; no triplet in this batch
        return out;
    }
    const torch::Tensor dan = d2.gather(1, negIdx.clamp_min(0));           // B x B: d(a, n(a,p))
    const torch::Tensor per = torch::relu(d2 - dan + m_margin);            // d(a,p) - d(a,n) + α
    const torch::Tensor sel = per.masked_select(valid);
    out.activeTerms = (sel > 0).sum().item<std::int64_t>();
    out.loss = sel.mean();
    return out;
}

sdk::LossInfo tripletLossInfo()
{
    return {"triplet",
            "triplet loss with semi-hard negative mining (FaceNet; seed 000 Eq. 1)",
            {sdk::OptionSpec::real("margin", TripletLoss::kDefaultMargin, 0, 1e6, "the margin α")},
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<TripletLoss>(s.options.real("margin")); }};
}

} // namespace setscope::losses
