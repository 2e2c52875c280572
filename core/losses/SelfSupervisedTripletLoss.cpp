// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/SelfSupervisedTripletLoss.h"

#include "core/losses/Mining.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace setscope::losses {

sdk::OptionSchema SelfSupervisedTripletLoss::schema(const std::string& defaultForm)
{
    return {
        sdk::OptionSpec::flag("weighted", true,
                              "weight each negative by w(a,n) (WSSET, seed 000 Eq. 2-3); false: SSET (Eq. 1)"),
        sdk::OptionSpec::choice("form", defaultForm, {"paper", "authors"},
                                "paper: Eq. 3 as printed (EMD / 2(7σ)², σ of the batch, plain semi-hard); authors: the "
                                "public WSSET code (EMD² / 2(12σ_row)², weighted semi-hard, positives below the 20th "
                                "percentile); each part below overrides it"),
        sdk::OptionSpec::real("margin", kDefaultMargin, 0, 1e6, "the margin α between positive and negative distances"),
        sdk::OptionSpec::real("c", 0, 0, 1e6, "the scale c of σ in the weight; 0 = the form's (paper 7, authors 12)"),
        sdk::OptionSpec::choice("exponent", "form", {"form", "emd", "emd-squared"},
                                "the weight's exponent: -EMD / 2(cσ)² (paper) or -EMD² / 2(cσ)² (authors)"),
        sdk::OptionSpec::choice("sigma", "form", {"form", "batch", "row"},
                                "σ of the weight: over the batch's pairs (paper) or over the anchor's row (authors)"),
        sdk::OptionSpec::choice("negatives", "form", {"form", "plain", "weighted"},
                                "the semi-hard negative chosen on d (paper) or on w·d with the positive's w·d (authors)"),
        sdk::OptionSpec::real("positive-percentile", -1, -1, 100,
                              "q: keep an anchor only when the EMD to its positive is below the q-th percentile of the "
                              "batch's EMDs; 100 keeps all; -1 = the form's (paper 100, authors 20)"),
        sdk::OptionSpec::choice("percentile-of", "form", {"form", "pairs", "matrix"},
                                "the percentile over the pairs i < j, interpolated (paper) or over the B x B matrix, "
                                "nearest rank (authors)"),
        sdk::OptionSpec::flag("augmented-term", false,
                              "add the augmented view x'ᵃ as a second positive with its own semi-hard negative and "
                              "weight w' (seed 001 Eq. 7)"),
    };
}

namespace {

/// `given` unless it is "form", else the paper's or the authors' choice.
bool pick(const std::string& given, const std::string& whenTrue, bool authors, bool authorsValue)
{
    return given == "form" ? (authors ? authorsValue : !authorsValue) : given == whenTrue;
}

/// tfp.stats.percentile(x, q) with its default nearest rank: of the values sorted from the
/// largest down, the one at round_half_even((n - 1)(1 - q/100)).
double nearestRankPercentile(const torch::Tensor& sortedAscending, double q)
{
    const auto n = sortedAscending.numel();
    const double pos = double(n - 1) * (1.0 - q / 100.0);
    auto down = static_cast<std::int64_t>(std::nearbyint(pos)); // FE_TONEAREST: ties to even
    down = std::clamp<std::int64_t>(down, 0, n - 1);
    return sortedAscending[n - 1 - down].item<double>();
}

/// NumPy's default percentile: linear interpolation between order statistics.
double interpolatedPercentile(const torch::Tensor& sortedAscending, double q)
{
    const double rank = q / 100.0 * double(sortedAscending.numel() - 1);
    const auto lo = static_cast<std::int64_t>(std::floor(rank));
    const auto hi = std::min<std::int64_t>(lo + 1, sortedAscending.numel() - 1);
    const double vLo = sortedAscending[lo].item<double>();
    return vLo + (rank - double(lo)) * (sortedAscending[hi].item<double>() - vLo);
}

} // namespace

