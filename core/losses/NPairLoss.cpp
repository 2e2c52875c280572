// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/NPairLoss.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

namespace setscope::losses {

sdk::OptionSchema NPairLoss::schema()
{
    return {
        sdk::OptionSpec::choice("positive", "label", {"label", "augmented"},
                                "label: pairs of same-label rows, other classes' positives as negatives; augmented: "
                                "each set's augmented view is its positive"),
        sdk::OptionSpec::real("l2", 0.0, 0, 1e6,
                              "weight of the N-pair paper's L2 regulariser on the embedding norms (not in seed 002; 0 = off)"),
    };
}

NPairLoss::NPairLoss(const sdk::LossSpec& spec)
    : m_positive(spec.options.text("positive") == "augmented" ? Positive::Augmented : Positive::Label)
    , m_l2(spec.options.real("l2"))
{
    if (!(m_l2 >= 0.0) || !std::isfinite(m_l2))
        throw std::invalid_argument("npair: l2 must be a finite number >= 0");
}

sdk::LossOutput NPairLoss::compute(const torch::Tensor& anchors, const torch::Tensor& positives,
                                   const torch::Tensor& pairLabels) const
{
    namespace F = torch::nn::functional;
    const auto n = anchors.size(0);
    sdk::LossOutput out;
    const torch::Tensor labels = pairLabels.to(anchors.device(), torch::kInt64);
    const torch::Tensor eye = torch::eye(n, torch::TensorOptions().dtype(torch::kBool).device(anchors.device()));
    // A pair of the same class is not a negative: -inf drops it from the softmax.
    const torch::Tensor sameClass = (labels.unsqueeze(1) == labels.unsqueeze(0)) & eye.logical_not();
    const torch::Tensor hasNegative = (labels.unsqueeze(1) != labels.unsqueeze(0)).any(1);
    out.terms = n > 0 ? hasNegative.sum().item<std::int64_t>() : 0;
    torch::Tensor loss = anchors.sum() * 0.0 + positives.sum() * 0.0;
    if (out.terms > 0) {
        const torch::Tensor logits =
            anchors.matmul(positives.t()).masked_fill(sameClass, -std::numeric_limits<double>::infinity());
        const torch::Tensor target = torch::arange(n, torch::TensorOptions().dtype(torch::kInt64).device(anchors.device()));
        const torch::Tensor per = F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().reduction(torch::kNone))
                                      .masked_select(hasNegative);
        out.activeTerms = (per > 0).sum().item<std::int64_t>();
        loss = per.mean();
    }
    if (m_l2 > 0.0 && n > 0)
        loss = loss + m_l2 * (anchors.pow(2).sum(1) + positives.pow(2).sum(1)).mean();
    out.loss = loss;
    return out;
}

sdk::LossOutput NPairLoss::forward(const sdk::LossContext& context)
{
    const torch::Tensor& emb = context.embeddings;
    if (!emb.defined() || emb.dim() != 2)
        throw std::invalid_argument("npair: the embeddings must be a B x E tensor");
    const auto b = emb.size(0);
    if (m_positive == Positive::Augmented) {
        if (!context.augmented.defined() || context.augmented.sizes() != emb.sizes())
            throw std::invalid_argument("npair: positive=augmented needs the augmented view's embeddings (same shape as the "
                                        "embeddings); the run must have an augmentation");
        return compute(emb, context.augmented,
                       torch::arange(b, torch::TensorOptions().dtype(torch::kInt64).device(emb.device())));
    }
    if (!context.labels.defined() || context.labels.dim() != 1 || context.labels.size(0) != b)
        throw std::invalid_argument("npair: needs the batch's labels (B int64, -1 = unlabelled)");
    // Pairs within each class in batch order: a small host-side pass over B labels.
    const torch::Tensor labelsCpu = context.labels.to(torch::kCPU, torch::kInt64).contiguous();
    const std::int64_t* y = labelsCpu.data_ptr<std::int64_t>();
    std::map<std::int64_t, std::int64_t> waiting; // label -> row waiting for its partner
    std::vector<std::int64_t> a, p, pl;
    for (std::int64_t i = 0; i < b; ++i) {
        if (y[i] < 0)
            continue;
        const auto it = waiting.find(y[i]);
        if (it == waiting.end()) {
            waiting.emplace(y[i], i);
            continue;
        }
        a.push_back(it->second);
        p.push_back(i);
        pl.push_back(y[i]);
        waiting.erase(it);
    }
    if (a.empty()) {
        sdk::LossOutput out;
        out.loss = emb.sum() * 0.0;
        return out;
    }
    const auto idx = [&](const std::vector<std::int64_t>& v) { return torch::tensor(v, torch::kInt64).to(emb.device()); };
    return compute(emb.index_select(0, idx(a)), emb.index_select(0, idx(p)), idx(pl));
}

sdk::LossInfo npairLossInfo()
{
    return {"npair",
            "multi-class N-pair loss: other pairs' positives as negatives (seed 002, N Pair Loss)",
            NPairLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<NPairLoss>(s); }};
}

} // namespace setscope::losses
