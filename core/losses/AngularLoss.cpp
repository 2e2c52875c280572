// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/AngularLoss.h"

#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace setscope::losses {

namespace {

void checkAlpha(double alphaDegrees)
{
    if (!(alphaDegrees > 0.0 && alphaDegrees < 90.0))
        throw std::invalid_argument("angular loss: α must lie strictly between 0 and 90 degrees (got " +
                                    std::to_string(alphaDegrees) + ")");
}

} // namespace

torch::Tensor metricSquaredDistance(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& l)
{
    return (a - b).matmul(l).pow(2).sum(1);
}

torch::Tensor angularMargins(const torch::Tensor& anchor, const torch::Tensor& positive, const torch::Tensor& negative,
                             const torch::Tensor& l, double alphaDegrees)
{
    checkAlpha(alphaDegrees);
    if (anchor.dim() != 2 || positive.sizes() != anchor.sizes() || negative.sizes() != anchor.sizes())
        throw std::invalid_argument("angular loss: anchors, positives and negatives must all be T x d");
    if (l.dim() != 2 || l.size(0) != anchor.size(1))
        throw std::invalid_argument("angular loss: L must be d x l with d = " + std::to_string(anchor.size(1)));
    const double t = std::tan(alphaDegrees * std::numbers::pi / 180.0);
    return metricSquaredDistance(anchor, positive, l) -
           4.0 * t * t * metricSquaredDistance(negative, 0.5 * (anchor + positive), l);
}

torch::Tensor angularLoss(const torch::Tensor& anchor, const torch::Tensor& positive, const torch::Tensor& negative,
                          const torch::Tensor& l, double alphaDegrees)
{
    const torch::Tensor m = angularMargins(anchor, positive, negative, l, alphaDegrees);
    if (m.numel() == 0)
        return m.sum() * 0.0 + l.sum() * 0.0;
    return torch::nn::functional::softplus(m).mean();
}

sdk::OptionSchema AngularLoss::schema()
{
    return {sdk::OptionSpec::real("alpha", kDefaultAlpha, 1e-6, 89.999,
                                  "α in degrees: the angle at the negative (seed 004 Eq. 3)"),
            sdk::OptionSpec::integer("metric-dim", 0, 0, 1 << 20,
                                     "l, the width of the metric L (d x l); 0 = d / 2 (seed 004: 128 → 64)"),
            sdk::OptionSpec::flag("orthogonal", true,
                                  "keep LᵀL = I by Riemannian steps on the Stiefel manifold (off: plain SGD, "
                                  "the w/o orth ablation)"),
            sdk::OptionSpec::choice("retraction", "qr", {"qr", "cayley"},
                                    "how a step returns to the Stiefel manifold"),
            sdk::OptionSpec::integer("seed", 0, 0, 1e15, "seed of L's random orthogonal initialisation"),
            sdk::OptionSpec::choice("metric-solver", "cg", {"cg", "step"},
                                    "step 3 of Algorithm 1: solve L on each batch by conjugate gradient with the network "
                                    "fixed (seed 004's Manopt CGD), or one gradient step of L after backward"),
            sdk::OptionSpec::integer("metric-iterations", 10, 1, 100000,
                                     "conjugate-gradient iterations per batch (seed 004: max iter = 10)"),
            sdk::OptionSpec::real("metric-lr-scale", 1.0, 0.0, 1e6,
                                  "the step solver's step size for L over the network's learning rate")};
}

AngularLoss::AngularLoss(const sdk::LossSpec& spec)
{
    const sdk::OptionValues o = spec.options.orDefaults(schema(), "angular loss");
    m_alpha = o.real("alpha");
    m_orthogonal = o.flag("orthogonal");
    m_retraction = metricUpdateFromName(o.text("retraction"));
    m_metricLrScale = o.real("metric-lr-scale");
    m_conjugateGradient = o.text("metric-solver") == "cg";
    m_metricIterations = static_cast<int>(o.integer("metric-iterations"));
    checkAlpha(m_alpha);
    const std::int64_t d = spec.embeddingDim;
    if (d < 1)
        throw std::invalid_argument("angular loss: the embedding width must be at least 1");
    const std::int64_t l = o.integer("metric-dim") == 0 ? std::max<std::int64_t>(1, d / 2) : o.integer("metric-dim");
    if (l > d)
        throw std::invalid_argument("angular loss: metric-dim " + std::to_string(l) + " exceeds the embedding width " +
                                    std::to_string(d));
    m_metric = register_parameter("metric", initialOrthogonal(d, l, static_cast<std::uint64_t>(o.integer("seed"))));
}

