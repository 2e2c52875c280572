// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The loss "nt-xent" in one file: no other code uses the class, so it has no header. The registry
// reaches it through ntXentLossInfo() (declared in core/builtins/Losses.cpp, which registers it)
// and its test through the registry: a loss added this way touches three files
// (docs/ARCHITECTURE.md, "Adding a loss").
#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace setscope::losses {

namespace {

/// SimCLR's normalised temperature-scaled cross-entropy (NT-Xent), the "Cont." competitor
/// of seed 001 §7.1. The 2B views z_1..z_2B are the embeddings followed by their augmented
/// views; with s(i,j) = cos(z_i, z_j) / τ and k(i) the partner of i (the other view of the
/// same set),
///   ℓ_i = -log( exp s(i,k(i)) / Σ_{j != i} exp s(i,j) ),   L = 1/(2B) Σ_i ℓ_i
/// so each view has one positive and 2B - 2 negatives. Cosine similarity normalises the
/// rows itself (eps 1e-12), whether or not the encoder already L2-normalises.
class NtXentLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultTemperature = 0.5;
    /// temperature.
    static sdk::OptionSchema schema();
    /// `spec.options` resolved against schema(). Throws std::invalid_argument for τ <= 0.
    explicit NtXentLoss(const sdk::LossSpec& spec);
    sdk::LossNeeds needs() const override { return {.augmentedView = true}; }
    /// Reads embeddings and augmented (both B x E). terms = 2B anchors. Throws
    /// std::invalid_argument when augmented is missing or of another shape.
    sdk::LossOutput forward(const sdk::LossContext& context) override;

private:
    double m_temperature;
};

sdk::OptionSchema NtXentLoss::schema()
{
    return {sdk::OptionSpec::real("temperature", kDefaultTemperature, 1e-9, 100,
                                  "τ: the cosine similarities are divided by τ before the softmax (SimCLR NT-Xent)")};
}

NtXentLoss::NtXentLoss(const sdk::LossSpec& spec)
    : m_temperature(spec.options.real("temperature"))
{
    if (!(m_temperature > 0.0) || !std::isfinite(m_temperature))
        throw std::invalid_argument("nt-xent: temperature must be a finite number > 0");
}

sdk::LossOutput NtXentLoss::forward(const sdk::LossContext& context)
{
    namespace F = torch::nn::functional;
    const torch::Tensor& emb = context.embeddings;
    if (!emb.defined() || emb.dim() != 2)
        throw std::invalid_argument("nt-xent: the embeddings must be a B x E tensor");
    if (!context.augmented.defined() || context.augmented.sizes() != emb.sizes())
        throw std::invalid_argument("nt-xent: needs the augmented view's embeddings (same shape as the embeddings); "
                                    "the run must have an augmentation");
    const auto b = emb.size(0);
    sdk::LossOutput out;
    if (b == 0) {
        out.loss = emb.sum() * 0.0;
        return out;
    }
    const torch::Tensor z = F::normalize(torch::cat({emb, context.augmented}, 0), F::NormalizeFuncOptions().dim(1).eps(1e-12));
    const auto n = 2 * b;
    const torch::Tensor self = torch::eye(n, torch::TensorOptions().dtype(torch::kBool).device(emb.device()));
    // A view is not its own negative: -inf drops it from the softmax's denominator.
    const torch::Tensor logits =
        (z.matmul(z.t()) / m_temperature).masked_fill(self, -std::numeric_limits<double>::infinity());
    const torch::Tensor first = torch::arange(b, torch::TensorOptions().dtype(torch::kInt64).device(emb.device()));
    const torch::Tensor partner = torch::cat({first + b, first});
    const torch::Tensor per =
        F::cross_entropy(logits, partner, F::CrossEntropyFuncOptions().reduction(torch::kNone));
    out.terms = n;
    out.activeTerms = (per > 0).sum().item<std::int64_t>();
    out.loss = per.mean();
    return out;
}

} // namespace

/// The registry's entry "nt-xent": name, one line of doc, schema and factory.
sdk::LossInfo ntXentLossInfo()
{
    return {"nt-xent",
            "NT-Xent (SimCLR) between each set and its augmented view: Cont. of seed 001 §7.1",
            NtXentLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<NtXentLoss>(s); }};
}

} // namespace setscope::losses
