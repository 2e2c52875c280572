// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/CosineTripletLoss.h"

#include "core/losses/Mining.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

namespace setscope::losses {

sdk::OptionSchema CosineTripletLoss::schema()
{
    return {
        sdk::OptionSpec::real("margin", kDefaultMargin, 0, 2, "M: the gap D(x, x⁻) >= D(x, x⁺) + M (seed 002: M = 0.5)"),
        sdk::OptionSpec::choice("positive", "label", {"label", "augmented"},
                                "label: same-label pairs of the batch; augmented: each set's augmented view"),
        sdk::OptionSpec::choice("mining", "semi-hard", {"semi-hard", "all"},
                                "semi-hard: one negative per pair (FaceNet's rule on D); all: every negative"),
    };
}

CosineTripletLoss::CosineTripletLoss(const sdk::LossSpec& spec)
    : m_margin(spec.options.real("margin"))
    , m_positive(spec.options.text("positive") == "augmented" ? Positive::Augmented : Positive::Label)
    , m_mining(spec.options.text("mining") == "all" ? Mining::All : Mining::SemiHard)
{
    if (!(m_margin >= 0.0) || !std::isfinite(m_margin))
        throw std::invalid_argument("cosine-triplet: margin must be a finite number >= 0");
}

torch::Tensor CosineTripletLoss::cosineDistances(const torch::Tensor& x, const torch::Tensor& y)
{
    namespace F = torch::nn::functional;
    const auto opt = F::NormalizeFuncOptions().dim(1).eps(1e-12);
    return 1.0 - F::normalize(x, opt).matmul(F::normalize(y, opt).t());
}

sdk::LossOutput CosineTripletLoss::forward(const sdk::LossContext& context)
{
    const torch::Tensor& emb = context.embeddings;
    if (!emb.defined() || emb.dim() != 2)
        throw std::invalid_argument("cosine-triplet: the embeddings must be a B x E tensor");
    const auto b = emb.size(0);
    const auto boolOpts = torch::TensorOptions().dtype(torch::kBool).device(emb.device());
    // dPos: A x P distances of the anchor-positive terms (valid where `positive`), dNeg: A x N
    // distances of the candidates (valid where `negative`).
    torch::Tensor dPos, positive, dNeg, negative;
    if (m_positive == Positive::Augmented) {
        if (!context.augmented.defined() || context.augmented.sizes() != emb.sizes())
            throw std::invalid_argument("cosine-triplet: positive=augmented needs the augmented view's embeddings (same shape "
                                        "as the embeddings); the run must have an augmentation");
        dPos = (1.0 - torch::nn::functional::cosine_similarity(
                          emb, context.augmented, torch::nn::functional::CosineSimilarityFuncOptions().dim(1).eps(1e-12)))
                   .unsqueeze(1); // B x 1
        positive = torch::ones({b, 1}, boolOpts);
        dNeg = cosineDistances(emb, emb);
        negative = torch::eye(b, boolOpts).logical_not();
    } else {
        if (!context.labels.defined() || context.labels.dim() != 1 || context.labels.size(0) != b)
            throw std::invalid_argument("cosine-triplet: needs the batch's labels (B int64, -1 = unlabelled)");
        const PairMasks m = pairMasks(context.labels.to(emb.device(), torch::kInt64));
        dPos = cosineDistances(emb, emb);
        dNeg = dPos;
        positive = m.positive;
        negative = m.negative;
    }
    sdk::LossOutput out;
    torch::Tensor per;
    if (m_mining == Mining::All) {
        // A x P x N: every (anchor, positive, negative) with both masks set.
        const torch::Tensor valid = positive.unsqueeze(2) & negative.unsqueeze(1);
        per = torch::relu(dPos.unsqueeze(2) - dNeg.unsqueeze(1) + m_margin).masked_select(valid);
    } else {
        // For each (a, p), Mining's semi-hard rule on the anchor's row of candidate distances.
        const torch::Tensor pairs = positive.nonzero(); // T x 2: (a, p)
        if (pairs.size(0) > 0) {
            const torch::Tensor a = pairs.select(1, 0);
            const torch::Tensor p = pairs.select(1, 1);
            const torch::Tensor dap = dPos.index({a, p});
            const torch::Tensor rows = dNeg.index_select(0, a);
            const torch::Tensor n = semiHardNegatives(rows.detach(), dap.detach(), negative.index_select(0, a));
            const torch::Tensor has = n >= 0;
            const torch::Tensor dan = rows.gather(1, n.clamp_min(0).unsqueeze(1)).squeeze(1);
            per = torch::relu(dap - dan + m_margin).masked_select(has);
        }
    }
    out.terms = per.defined() ? per.numel() : 0;
    if (out.terms == 0) {
        out.loss = emb.sum() * 0.0;
        return out;
    }
    out.activeTerms = (per > 0).sum().item<std::int64_t>();
    out.loss = per.mean();
    return out;
}

sdk::LossInfo cosineTripletLossInfo()
{
    return {"cosine-triplet",
            "triplet loss on the cosine distance, margin M = 0.5 (seed 002, Video Processing)",
            CosineTripletLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<CosineTripletLoss>(s); }};
}

} // namespace setscope::losses
