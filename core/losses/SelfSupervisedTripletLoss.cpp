// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/SelfSupervisedTripletLoss.h"

#include "core/losses/Mining.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace setscope::losses {

sdk::OptionSchema SelfSupervisedTripletLoss::schema()
{
    return {
        sdk::OptionSpec::flag("weighted", true,
                              "weight each negative by w = exp(-EMD(a,n) / (2(cσ)²)): WSSET (seed 000 Eq. 2-3); "
                              "false: SSET (Eq. 1)"),
        sdk::OptionSpec::real("margin", kDefaultMargin, 0, 1e6, "the margin α between positive and negative distances"),
        sdk::OptionSpec::real("c", kDefaultC, 1e-9, 1e6, "the scale c of σ in the weight w (seed 000 Eq. 3); unused "
                                                           "when not weighted"),
        sdk::OptionSpec::real("positive-percentile", 100, 0, 100,
                              "q: keep an anchor only when the EMD to its positive is below the q-th percentile of "
                              "the batch's EMDs (WSSET code); 100 keeps all"),
        sdk::OptionSpec::flag("augmented-term", false,
                              "add the augmented view x'ᵃ as a second positive with its own semi-hard negative and "
                              "weight w' (seed 001 Eq. 7)"),
    };
}

SelfSupervisedTripletLoss::SelfSupervisedTripletLoss(const sdk::LossSpec& spec)
    : m_weighted(spec.options.flag("weighted"))
    , m_margin(spec.options.real("margin"))
    , m_c(spec.options.real("c"))
    , m_positivePercentile(spec.options.real("positive-percentile"))
    , m_augmentedTerm(spec.options.flag("augmented-term"))
{
    if (!(m_margin >= 0.0))
        throw std::invalid_argument("wsset: margin must be >= 0");
    if (!(m_c > 0.0) || !std::isfinite(m_c))
        throw std::invalid_argument("wsset: c must be a finite number > 0");
    if (!(m_positivePercentile >= 0.0 && m_positivePercentile <= 100.0))
        throw std::invalid_argument("wsset: positive-percentile must lie in [0, 100]");
}

SelfSupervisedTripletLoss::Triplets SelfSupervisedTripletLoss::mine(const sdk::LossContext& context) const
{
    torch::NoGradGuard noGrad;
    if (!context.embeddings.defined() || context.embeddings.dim() != 2)
        throw std::invalid_argument("wsset: the embeddings must be a B x E tensor");
    return mineOn(pairwiseSquaredDistances(context.embeddings.detach()), context);
}

