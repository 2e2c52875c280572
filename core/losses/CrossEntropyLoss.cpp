// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/CrossEntropyLoss.h"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace setscope::losses {

sdk::OptionSchema CrossEntropyLoss::schema() { return {}; }

CrossEntropyLoss::CrossEntropyLoss(const sdk::LossSpec& spec)
    : m_numClasses(spec.numClasses)
{
    if (spec.numClasses < 2)
        throw std::invalid_argument("cross-entropy: needs a label set with at least 2 classes, got " +
                                    std::to_string(spec.numClasses) + " (does the run have a supervising label set?)");
    if (spec.embeddingDim < 1)
        throw std::invalid_argument("cross-entropy: the embedding dimension must be >= 1, got " +
                                    std::to_string(spec.embeddingDim));
    m_classifier = register_module("classifier", torch::nn::Linear(spec.embeddingDim, spec.numClasses));
}

sdk::LossOutput CrossEntropyLoss::forward(const sdk::LossContext& context)
{
    namespace F = torch::nn::functional;
    const torch::Tensor& emb = context.embeddings;
    if (!emb.defined() || emb.dim() != 2 || emb.size(1) != m_classifier->options.in_features())
        throw std::invalid_argument("cross-entropy: the embeddings must be B x " +
                                    std::to_string(m_classifier->options.in_features()));
    if (!context.labels.defined() || context.labels.dim() != 1 || context.labels.size(0) != emb.size(0))
        throw std::invalid_argument("cross-entropy: needs the batch's labels (B int64, -1 = unlabelled)");
    const torch::Tensor labels = context.labels.to(emb.device(), torch::kInt64);
    const torch::Tensor labelled = labels >= 0;
    sdk::LossOutput out;
    out.terms = labelled.sum().item<std::int64_t>();
    if (out.terms == 0) {
        out.loss = emb.sum() * 0.0;
        return out;
    }
    const auto lo = labels.min().item<std::int64_t>();
    const auto hi = labels.max().item<std::int64_t>();
    if (lo < -1 || hi >= m_numClasses)
        throw std::invalid_argument("cross-entropy: label " + std::to_string(lo < -1 ? lo : hi) + " outside [0, " +
                                    std::to_string(m_numClasses) + ") (and -1 for unlabelled)");
    const torch::Tensor rows = labelled.nonzero().squeeze(1);
    const torch::Tensor per = F::cross_entropy(m_classifier->forward(emb.index_select(0, rows)),
                                               labels.index_select(0, rows),
                                               F::CrossEntropyFuncOptions().reduction(torch::kNone));
    out.activeTerms = (per > 0).sum().item<std::int64_t>();
    out.loss = per.mean();
    return out;
}

sdk::LossInfo crossEntropyLossInfo()
{
    return {"cross-entropy",
            "cross-entropy through a linear classifier on the embedding (the +CE rows)",
            CrossEntropyLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<CrossEntropyLoss>(s); }};
}

} // namespace setscope::losses
