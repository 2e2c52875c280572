// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/UniformityLoss.h"

#include "core/util/Text.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace setscope::losses {

namespace {

UniformityLoss::Penalty penaltyFromName(const std::string& name)
{
    if (name == "kl")
        return UniformityLoss::Penalty::Kl;
    if (name == "threshold")
        return UniformityLoss::Penalty::Threshold;
    if (name == "l2")
        return UniformityLoss::Penalty::L2;
    throw std::invalid_argument("uniformity: penalty must be kl, threshold or l2, got '" + name + "'");
}


} // namespace

sdk::OptionSchema UniformityLoss::schema()
{
    return {
        sdk::OptionSpec::integer("classes", 0, 0, 1e6,
                                 "C: the guessed number of fine classes, >= the coarse classes (seed 003 §3.1); 0 = twice "
                                 "the coarse classes"),
        sdk::OptionSpec::text("groups", "",
                              "outputs owned by each coarse class, a comma list summing to C (\"\" = as equal as "
                              "possible, the remainder to the first classes)"),
        sdk::OptionSpec::real("lambda", kDefaultLambda, 0, 1e6, "λ: the weight of the penalty (seed 003 Eq. 1)"),
        sdk::OptionSpec::choice("penalty", "kl", {"kl", "threshold", "l2"},
                                "kl: KL(p̄ ‖ uniform C) (seed 003 Eq. 2); threshold: Σ max(p̄_c - τ, 0); l2: mean "
                                "squared logits (both seed 003 §3.5)"),
        sdk::OptionSpec::real("tau", kDefaultTau, 0, 1, "τ: the over-use share of the threshold penalty (seed 003 §3.5)"),
        sdk::OptionSpec::real("confidence", 0.0, 0, 1e6,
                              "β: weight of the mean per-row softmax entropy (not in seed 003; > 0 makes each coarse "
                              "class split into confident fine outputs)"),
    };
}

std::vector<std::int64_t> UniformityLoss::parseGroups(const std::string& text, std::int64_t coarse, std::int64_t fine)
{
    if (coarse < 1)
        throw std::invalid_argument("uniformity: needs at least one coarse class");
    if (fine < coarse)
        throw std::invalid_argument("uniformity: classes C = " + std::to_string(fine) + " is smaller than the " +
                                    std::to_string(coarse) +
                                    " coarse classes of the label set; each coarse class needs at least one output");
    std::vector<std::int64_t> groups;
    if (util::trimmed(text).empty()) {
        const std::int64_t base = fine / coarse;
        const std::int64_t extra = fine % coarse;
        for (std::int64_t k = 0; k < coarse; ++k)
            groups.push_back(base + (k < extra ? 1 : 0));
        return groups;
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = util::trimmed(text.substr(start, comma - start));
        std::int64_t v = 0;
        std::size_t used = 0;
        try {
            v = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size())
            throw std::invalid_argument("uniformity: groups '" + text + "': '" + item + "' is not a whole number");
        if (v < 1)
            throw std::invalid_argument("uniformity: groups '" + text + "': every coarse class needs at least one output, got " +
                                        std::to_string(v));
        groups.push_back(v);
        start = comma + 1;
    }
    if (static_cast<std::int64_t>(groups.size()) != coarse)
        throw std::invalid_argument("uniformity: groups '" + text + "' has " + std::to_string(groups.size()) +
                                    " entries, the label set has " + std::to_string(coarse) + " coarse classes");
    const std::int64_t sum = std::accumulate(groups.begin(), groups.end(), std::int64_t(0));
    if (sum != fine)
        throw std::invalid_argument("uniformity: groups '" + text + "' sum to " + std::to_string(sum) + ", not to classes C = " +
                                    std::to_string(fine));
    return groups;
}

UniformityLoss::UniformityLoss(const sdk::LossSpec& spec)
    : m_numCoarse(spec.numClasses)
    , m_fine(spec.options.integer("classes") == 0 ? 2 * spec.numClasses : spec.options.integer("classes"))
    , m_lambda(spec.options.real("lambda"))
    , m_tau(spec.options.real("tau"))
    , m_confidence(spec.options.real("confidence"))
    , m_penalty(penaltyFromName(spec.options.text("penalty")))
{
    if (spec.numClasses < 1)
        throw std::invalid_argument("uniformity: needs a label set of coarse classes, got " + std::to_string(spec.numClasses) +
                                    " classes (does the run have a supervising label set?)");
    if (spec.embeddingDim < 1)
        throw std::invalid_argument("uniformity: the embedding dimension must be >= 1, got " +
                                    std::to_string(spec.embeddingDim));
    if (!(m_lambda >= 0.0) || !std::isfinite(m_lambda))
        throw std::invalid_argument("uniformity: lambda must be a finite number >= 0");
    if (!(m_confidence >= 0.0) || !std::isfinite(m_confidence))
        throw std::invalid_argument("uniformity: confidence must be a finite number >= 0");
    m_groups = parseGroups(spec.options.text("groups"), m_numCoarse, m_fine);
    torch::Tensor mask = torch::zeros({m_numCoarse, m_fine}, torch::kBool);
    std::int64_t start = 0;
    for (std::int64_t k = 0; k < m_numCoarse; ++k) {
        mask[k].narrow(0, start, m_groups[std::size_t(k)]).fill_(true);
        start += m_groups[std::size_t(k)];
    }
    // Not a registered buffer: it follows from the options, and Module::to(dtype) would cast it.
    m_groupMask = mask;
    m_classifier = register_module("classifier", torch::nn::Linear(spec.embeddingDim, m_fine));
}