SelfSupervisedTripletLoss::Triplets SelfSupervisedTripletLoss::mineOn(const torch::Tensor& d2In,
                                                                      const sdk::LossContext& context) const
{
    torch::NoGradGuard noGrad;
    const torch::Tensor& emb = context.embeddings;
    const auto b = emb.size(0);
    if (!context.emd.defined() || context.emd.dim() != 2 || context.emd.size(0) != b || context.emd.size(1) != b)
        throw std::invalid_argument("wsset: needs the batch's EMD matrix (B x B, B = " + std::to_string(b) +
                                    "); the run must compute transport");
    if (m_augmentedTerm && (!context.augmented.defined() || context.augmented.sizes() != emb.sizes()))
        throw std::invalid_argument("wsset: augmented-term needs the augmented view's embeddings (same shape as the "
                                    "embeddings); the run must have an augmentation");

    const torch::Device dev = emb.device();
    const auto boolOpts = torch::TensorOptions().dtype(torch::kBool).device(dev);
    const torch::Tensor emd = context.emd.detach().to(dev, torch::kFloat64);
    const torch::Tensor d2 = d2In.detach();

    Triplets t;
    // σ over the pairs i < j, population form (divide by the number of pairs).
    const torch::Tensor pairs = emd.masked_select(torch::ones({b, b}, boolOpts).triu(1));
    if (pairs.numel() > 0)
        t.sigma = (pairs - pairs.mean()).pow(2).mean().sqrt().item<double>();

    const torch::Tensor positive = nearestOther(emd);
    torch::Tensor anchor = positive >= 0;
    const torch::Tensor posIdx = positive.clamp_min(0).unsqueeze(1); // B x 1, safe for gather
    if (m_positivePercentile < 100.0 && pairs.numel() > 0) {
        // Linear interpolation between order statistics (NumPy's default percentile).
        const torch::Tensor sorted = std::get<0>(pairs.sort());
        const double rank = m_positivePercentile / 100.0 * double(sorted.numel() - 1);
        const auto lo = static_cast<std::int64_t>(std::floor(rank));
        const auto hi = std::min<std::int64_t>(lo + 1, sorted.numel() - 1);
        const double vLo = sorted[lo].item<double>();
        const double threshold = vLo + (rank - double(lo)) * (sorted[hi].item<double>() - vLo);
        anchor = anchor & (emd.gather(1, posIdx).squeeze(1) < threshold); // strict, as the WSSET code
    }

    // Candidates for a negative: every set of the batch but the anchor and its positive.
    const torch::Tensor eye = torch::eye(b, boolOpts);
    const torch::Tensor isPositive = torch::zeros({b, b}, boolOpts).scatter(1, posIdx, true);
    const torch::Tensor candidates = ~eye & ~isPositive & (positive >= 0).unsqueeze(1);

    const bool useWeights = m_weighted && std::isfinite(t.sigma) && t.sigma > 0.0;
    const double denom = 2.0 * (m_c * t.sigma) * (m_c * t.sigma);
    const auto weightsOf = [&](const torch::Tensor& negative) {
        if (!useWeights)
            return torch::ones({b}, torch::TensorOptions().dtype(torch::kFloat32).device(dev));
        const torch::Tensor emdNeg = emd.gather(1, negative.clamp_min(0).unsqueeze(1)).squeeze(1);
        return torch::exp(-emdNeg / denom).to(torch::kFloat32);
    };

    const torch::Tensor dap = d2.gather(1, posIdx).squeeze(1);
    const torch::Tensor negative = semiHardNegatives(d2, dap, candidates);
    anchor = anchor & (negative >= 0);
    torch::Tensor augNegative;
    if (m_augmentedTerm) {
        const torch::Tensor daa = (emb.detach() - context.augmented.detach()).pow(2).sum(1);
        augNegative = semiHardNegatives(d2, daa, candidates);
        anchor = anchor & (augNegative >= 0); // same candidates, so the same rows have one
    }

    const torch::Tensor none = torch::full({b}, -1, torch::TensorOptions().dtype(torch::kInt64).device(dev));
    const torch::Tensor zero = torch::zeros({b}, torch::TensorOptions().dtype(torch::kFloat32).device(dev));
    t.anchor = anchor;
    t.positive = torch::where(anchor, positive, none);
    t.negative = torch::where(anchor, negative, none);
    t.weight = torch::where(anchor, weightsOf(negative), zero);
    if (m_augmentedTerm) {
        t.augmentedNegative = torch::where(anchor, augNegative, none);
        t.augmentedWeight = torch::where(anchor, weightsOf(augNegative), zero);
    }
    return t;
}

sdk::LossOutput SelfSupervisedTripletLoss::forward(const sdk::LossContext& context)
{
    const torch::Tensor& emb = context.embeddings;
    if (!emb.defined() || emb.dim() != 2)
        throw std::invalid_argument("wsset: the embeddings must be a B x E tensor");
    sdk::LossOutput out;
    if (emb.size(0) < 3) {
        out.loss = emb.sum() * 0.0; // no set left for a negative; keeps the graph
        return out;
    }
    const torch::Tensor d2 = pairwiseSquaredDistances(emb);
    const Triplets t = mineOn(d2, context);
    const std::int64_t anchors = t.anchor.sum().item<std::int64_t>();
    if (anchors == 0) {
        out.loss = emb.sum() * 0.0;
        return out;
    }

    const auto term = [&](const torch::Tensor& dPositive, const torch::Tensor& negative, const torch::Tensor& weight) {
        const torch::Tensor dNegative = d2.gather(1, negative.clamp_min(0).unsqueeze(1)).squeeze(1);
        const torch::Tensor per = torch::relu(dPositive - weight.to(emb.dtype()) * dNegative + m_margin);
        return per.masked_select(t.anchor);
    };
    const torch::Tensor first = term(d2.gather(1, t.positive.clamp_min(0).unsqueeze(1)).squeeze(1), t.negative, t.weight);
    torch::Tensor sum = first.sum();
    out.activeTerms = (first > 0).sum().item<std::int64_t>();
    out.terms = anchors;
    if (m_augmentedTerm) {
        const torch::Tensor daa = (emb - context.augmented).pow(2).sum(1);
        const torch::Tensor second = term(daa, t.augmentedNegative, t.augmentedWeight);
        sum = sum + second.sum();
        out.activeTerms += (second > 0).sum().item<std::int64_t>();
        out.terms = 2 * anchors; // seed 001 Eq. 7: 1/(2n̂) Σ (term1 + term2)
    }
    out.loss = sum / static_cast<double>(out.terms);
    return out;
}

} // namespace setscope::losses
