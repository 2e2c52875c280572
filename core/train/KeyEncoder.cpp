// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/KeyEncoder.h"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace setscope::train {

namespace {

void checkSame(const torch::OrderedDict<std::string, torch::Tensor>& key,
               const torch::OrderedDict<std::string, torch::Tensor>& query, const char* what)
{
    if (key.size() != query.size())
        throw std::invalid_argument(std::string("key encoder: ") + std::to_string(key.size()) + " " + what + ", the query encoder " +
                                    std::to_string(query.size()));
    for (const auto& item : query) {
        const torch::Tensor* k = key.find(item.key());
        if (!k || k->sizes() != item.value().sizes())
            throw std::invalid_argument(std::string("key encoder: ") + what + " '" + item.key() +
                                        "' is missing or of another shape than the query encoder's");
    }
}

torch::Device deviceOf(const torch::nn::Module& m)
{
    for (const torch::Tensor& p : m.parameters())
        return p.device();
    for (const torch::Tensor& b : m.buffers())
        return b.device();
    return torch::kCPU;
}

} // namespace

void momentumUpdate(torch::nn::Module& key, const torch::nn::Module& query, double momentum)
{
    if (!(momentum >= 0.0 && momentum <= 1.0))
        throw std::invalid_argument("key encoder: the momentum must be in [0, 1], got " + std::to_string(momentum));
    const auto kp = key.named_parameters(), qp = query.named_parameters();
    const auto kb = key.named_buffers(), qb = query.named_buffers();
    checkSame(kp, qp, "parameters");
    checkSame(kb, qb, "buffers");
    torch::NoGradGuard noGrad;
    for (const auto& item : qp) {
        torch::Tensor k = kp[item.key()];
        if (momentum == 0.0)
            k.copy_(item.value());
        else if (momentum != 1.0)
            k.mul_(momentum).add_(item.value().detach(), 1.0 - momentum);
    }
    for (const auto& item : qb) {
        torch::Tensor k = kb[item.key()];
        k.copy_(item.value());
    }
}

KeyEncoder::KeyEncoder(std::shared_ptr<sdk::SetEncoder> fresh, const sdk::SetEncoder& query, double momentum)
    : m_encoder(std::move(fresh))
    , m_momentum(momentum)
{
    if (!m_encoder)
        throw std::invalid_argument("key encoder: no encoder given");
    if (!(momentum >= 0.0 && momentum <= 1.0))
        throw std::invalid_argument("key encoder: the momentum must be in [0, 1], got " + std::to_string(momentum));
    m_encoder->to(deviceOf(query));
    momentumUpdate(*m_encoder, query, 0.0); // θ_k = θ_q, buffers too
    for (torch::Tensor& p : m_encoder->parameters())
        p.set_requires_grad(false);
}

torch::Tensor KeyEncoder::keys(const sdk::SetBatch& batch, const sdk::SetEncoder& query)
{
    torch::NoGradGuard noGrad;
    m_encoder->train(query.is_training());
    return m_encoder->forward(batch);
}

void KeyEncoder::update(const sdk::SetEncoder& query) { momentumUpdate(*m_encoder, query, m_momentum); }

} // namespace setscope::train