SelfSupervisedTripletLoss::SelfSupervisedTripletLoss(const sdk::LossSpec& spec)
    : m_weighted(spec.options.flag("weighted"))
    , m_form(spec.options.text("form"))
    , m_margin(spec.options.real("margin"))
    , m_augmentedTerm(spec.options.flag("augmented-term"))
{
    if (m_form != "paper" && m_form != "authors")
        throw std::invalid_argument("wsset: form must be paper or authors, not '" + m_form + "'");
    const bool authors = m_form == "authors";
    const double c = spec.options.real("c");
    m_c = c == 0.0 ? (authors ? kAuthorsC : kPaperC) : c;
    m_squaredExponent = pick(spec.options.text("exponent"), "emd-squared", authors, true);
    m_rowSigma = pick(spec.options.text("sigma"), "row", authors, true);
    m_weightedNegatives = pick(spec.options.text("negatives"), "weighted", authors, true);
    m_percentileOfMatrix = pick(spec.options.text("percentile-of"), "matrix", authors, true);
    const double q = spec.options.real("positive-percentile");
    m_positivePercentile = q == -1.0 ? (authors ? kAuthorsPercentile : 100.0) : q;
    if (!(m_margin >= 0.0))
        throw std::invalid_argument("wsset: margin must be >= 0");
    if (!(m_c > 0.0) || !std::isfinite(m_c))
        throw std::invalid_argument("wsset: c must be a finite number > 0 (or 0 for the form's)");
    if (!(m_positivePercentile >= 0.0 && m_positivePercentile <= 100.0))
        throw std::invalid_argument("wsset: positive-percentile must lie in [0, 100] (or -1 for the form's)");
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
    const auto f64 = torch::TensorOptions().dtype(torch::kFloat64).device(dev);
    const torch::Tensor emd = context.emd.detach().to(dev, torch::kFloat64);
    const torch::Tensor d2 = d2In.detach().to(torch::kFloat64);

    Triplets t;
    // σ over the pairs i < j, population form (divide by the number of pairs).
    const torch::Tensor pairs = emd.masked_select(torch::ones({b, b}, boolOpts).triu(1));
    if (pairs.numel() > 0)
        t.sigma = (pairs - pairs.mean()).pow(2).mean().sqrt().item<double>();
    // σ of each anchor's weights: the batch's, or the population σ of its own row (self included).
    t.anchorSigma = m_rowSigma ? (emd - emd.mean(1, /*keepdim=*/true)).pow(2).mean(1).sqrt()
                               : torch::full({b}, t.sigma, f64);

    const torch::Tensor positive = nearestOther(emd);
    torch::Tensor anchor = positive >= 0;
    const torch::Tensor posIdx = positive.clamp_min(0).unsqueeze(1); // B x 1, safe for gather
    t.threshold = std::numeric_limits<double>::infinity();
    if (m_positivePercentile < 100.0 && pairs.numel() > 0) {
        t.threshold = m_percentileOfMatrix
                          ? nearestRankPercentile(std::get<0>(emd.reshape({-1}).sort()), m_positivePercentile)
                          : interpolatedPercentile(std::get<0>(pairs.sort()), m_positivePercentile);
        anchor = anchor & (emd.gather(1, posIdx).squeeze(1) < t.threshold); // strict, as the WSSET code
    }

    // Candidates for a negative: every set of the batch but the anchor and its positive.
    const torch::Tensor eye = torch::eye(b, boolOpts);
    const torch::Tensor isPositive = torch::zeros({b, b}, boolOpts).scatter(1, posIdx, true);
    const torch::Tensor candidates = ~eye & ~isPositive & (positive >= 0).unsqueeze(1);

    // w(a, j) for every pair; 1 in the rows whose σ is 0 or not finite, and everywhere when not weighted.
    torch::Tensor w = torch::ones({b, b}, f64);
    if (m_weighted) {
        const torch::Tensor s = t.anchorSigma.unsqueeze(1);
        const torch::Tensor usable = torch::isfinite(s) & (s > 0);
        const torch::Tensor e = m_squaredExponent ? emd * emd : emd;
        const torch::Tensor denom = 2.0 * (m_c * s).pow(2);
        w = torch::where(usable.expand({b, b}), torch::exp(-e / torch::where(usable, denom, torch::ones_like(denom))), w);
    }
    const torch::Tensor weightOf = w.to(torch::kFloat32);

    // The distances the semi-hard choice compares: d, or w·d with the positive's own w·d.
    const torch::Tensor ranked = m_weighted && m_weightedNegatives ? w * d2 : d2;
    const torch::Tensor dap = ranked.gather(1, posIdx).squeeze(1);
    const torch::Tensor negative = semiHardNegatives(ranked, dap, candidates);
    anchor = anchor & (negative >= 0);
    torch::Tensor augNegative;
    if (m_augmentedTerm) {
        // The view's own weight is 1: its EMD to the anchor is not computed.
        const torch::Tensor daa = (emb.detach() - context.augmented.detach()).pow(2).sum(1).to(torch::kFloat64);
        augNegative = semiHardNegatives(ranked, daa, candidates);
        anchor = anchor & (augNegative >= 0); // same candidates, so the same rows have one
    }

    const torch::Tensor none = torch::full({b}, -1, torch::TensorOptions().dtype(torch::kInt64).device(dev));
    const torch::Tensor zero = torch::zeros({b}, torch::TensorOptions().dtype(torch::kFloat32).device(dev));
    const auto weightsOf = [&](const torch::Tensor& n) { return weightOf.gather(1, n.clamp_min(0).unsqueeze(1)).squeeze(1); };
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

sdk::LossInfo wssetLossInfo()
{
    return {"wsset",
            "WSSET: EMD-nearest positive, semi-hard negative weighted by w(a,n) (seed 000 Eq. 2-3, seed 001 "
            "Eq. 4-5), as printed (form paper) or as the authors' code runs it (form authors); "
            "augmented-term adds the PointSwap term of Eq. 7",
            SelfSupervisedTripletLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> {
                return std::make_shared<SelfSupervisedTripletLoss>(s);
            }};
}

sdk::LossInfo ssetLossInfo()
{
    sdk::OptionSchema schema = SelfSupervisedTripletLoss::schema();
    for (sdk::OptionSpec& o : schema)
        if (o.name == "weighted")
            o.defaultValue = "false";
    return {"sset", "SSET: the self-supervised EMD triplet loss without weights (seed 000 Eq. 1)", std::move(schema),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> {
                return std::make_shared<SelfSupervisedTripletLoss>(s);
            }};
}

} // namespace setscope::losses
