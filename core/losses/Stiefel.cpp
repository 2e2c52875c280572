// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/Stiefel.h"

#include <torch/torch.h>

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

namespace setscope::losses {

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

namespace {

double frobenius(const torch::Tensor& a, const torch::Tensor& b) { return (a * b).sum().item<double>(); }

} // namespace

ConjugateGradientResult conjugateGradient(torch::Tensor& l, const MetricObjective& f,
                                          const ConjugateGradientOptions& options)
{
    torch::NoGradGuard noGrad;
    ConjugateGradientResult r;
    const bool manifold = options.onManifold;
    const auto project = [&](const torch::Tensor& at, const torch::Tensor& v) {
        return manifold ? riemannianGradient(at, v) : v;
    };
    const auto evaluate = [&](const torch::Tensor& at) {
        ++r.costEvaluations;
        auto [cost, euclidean] = f(at);
        if (!euclidean.defined() || euclidean.sizes() != at.sizes())
            throw std::invalid_argument("conjugate gradient: the objective's gradient must have L's shape");
        return std::make_pair(cost, project(at, euclidean.to(at.dtype())));
    };
    const auto retract = [&](const torch::Tensor& at, const torch::Tensor& step) {
        return manifold ? retractQr(at + step) : at + step;
    };

    torch::Tensor x = l.detach().clone();
    auto [cost, grad] = evaluate(x);
    r.initialCost = cost;
    torch::Tensor dir = -grad;
    double gradNorm = std::sqrt(frobenius(grad, grad));
    double nextInitial = 0.0; // the adaptive line search's memory (0: none yet)
    for (int it = 0; it < options.maxIterations && gradNorm > options.minGradNorm; ++it) {
        double slope = frobenius(grad, dir);
        if (slope >= 0) { // not a descent direction: restart with the negative gradient
            dir = -grad;
            slope = -gradNorm * gradNorm;
        }
        const double dirNorm = std::sqrt(frobenius(dir, dir));
        double t = nextInitial > 0 ? nextInitial : 1.0 / dirNorm;
        torch::Tensor candidate;
        double candidateCost = 0;
        torch::Tensor candidateGrad;
        int tries = 0;
        bool accepted = false;
        for (; tries <= 10; ++tries) {
            candidate = retract(x, t * dir);
            std::tie(candidateCost, candidateGrad) = evaluate(candidate);
            if (candidateCost <= cost + 0.5 * t * slope) {
                accepted = true;
                break;
            }
            t *= 0.5;
        }
        if (!accepted)
            break; // no step decreases f enough: stay (Manopt: alpha = 0)
        nextInitial = tries == 0 ? 2.0 * t : t;
        // Transport the old gradient and direction to the new point; modified Hestenes-Stiefel.
        const torch::Tensor oldGrad = project(candidate, grad);
        const torch::Tensor oldDir = project(candidate, dir);
        const torch::Tensor diff = candidateGrad - oldGrad;
        const double denom = frobenius(diff, oldDir);
        const double beta = denom != 0.0 ? std::max(0.0, frobenius(candidateGrad, diff) / denom) : 0.0;
        x = candidate;
        cost = candidateCost;
        grad = candidateGrad;
        dir = -grad + beta * oldDir;
        gradNorm = std::sqrt(frobenius(grad, grad));
        ++r.iterations;
    }
    r.finalCost = cost;
    r.gradNorm = gradNorm;
    l.copy_(x);
    return r;
}

} // namespace setscope::losses
