// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/LrmlLoss.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace setscope::losses {

BaselineLoss lrmlLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& labels,
                      const torch::Tensor& affinity, const LrmlOptions& options)
{
    const char* who = "LRML loss";
    detail::checkEmbeddingsAndMetric(who, z, m);
    detail::checkLabels(who, z, labels);
    detail::checkAffinity(who, z, affinity);
    detail::checkNonNegative(who, "γ_S", options.gammaS);
    detail::checkNonNegative(who, "γ_D", options.gammaD);
    const torch::Tensor dist = pairwiseMetricDistances(z, m);
    const detail::PairMasks pm = detail::pairMasks(labels, z.scalar_type());
    BaselineLoss out;
    out.pairs = pm.counts;
    out.labelled = options.gammaS * (pm.similar * dist).sum() - options.gammaD * (pm.dissimilar * dist).sum();
    out.unlabelled = 0.5 * (affinity.to(z.dtype()) * dist).sum();
    // Keeps M in the graph (and its gradient defined, zero) like the other parts.
    out.regulariser = m.to(z.dtype()).sum() * 0.0;
    out.loss = out.labelled + out.unlabelled + out.regulariser;
    return out;
}

sdk::OptionSchema LrmlLoss::schema()
{
    const LrmlOptions d;
    return {sdk::OptionSpec::real("gamma-s", d.gammaS, 0.0, 1e12, "γ_S: the weight of the similar pairs' distances (seed 004 Eq. 2)"),
            sdk::OptionSpec::real("gamma-d", d.gammaD, 0.0, 1e12, "γ_D: the weight of the dissimilar pairs' distances (1 in Eq. 2)"),
            sdk::OptionSpec::real("metric-lr-scale", 1.0, 0.0, 1e12, "M's step size relative to the network's learning rate")};
}

LrmlLoss::LrmlLoss(const sdk::LossSpec& spec)
{
    const sdk::OptionValues o = spec.options.orDefaults(schema(), "LRML loss");
    m_options = {o.real("gamma-s"), o.real("gamma-d")};
    ownMetric("LRML loss", spec.embeddingDim, o.real("metric-lr-scale"));
}

sdk::LossOutput LrmlLoss::forward(const sdk::LossContext& context, const torch::Tensor& affinity)
{
    const BaselineLoss b = lrmlLoss(context.embeddings, m_metric, context.labels, affinity, m_options);
    sdk::LossOutput out;
    out.loss = b.loss;
    out.terms = b.pairs.similar + b.pairs.dissimilar;
    if (out.terms) {
        torch::NoGradGuard noGrad;
        const torch::Tensor dist = pairwiseMetricDistances(context.embeddings, m_metric);
        const torch::Tensor lab = context.labels.to(torch::kLong);
        const torch::Tensor known = lab >= 0;
        const torch::Tensor pairs = known.unsqueeze(1).logical_and(known.unsqueeze(0)).triu(1);
        out.activeTerms = pairs.logical_and(dist > 0).sum().item<std::int64_t>();
    }
    return out;
}

void LrmlLoss::stepMetric(double lr) { detail::projectedStep(m_metric, lr, &projectLrmlFeasible); }

sdk::LossInfo lrmlLossInfo()
{
    return {"lrml",
            "Deep-LRML (seed 004 Eq. 2): labelled pair distances + the Laplacian term of the batch's kNN "
            "affinities, metric M ⪰ 0, log|M| ≥ 0 (sampler ssdml-partition; recipes lrml, isdml)",
            LrmlLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<LrmlLoss>(s); }};
}

} // namespace setscope::losses
