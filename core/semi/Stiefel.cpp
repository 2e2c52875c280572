// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/semi/Stiefel.h"

#include <torch/torch.h>

#include <ATen/CPUGeneratorImpl.h>

#include <stdexcept>

namespace setscope::semi {

MetricUpdate metricUpdateFromName(const std::string& name)
{
    if (name == "qr")
        return MetricUpdate::Qr;
    if (name == "cayley")
        return MetricUpdate::Cayley;
    if (name == "euclidean")
        return MetricUpdate::Euclidean;
    throw std::invalid_argument("metric update: unknown '" + name + "' (qr, cayley or euclidean)");
}

const char* metricUpdateName(MetricUpdate u)
{
    switch (u) {
    case MetricUpdate::Qr: return "qr";
    case MetricUpdate::Cayley: return "cayley";
    case MetricUpdate::Euclidean: return "euclidean";
    }
    return "?";
}

torch::Tensor initialOrthogonal(std::int64_t d, std::int64_t l, std::uint64_t seed, torch::TensorOptions options)
{
    if (l < 1 || l > d)
        throw std::invalid_argument("metric L: its width l must satisfy 1 <= l <= d (l = " + std::to_string(l) +
                                    ", d = " + std::to_string(d) + ")");
    torch::NoGradGuard noGrad;
    if (l == d)
        return torch::eye(d, options);
    auto gen = at::detail::createCPUGenerator(seed);
    const torch::Tensor g = torch::randn({d, l}, gen, torch::TensorOptions().dtype(torch::kFloat64));
    return retractQr(g).to(options);
}

torch::Tensor riemannianGradient(const torch::Tensor& l, const torch::Tensor& g)
{
    torch::NoGradGuard noGrad;
    const torch::Tensor ltg = l.t().matmul(g);
    return g - l.matmul(0.5 * (ltg + ltg.t()));
}

torch::Tensor retractQr(const torch::Tensor& y)
{
    torch::NoGradGuard noGrad;
    auto [q, r] = torch::linalg_qr(y, "reduced");
    // sign(0) = 0 would zero a column; a zero diagonal entry keeps its column as it is.
    const torch::Tensor s = torch::where(r.diagonal() < 0, -torch::ones_like(r.diagonal()), torch::ones_like(r.diagonal()));
    return q * s.unsqueeze(0);
}

void metricStep(torch::Tensor& l, const torch::Tensor& g, double lr, MetricUpdate update)
{
    if (!g.defined() || g.sizes() != l.sizes())
        throw std::invalid_argument("metric step: the gradient must have L's shape");
    torch::NoGradGuard noGrad;
    switch (update) {
    case MetricUpdate::Euclidean:
        l.sub_(lr * g);
        return;
    case MetricUpdate::Qr:
        l.copy_(retractQr(l - lr * riemannianGradient(l, g)));
        return;
    case MetricUpdate::Cayley: {
        const torch::Tensor a = g.matmul(l.t()) - l.matmul(g.t()); // d x d, skew
        const torch::Tensor eye = torch::eye(l.size(0), l.options());
        l.copy_(torch::linalg_solve(eye + (0.5 * lr) * a, (eye - (0.5 * lr) * a).matmul(l)));
        return;
    }
    }
}

double orthogonalityError(const torch::Tensor& l)
{
    torch::NoGradGuard noGrad;
    const torch::Tensor e = l.t().matmul(l) - torch::eye(l.size(1), l.options());
    return e.abs().max().item<double>();
}

} // namespace setscope::semi
