// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/ApproxEmdLoss.h"

#include "core/losses/Mining.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace setscope::losses {

sdk::OptionSchema ApproxEmdLoss::schema()
{
    return {sdk::OptionSpec::real("emd-scale", 1.0, 1e-9, 1e9,
                                  "s: each EMD is multiplied by s before it is compared with the squared embedding "
                                  "distance (seed 001 §7.1)")};
}

ApproxEmdLoss::ApproxEmdLoss(const sdk::LossSpec& spec)
    : m_emdScale(spec.options.real("emd-scale"))
{
    if (!(m_emdScale > 0.0) || !std::isfinite(m_emdScale))
        throw std::invalid_argument("approx-emd: emd-scale must be a finite number > 0");
}

sdk::LossOutput ApproxEmdLoss::forward(const sdk::LossContext& context)
{
    const torch::Tensor& emb = context.embeddings;
    if (!emb.defined() || emb.dim() != 2)
        throw std::invalid_argument("approx-emd: the embeddings must be a B x E tensor");
    const auto b = emb.size(0);
    if (!context.emd.defined() || context.emd.dim() != 2 || context.emd.size(0) != b || context.emd.size(1) != b)
        throw std::invalid_argument("approx-emd: needs the batch's EMD matrix (B x B, B = " + std::to_string(b) +
                                    "); the run must compute transport");
    sdk::LossOutput out;
    if (b == 0) {
        out.loss = emb.sum() * 0.0;
        return out;
    }
    const torch::Tensor target = context.emd.detach().to(emb.device(), emb.scalar_type()) * m_emdScale;
    const torch::Tensor residual = target - pairwiseSquaredDistances(emb);
    out.terms = b * b;
    out.activeTerms = (residual != 0).sum().item<std::int64_t>();
    out.loss = residual.pow(2).mean();
    return out;
}

sdk::LossInfo approxEmdLossInfo()
{
    return {"approx-emd",
            "Approx.EMD: squared embedding distances regressed on the batch's EMDs (seed 001 §7.1)",
            ApproxEmdLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<ApproxEmdLoss>(s); }};
}

} // namespace setscope::losses
