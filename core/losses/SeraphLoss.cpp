// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/SeraphLoss.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace setscope::losses {

BaselineLoss seraphLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& labels,
                        const SeraphOptions& options)
{
    const char* who = "SERAPH loss";
    detail::checkEmbeddingsAndMetric(who, z, m);
    detail::checkLabels(who, z, labels);
    detail::checkNonNegative(who, "η", options.eta);
    detail::checkNonNegative(who, "μ", options.mu);
    detail::checkNonNegative(who, "λ", options.lambda);
    namespace F = torch::nn::functional;
    const torch::Tensor t = pairwiseMetricDistances(z, m) - options.eta;
    const detail::PairMasks pm = detail::pairMasks(labels, z.scalar_type());
    BaselineLoss out;
    out.pairs = pm.counts;
    // -log p(y) = log(1 + exp(y t)): y = +1 on similar pairs, -1 on dissimilar ones.
    out.labelled = (pm.similar * F::softplus(t)).sum() + (pm.dissimilar * F::softplus(-t)).sum();
    // -Σ_y p(y) log p(y) with p(+1) = σ(-t), p(-1) = σ(t): σ(-t) softplus(t) + σ(t) softplus(-t).
    const torch::Tensor entropy = torch::sigmoid(-t) * F::softplus(t) + torch::sigmoid(t) * F::softplus(-t);
    out.unlabelled = options.mu * (pm.unlabelled * entropy).sum();
    out.regulariser = options.lambda * m.to(z.dtype()).diagonal().sum();
    out.loss = out.labelled + out.unlabelled + out.regulariser;
    return out;
}

sdk::OptionSchema SeraphLoss::schema()
{
    const SeraphOptions d;
    return {sdk::OptionSpec::real("eta", d.eta, 0.0, 1e12, "η: the distance threshold of p(y) = 1 / (1 + exp(y (δ² - η))) (seed 004 Eq. 1)"),
            sdk::OptionSpec::real("mu", d.mu, 0.0, 1e12, "μ: the weight of the entropy over unlabelled pairs"),
            sdk::OptionSpec::real("lambda", d.lambda, 0.0, 1e12, "λ: the weight of Tr(M)"),
            sdk::OptionSpec::real("metric-lr-scale", 1.0, 0.0, 1e12, "M's step size relative to the network's learning rate")};
}

SeraphLoss::SeraphLoss(const sdk::LossSpec& spec)
{
    const sdk::OptionValues o = spec.options.orDefaults(schema(), "SERAPH loss");
    m_options = {o.real("eta"), o.real("mu"), o.real("lambda")};
    ownMetric("SERAPH loss", spec.embeddingDim, o.real("metric-lr-scale"));
}

sdk::LossOutput SeraphLoss::forward(const sdk::LossContext& context)
{
    const BaselineLoss b = seraphLoss(context.embeddings, m_metric, context.labels, m_options);
    sdk::LossOutput out;
    out.loss = b.loss;
    out.terms = b.pairs.similar + b.pairs.dissimilar + b.pairs.unlabelled;
    out.activeTerms = out.terms;
    return out;
}

void SeraphLoss::stepMetric(double lr) { detail::projectedStep(m_metric, lr, &projectPsd); }

sdk::LossInfo seraphLossInfo()
{
    return {"seraph",
            "Deep-SERAPH (seed 004 Eq. 1): entropy regularisation over labelled and unlabelled pairs under "
            "the metric M ⪰ 0 it owns (sampler ssdml-partition; recipe seraph)",
            SeraphLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<SeraphLoss>(s); }};
}

} // namespace setscope::losses
