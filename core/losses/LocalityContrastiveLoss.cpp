// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/LocalityContrastiveLoss.h"

#include "core/losses/Mining.h"
#include "core/util/Perplexity.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace setscope::losses {

sdk::OptionSchema LocalityContrastiveLoss::schema()
{
    return {
        sdk::OptionSpec::real("margin", kDefaultMargin, 1e-9, 1e6,
                              "γ: dissimilar pairs are pushed until their squared distance reaches γ (seed 003 Eq. 3)"),
        sdk::OptionSpec::real("alpha", kDefaultAlpha, 0, 1e6, "α: the weight of the KL(P ‖ Q) locality penalty (seed 003 Eq. 4)"),
        sdk::OptionSpec::real("perplexity", kDefaultPerplexity, 1, 1e4,
                              "perplexity of the input-space affinities P (σ_i by t-SNE's search; capped at (B - 1) / 3)"),
    };
}

LocalityContrastiveLoss::LocalityContrastiveLoss(const sdk::LossSpec& spec)
    : m_margin(spec.options.real("margin"))
    , m_alpha(spec.options.real("alpha"))
    , m_perplexity(spec.options.real("perplexity"))
{
    if (!(m_margin > 0.0) || !std::isfinite(m_margin))
        throw std::invalid_argument("locality-contrastive: margin must be a finite number > 0");
    if (!(m_alpha >= 0.0) || !std::isfinite(m_alpha))
        throw std::invalid_argument("locality-contrastive: alpha must be a finite number >= 0");
    if (!(m_perplexity >= 1.0) || !std::isfinite(m_perplexity))
        throw std::invalid_argument("locality-contrastive: perplexity must be a finite number >= 1");
}

torch::Tensor LocalityContrastiveLoss::setMeans(const sdk::SetBatch& sets)
{
    if (!sets.values.defined() || sets.values.dim() != 3 || !sets.weights.defined() ||
        !sets.weights.sizes().equals(sets.values.sizes().slice(0, 2)))
        throw std::invalid_argument("locality-contrastive: the collated sets must be values B x S x D with weights B x S");
    const torch::Tensor w = sets.weights.to(torch::kFloat64);
    const torch::Tensor total = w.sum(1, true);
    // A set without weight (all padding) sits at the origin instead of dividing by zero.
    return (w.unsqueeze(2) * sets.values.to(torch::kFloat64)).sum(1) / total.clamp_min(1e-300);
}

double LocalityContrastiveLoss::effectivePerplexity(double perplexity, std::int64_t n)
{
    return std::min(perplexity, std::max(1.0, static_cast<double>(n - 1) / 3.0));
}

torch::Tensor LocalityContrastiveLoss::conditionalAffinities(const torch::Tensor& x, double perplexity)
{
    if (!x.defined() || x.dim() != 2)
        throw std::invalid_argument("locality-contrastive: the input features must be n x D");
    const auto n = x.size(0);
    torch::Tensor p = torch::zeros({n, n}, torch::kFloat64);
    if (n < 2)
        return p;
    const torch::Tensor xd = x.detach().to(torch::kCPU, torch::kFloat64).contiguous();
    const torch::Tensor d2 = pairwiseSquaredDistances(xd).contiguous();
    const double logU = std::log(effectivePerplexity(perplexity, n));
    const double* dist = d2.data_ptr<double>();
    double* rows = p.data_ptr<double>();
    for (std::int64_t i = 0; i < n; ++i)
        util::calibratePerplexityRow(dist + i * n, n, i, logU, rows + i * n);
    return p;
}

torch::Tensor LocalityContrastiveLoss::jointAffinities(const torch::Tensor& x, double perplexity)
{
    const torch::Tensor c = conditionalAffinities(x, perplexity);
    const auto n = c.size(0);
    if (n < 2)
        return c;
    return (c + c.t()) / (2.0 * static_cast<double>(n));
}

torch::Tensor LocalityContrastiveLoss::klDivergence(const torch::Tensor& p, const torch::Tensor& y)
{
    const auto n = y.size(0);
    if (n < 2)
        return y.sum() * 0.0;
    const torch::Tensor offDiag =
        torch::eye(n, torch::TensorOptions().dtype(torch::kBool).device(y.device())).logical_not();
    // log Q_ij = -d_ij² - log Σ_{k≠l} exp(-d_kl²); the diagonal is left out of the sum.
    const torch::Tensor negD2 = -pairwiseSquaredDistances(y);
    const torch::Tensor logZ = torch::logsumexp(negD2.masked_select(offDiag), 0);
    const torch::Tensor logQ = negD2 - logZ;
    // Σ P log P is a constant; it makes the value a KL (0 when Q = P). Entries with P = 0
    // contribute nothing (0 log 0 = 0).
    const torch::Tensor pc = p.to(torch::kCPU, torch::kFloat64);
    const torch::Tensor positive = pc > 0;
    const double entropy = (pc.masked_select(positive) * pc.masked_select(positive).log()).sum().item<double>();
    const torch::Tensor pd = p.to(y.device(), y.scalar_type()).masked_fill(offDiag.logical_not(), 0.0);
    return entropy - (pd * logQ.masked_fill(offDiag.logical_not(), 0.0)).sum();
}

sdk::LossOutput LocalityContrastiveLoss::contrastive(const torch::Tensor& emb, const torch::Tensor& labels) const
{
    const PairTerms t =
        marginPairTerms(pairwiseSquaredDistances(emb), labels.to(emb.device(), torch::kInt64), m_margin);
    sdk::LossOutput out;
    out.loss = t.loss;
    out.terms = t.terms;
    out.activeTerms = t.active;
    return out;
}

sdk::LossOutput LocalityContrastiveLoss::forward(const sdk::LossContext& context)
{
    const torch::Tensor& emb = context.embeddings;
    if (!emb.defined() || emb.dim() != 2)
        throw std::invalid_argument("locality-contrastive: the embeddings must be a B x E tensor");
    if (!context.labels.defined() || context.labels.dim() != 1 || context.labels.size(0) != emb.size(0))
        throw std::invalid_argument("locality-contrastive: needs the batch's labels (B int64, -1 = unlabelled)");
    sdk::LossOutput out = contrastive(emb, context.labels);
    if (m_alpha > 0.0 && emb.size(0) >= 2) {
        if (!context.sets || !context.sets->values.defined() || context.sets->values.size(0) != emb.size(0))
            throw std::invalid_argument("locality-contrastive: needs the batch's collated sets (LossContext::sets, one "
                                        "per embedding row) for the input-space affinities");
        const torch::Tensor p = jointAffinities(setMeans(*context.sets), m_perplexity);
        out.loss = out.loss + m_alpha * klDivergence(p, emb);
    }
    return out;
}

sdk::LossInfo localityContrastiveLossInfo()
{
    return {"locality-contrastive",
            "contrastive on squared distances + α KL(P ‖ Q) of t-SNE-like input / embedding affinities "
            "(seed 003 §4.2-4.3, Algorithm 2)",
            LocalityContrastiveLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<LocalityContrastiveLoss>(s); }};
}

} // namespace setscope::losses