std::int64_t UniformityLoss::coarseOf(std::int64_t c) const
{
    if (c < 0 || c >= m_fine)
        throw std::out_of_range("uniformity: output " + std::to_string(c) + " outside [0, " + std::to_string(m_fine) + ")");
    std::int64_t end = 0;
    for (std::size_t k = 0; k < m_groups.size(); ++k) {
        end += m_groups[k];
        if (c < end)
            return static_cast<std::int64_t>(k);
    }
    return m_numCoarse - 1; // unreachable: the groups sum to C
}

torch::Tensor UniformityLoss::logits(const torch::Tensor& emb)
{
    if (!emb.defined() || emb.dim() != 2 || emb.size(1) != m_classifier->options.in_features())
        throw std::invalid_argument("uniformity: the embeddings must be B x " +
                                    std::to_string(m_classifier->options.in_features()));
    return m_classifier->forward(emb);
}

torch::Tensor UniformityLoss::fineProbabilities(const torch::Tensor& emb) { return torch::softmax(logits(emb), 1); }

torch::Tensor UniformityLoss::groupedCrossEntropy(const torch::Tensor& f, const torch::Tensor& labels) const
{
    // -log Σ_{c in G(y)} softmax_c = logsumexp(f) - logsumexp(f over G(y)); the outputs outside
    // the group are -inf in the second, which gives them an exact zero weight and gradient.
    const torch::Tensor inGroup = m_groupMask.to(f.device()).index_select(0, labels);
    const torch::Tensor grouped = f.masked_fill(inGroup.logical_not(), -std::numeric_limits<double>::infinity());
    return torch::logsumexp(f, 1) - torch::logsumexp(grouped, 1);
}

torch::Tensor UniformityLoss::penaltyOf(const torch::Tensor& f) const
{
    switch (m_penalty) {
    case Penalty::Kl: {
        const torch::Tensor pbar = torch::softmax(f, 1).mean(0);
        // p̄ log p̄ -> 0 as p̄ -> 0; the clamp only keeps log finite where a share underflowed.
        return (pbar * (pbar.clamp_min(1e-30).log() + std::log(static_cast<double>(m_fine)))).sum();
    }
    case Penalty::Threshold:
        return torch::relu(torch::softmax(f, 1).mean(0) - m_tau).sum();
    case Penalty::L2:
        return f.pow(2).sum(1).mean();
    }
    return f.sum() * 0.0;
}

torch::Tensor UniformityLoss::meanEntropy(const torch::Tensor& f)
{
    return -(torch::softmax(f, 1) * torch::log_softmax(f, 1)).sum(1).mean();
}

sdk::LossOutput UniformityLoss::forward(const sdk::LossContext& context)
{
    const torch::Tensor& emb = context.embeddings;
    const torch::Tensor f = logits(emb);
    if (!context.labels.defined() || context.labels.dim() != 1 || context.labels.size(0) != emb.size(0))
        throw std::invalid_argument("uniformity: needs the batch's labels (B int64, -1 = unlabelled)");
    sdk::LossOutput out;
    if (emb.size(0) == 0) {
        out.loss = emb.sum() * 0.0;
        return out;
    }
    const torch::Tensor labels = context.labels.to(emb.device(), torch::kInt64);
    const torch::Tensor labelled = labels >= 0;
    out.terms = labelled.sum().item<std::int64_t>();
    torch::Tensor base = f.sum() * 0.0;
    if (out.terms > 0) {
        const auto lo = labels.min().item<std::int64_t>();
        const auto hi = labels.max().item<std::int64_t>();
        if (lo < -1 || hi >= m_numCoarse)
            throw std::invalid_argument("uniformity: label " + std::to_string(lo < -1 ? lo : hi) + " outside [0, " +
                                        std::to_string(m_numCoarse) + ") (and -1 for unlabelled)");
        const torch::Tensor rows = labelled.nonzero().squeeze(1);
        const torch::Tensor per = groupedCrossEntropy(f.index_select(0, rows), labels.index_select(0, rows));
        out.activeTerms = (per > 0).sum().item<std::int64_t>();
        base = per.mean();
    }
    out.loss = m_lambda > 0.0 ? base + m_lambda * penaltyOf(f) : base;
    if (m_confidence > 0.0)
        out.loss = out.loss + m_confidence * meanEntropy(f);
    return out;
}

sdk::LossInfo uniformityLossInfo()
{
    return {"uniformity",
            "coarse-label cross-entropy over groups of C outputs + λ KL(batch-mean softmax ‖ uniform C) "
            "(seed 003 §3.1; threshold / L2 penalties of §3.5)",
            UniformityLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<UniformityLoss>(s); }};
}

} // namespace setscope::losses
