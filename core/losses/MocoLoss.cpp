// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/MocoLoss.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace setscope::losses {

sdk::OptionSchema MocoLoss::schema()
{
    return {
        sdk::OptionSpec::integer("queue", kDefaultQueue, 1, 1e7, "K: negative keys kept from earlier batches (MoCo's queue)"),
        sdk::OptionSpec::real("temperature", kDefaultTemperature, 1e-9, 100, "τ: the logits q·k are divided by τ (MoCo: 0.07)"),
        sdk::OptionSpec::real("key-momentum", kDefaultMomentum, 0, 1,
                              "m: the key encoder follows θ_k <- m θ_k + (1 - m) θ_q after each step (MoCo: 0.999; 0 = "
                              "keys from the query encoder, detached)"),
    };
}

MocoLoss::MocoLoss(const sdk::LossSpec& spec)
    : m_capacity(spec.options.integer("queue"))
    , m_temperature(spec.options.real("temperature"))
    , m_momentum(spec.options.real("key-momentum"))
{
    if (m_capacity < 1)
        throw std::invalid_argument("moco: the queue must hold at least one key");
    if (!(m_temperature > 0.0) || !std::isfinite(m_temperature))
        throw std::invalid_argument("moco: temperature must be a finite number > 0");
    if (!(m_momentum >= 0.0 && m_momentum <= 1.0))
        throw std::invalid_argument("moco: key-momentum must be in [0, 1]");
    if (spec.embeddingDim < 1)
        throw std::invalid_argument("moco: the embedding dimension must be >= 1, got " + std::to_string(spec.embeddingDim));
    m_queue = register_buffer("queue", torch::zeros({m_capacity, spec.embeddingDim}, torch::kFloat32));
    m_next = register_buffer("queue_next", torch::zeros({}, torch::kInt64));
    m_filled = register_buffer("queue_filled", torch::zeros({}, torch::kInt64));
}

std::int64_t MocoLoss::filled() const { return m_filled.item<std::int64_t>(); }

void MocoLoss::enqueue(const torch::Tensor& keys)
{
    if (!keys.defined() || keys.dim() != 2 || keys.size(1) != m_queue.size(1))
        throw std::invalid_argument("moco: keys must be B x " + std::to_string(m_queue.size(1)));
    torch::NoGradGuard noGrad;
    torch::Tensor k = keys.detach().to(m_queue.device(), m_queue.scalar_type());
    if (k.size(0) > m_capacity)
        k = k.narrow(0, k.size(0) - m_capacity, m_capacity);
    const auto b = k.size(0);
    if (b == 0)
        return;
    const std::int64_t next = m_next.item<std::int64_t>();
    const torch::Tensor slots =
        (torch::arange(b, torch::TensorOptions().dtype(torch::kInt64).device(m_queue.device())) + next).remainder(m_capacity);
    m_queue.index_copy_(0, slots, k);
    m_next.fill_((next + b) % m_capacity);
    m_filled.fill_(std::min(m_capacity, filled() + b));
}

torch::Tensor MocoLoss::queuedKeys() const
{
    const std::int64_t n = filled();
    if (n < m_capacity)
        return m_queue.narrow(0, 0, n).clone();
    // Full: the oldest key sits at the next slot to be overwritten.
    const std::int64_t next = m_next.item<std::int64_t>();
    return torch::cat({m_queue.narrow(0, next, m_capacity - next), m_queue.narrow(0, 0, next)});
}

sdk::LossOutput MocoLoss::forward(const sdk::LossContext& context)
{
    namespace F = torch::nn::functional;
    const torch::Tensor& emb = context.embeddings;
    if (!emb.defined() || emb.dim() != 2 || emb.size(1) != m_queue.size(1))
        throw std::invalid_argument("moco: the embeddings must be B x " + std::to_string(m_queue.size(1)));
    if (!context.keys.defined() || context.keys.sizes() != emb.sizes())
        throw std::invalid_argument("moco: needs the key encoder's embeddings (LossContext::keys, same shape as the "
                                    "embeddings), which the trainer fills for a loss asking for momentumKeys");
    sdk::LossOutput out;
    const auto b = emb.size(0);
    if (b == 0) {
        out.loss = emb.sum() * 0.0;
        return out;
    }
    const auto opt = F::NormalizeFuncOptions().dim(1).eps(1e-12);
    const torch::Tensor q = F::normalize(emb, opt);
    const torch::Tensor k = F::normalize(context.keys.detach(), opt);
    const torch::Tensor lpos = (q * k).sum(1, true); // B x 1
    // A copy of the queue, so that enqueueing below does not modify what backward reads.
    const torch::Tensor negatives = m_queue.narrow(0, 0, filled()).clone().to(q.scalar_type());
    const torch::Tensor logits = torch::cat({lpos, q.matmul(negatives.t())}, 1) / m_temperature;
    const torch::Tensor target = torch::zeros({b}, torch::TensorOptions().dtype(torch::kInt64).device(emb.device()));
    const torch::Tensor per = F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().reduction(torch::kNone));
    out.terms = b;
    out.activeTerms = (per > 0).sum().item<std::int64_t>();
    out.loss = per.mean();
    if (is_training())
        enqueue(k);
    return out;
}

sdk::LossInfo mocoLossInfo()
{
    return {"moco",
            "InfoNCE against a FIFO queue of K keys from a momentum key encoder (seed 002, MoCo; m = 0.999, "
            "τ = 0.07)",
            MocoLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<MocoLoss>(s); }};
}

} // namespace setscope::losses
