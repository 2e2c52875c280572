// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/ExemplarLoss.h"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace setscope::losses {

sdk::OptionSchema ExemplarLoss::schema()
{
    return {sdk::OptionSpec::flag("use-augmented", true,
                                  "also classify each augmented view as its set's own class (Exemplar surrogate "
                                  "classes)")};
}

ExemplarLoss::ExemplarLoss(const sdk::LossSpec& spec)
    : m_useAugmented(spec.options.flag("use-augmented"))
    , m_datasetSize(spec.datasetSize)
{
    if (spec.datasetSize < 2)
        throw std::invalid_argument("exemplar: needs a dataset of at least 2 items (each item is its own class), got " +
                                    std::to_string(spec.datasetSize));
    if (spec.embeddingDim < 1)
        throw std::invalid_argument("exemplar: the embedding dimension must be >= 1, got " +
                                    std::to_string(spec.embeddingDim));
    m_classifier = register_module("classifier", torch::nn::Linear(spec.embeddingDim, spec.datasetSize));
}

sdk::LossOutput ExemplarLoss::forward(const sdk::LossContext& context)
{
    namespace F = torch::nn::functional;
    const torch::Tensor& emb = context.embeddings;
    if (!emb.defined() || emb.dim() != 2 || emb.size(1) != m_classifier->options.in_features())
        throw std::invalid_argument("exemplar: the embeddings must be B x " +
                                    std::to_string(m_classifier->options.in_features()));
    const auto b = emb.size(0);
    if (!context.items.defined() || context.items.dim() != 1 || context.items.size(0) != b)
        throw std::invalid_argument("exemplar: needs the batch's dataset indices (items, B int64)");
    if (m_useAugmented && (!context.augmented.defined() || context.augmented.sizes() != emb.sizes()))
        throw std::invalid_argument("exemplar: use-augmented needs the augmented view's embeddings (same shape as the "
                                    "embeddings); the run must have an augmentation, or set use-augmented=false");
    sdk::LossOutput out;
    if (b == 0) {
        out.loss = emb.sum() * 0.0;
        return out;
    }
    const torch::Tensor items = context.items.to(emb.device(), torch::kInt64);
    const auto lo = items.min().item<std::int64_t>();
    const auto hi = items.max().item<std::int64_t>();
    if (lo < 0 || hi >= m_datasetSize)
        throw std::invalid_argument("exemplar: item index " + std::to_string(lo < 0 ? lo : hi) + " outside [0, " +
                                    std::to_string(m_datasetSize) + "): the loss was built for a dataset of " +
                                    std::to_string(m_datasetSize) + " items");
    const torch::Tensor x = m_useAugmented ? torch::cat({emb, context.augmented}, 0) : emb;
    const torch::Tensor target = m_useAugmented ? torch::cat({items, items}) : items;
    const torch::Tensor per =
        F::cross_entropy(m_classifier->forward(x), target, F::CrossEntropyFuncOptions().reduction(torch::kNone));
    out.terms = per.size(0);
    out.activeTerms = (per > 0).sum().item<std::int64_t>();
    out.loss = per.mean();
    return out;
}

sdk::LossInfo exemplarLossInfo()
{
    return {"exemplar",
            "Exemplar: a classifier with one class per set, on the set and its augmented view",
            ExemplarLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<ExemplarLoss>(s); }};
}

} // namespace setscope::losses