namespace {

/// The batch's rows as (anchor, positive, negative) views, after checking the layout.
std::array<torch::Tensor, 3> tripletRows(const torch::Tensor& emb, std::int64_t width)
{
    if (!emb.defined() || emb.dim() != 2 || emb.size(0) % 3 != 0)
        throw std::invalid_argument("angular loss: the embeddings must be 3T x d, triplets as consecutive "
                                    "(anchor, positive, negative) rows");
    if (emb.size(1) != width)
        throw std::invalid_argument("angular loss: embeddings of width " + std::to_string(emb.size(1)) +
                                    " for a metric built for " + std::to_string(width));
    const torch::Tensor t = emb.reshape({emb.size(0) / 3, 3, emb.size(1)});
    return {t.select(1, 0), t.select(1, 1), t.select(1, 2)};
}

} // namespace

ConjugateGradientResult AngularLoss::solveMetric(const torch::Tensor& embeddings)
{
    const auto rows = tripletRows(embeddings.detach(), m_metric.size(0));
    if (rows[0].size(0) == 0)
        return {};
    // f(L) = mean softplus(m_i(L)) on the fixed triplets, in float64; its gradient by autograd.
    const torch::Tensor a = rows[0].to(torch::kFloat64), p = rows[1].to(torch::kFloat64), n = rows[2].to(torch::kFloat64);
    const double alpha = m_alpha;
    const MetricObjective f = [&](const torch::Tensor& at) {
        torch::AutoGradMode enable(true);
        const torch::Tensor x = at.detach().clone().requires_grad_(true);
        const torch::Tensor cost = torch::nn::functional::softplus(angularMargins(a, p, n, x, alpha)).mean();
        cost.backward();
        return std::make_pair(cost.item<double>(), x.grad().detach());
    };
    torch::NoGradGuard noGrad;
    torch::Tensor l = m_metric.detach().to(torch::kFloat64);
    ConjugateGradientOptions options;
    options.maxIterations = m_metricIterations;
    options.onManifold = m_orthogonal;
    const ConjugateGradientResult r = conjugateGradient(l, f, options);
    m_metric.copy_(l.to(m_metric.dtype()));
    return r;
}

sdk::LossOutput AngularLoss::forward(const sdk::LossContext& context)
{
    const torch::Tensor& emb = context.embeddings;
    const auto rows = tripletRows(emb, m_metric.size(0));
    if (m_conjugateGradient)
        m_lastSolve = solveMetric(emb);
    // Step 4 sees L fixed under the cg solver; the step solver needs L's gradient.
    const torch::Tensor l = (m_conjugateGradient ? m_metric.detach() : m_metric).to(emb.dtype());
    const torch::Tensor m = angularMargins(rows[0], rows[1], rows[2], l, m_alpha);
    sdk::LossOutput out;
    out.terms = m.size(0);
    out.activeTerms = out.terms ? (m > 0).sum().item<std::int64_t>() : 0;
    out.loss = out.terms ? torch::nn::functional::softplus(m).mean() : emb.sum() * 0.0 + l.sum() * 0.0;
    return out;
}

void AngularLoss::stepMetric(double lr)
{
    if (!m_metric.grad().defined())
        return;
    metricStep(m_metric, m_metric.grad(), lr, update());
    m_metric.mutable_grad().zero_();
}

sdk::LossInfo angularLossInfo()
{
    return {"ssdml-angular",
            "SSDML: the angular loss of seed 004 Eq. 3 under the orthogonal metric L it owns, on mined triplets "
            "(sampler ssdml-triplets; recipe ssdml)",
            AngularLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<AngularLoss>(s); }};
}

} // namespace setscope::losses
