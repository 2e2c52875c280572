// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/MahalanobisMetric.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace setscope::losses {

namespace detail {

std::string shapeOf(const torch::Tensor& t)
{
    if (!t.defined())
        return "undefined";
    std::string s;
    for (std::int64_t i = 0; i < t.dim(); ++i)
        s += (i ? " x " : "") + std::to_string(t.size(i));
    return t.dim() ? s : "a scalar";
}

void checkEmbeddingsAndMetric(const char* who, const torch::Tensor& z, const torch::Tensor& m)
{
    if (!z.defined() || z.dim() != 2 || !z.is_floating_point())
        throw std::invalid_argument(std::string(who) + ": the embeddings z must be a floating B x d tensor (got " +
                                    shapeOf(z) + ")");
    const std::int64_t d = z.size(1);
    if (!m.defined() || m.dim() != 2 || m.size(0) != d || m.size(1) != d)
        throw std::invalid_argument(std::string(who) + ": the metric M must be d x d with d = " + std::to_string(d) +
                                    " (the embedding width), got " + shapeOf(m));
}

void checkLabels(const char* who, const torch::Tensor& z, const torch::Tensor& labels)
{
    if (!labels.defined() || labels.dim() != 1 || labels.size(0) != z.size(0))
        throw std::invalid_argument(std::string(who) + ": labels must be a vector of B = " +
                                    std::to_string(z.size(0)) + " entries (one per embedding row), got " +
                                    shapeOf(labels));
    if (labels.is_floating_point() || labels.is_complex())
        throw std::invalid_argument(std::string(who) + ": labels must be integers (-1 = unlabelled)");
    if (labels.numel() && (labels < -1).any().item<bool>())
        throw std::invalid_argument(std::string(who) + ": a label below -1; -1 marks an unlabelled row, classes are ≥ 0");
}

void checkAffinity(const char* who, const torch::Tensor& z, const torch::Tensor& w)
{
    const std::int64_t b = z.size(0);
    if (!w.defined() || w.dim() != 2 || w.size(0) != b || w.size(1) != b)
        throw std::invalid_argument(std::string(who) + ": the affinity must be B x B with B = " + std::to_string(b) +
                                    " (the batch's rows of the kNN graph's W), got " + shapeOf(w));
}

PairMasks pairMasks(const torch::Tensor& labels, torch::Dtype dtype)
{
    const std::int64_t b = labels.size(0);
    const torch::Tensor lab = labels.to(torch::kLong);
    const torch::Tensor known = lab >= 0;
    const torch::Tensor upper = torch::ones({b, b}, torch::TensorOptions().dtype(torch::kBool).device(labels.device())).triu(1);
    const torch::Tensor bothKnown = known.unsqueeze(1).logical_and(known.unsqueeze(0)).logical_and(upper);
    const torch::Tensor same = lab.unsqueeze(1).eq(lab.unsqueeze(0));
    const torch::Tensor s = bothKnown.logical_and(same);
    const torch::Tensor d = bothKnown.logical_and(same.logical_not());
    const torch::Tensor u = known.logical_not().unsqueeze(1).logical_and(known.logical_not().unsqueeze(0)).logical_and(upper);
    PairMasks out;
    out.counts.similar = s.sum().item<std::int64_t>();
    out.counts.dissimilar = d.sum().item<std::int64_t>();
    out.counts.unlabelled = u.sum().item<std::int64_t>();
    out.similar = s.to(dtype);
    out.dissimilar = d.to(dtype);
    out.unlabelled = u.to(dtype);
    return out;
}

void checkNonNegative(const char* who, const char* name, double v)
{
    if (!(v >= 0.0) || !std::isfinite(v))
        throw std::invalid_argument(std::string(who) + ": " + name + " must be finite and ≥ 0 (got " +
                                    std::to_string(v) + ")");
}

torch::Tensor initialMetric(const char* who, std::int64_t d)
{
    if (d < 1)
        throw std::invalid_argument(std::string(who) + ": the embedding width must be at least 1");
    return torch::eye(d, torch::kFloat32);
}

void projectedStep(torch::Tensor& metric, double lr, torch::Tensor (*project)(const torch::Tensor&))
{
    if (!metric.grad().defined())
        return;
    torch::NoGradGuard noGrad;
    metric.copy_(project(metric - lr * metric.grad()));
    metric.mutable_grad().zero_();
}

} // namespace detail

using namespace detail;

torch::Tensor pairwiseMetricDistances(const torch::Tensor& z, const torch::Tensor& m)
{
    checkEmbeddingsAndMetric("Mahalanobis distances", z, m);
    const torch::Tensor q = z.matmul(m.to(z.dtype())).matmul(z.t());
    const torch::Tensor a = q.diagonal();
    return a.unsqueeze(1) + a.unsqueeze(0) - q - q.t();
}

torch::Tensor laplacianRegulariser(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& affinity)
{
    checkEmbeddingsAndMetric("Laplacian regulariser", z, m);
    checkAffinity("Laplacian regulariser", z, affinity);
    return 0.5 * (affinity.to(z.dtype()) * pairwiseMetricDistances(z, m)).sum();
}

torch::Tensor projectPsd(const torch::Tensor& m)
{
    if (!m.defined() || m.dim() != 2 || m.size(0) != m.size(1) || !m.is_floating_point())
        throw std::invalid_argument("PSD projection: M must be a floating square matrix, got " + shapeOf(m));
    torch::NoGradGuard noGrad;
    const torch::Tensor sym = 0.5 * (m + m.t());
    auto [values, vectors] = torch::linalg::eigh(sym, "L");
    return (vectors * values.clamp_min(0.0).unsqueeze(0)).matmul(vectors.t());
}

torch::Tensor metricSquareRoot(const torch::Tensor& m)
{
    if (!m.defined() || m.dim() != 2 || m.size(0) != m.size(1) || !m.is_floating_point())
        throw std::invalid_argument("metric square root: M must be a floating square matrix, got " + shapeOf(m));
    torch::NoGradGuard noGrad;
    const torch::Tensor sym = 0.5 * (m + m.t());
    auto [values, vectors] = torch::linalg::eigh(sym.to(torch::kFloat64), "L");
    return (vectors * values.clamp_min(0.0).sqrt().unsqueeze(0)).matmul(vectors.t()).to(m.scalar_type());
}

torch::Tensor projectLrmlFeasible(const torch::Tensor& m)
{
    if (!m.defined() || m.dim() != 2 || m.size(0) != m.size(1) || m.size(0) < 1 || !m.is_floating_point())
        throw std::invalid_argument("LRML projection: M must be a floating non-empty square matrix, got " + shapeOf(m));
    torch::NoGradGuard noGrad;
    const torch::Tensor sym = 0.5 * (m + m.t());
    auto [values, vectors] = torch::linalg::eigh(sym.to(torch::kFloat64), "L");
    const torch::Tensor mu = values.to(torch::kCPU).contiguous();
    const std::int64_t d = mu.size(0);
    std::vector<double> eig(mu.data_ptr<double>(), mu.data_ptr<double>() + d);
    std::vector<double> lam(eig.size());
    auto logDetAt = [&](double nu) {
        double s = 0.0;
        for (std::size_t i = 0; i < eig.size(); ++i) {
            // (μ + sqrt(μ² + 4ν)) / 2 without cancellation for μ < 0: 2ν / (sqrt(μ² + 4ν) - μ).
            const double r = std::sqrt(eig[i] * eig[i] + 4.0 * nu);
            lam[i] = eig[i] >= 0.0 ? 0.5 * (eig[i] + r) : 2.0 * nu / (r - eig[i]);
            s += std::log(lam[i]);
        }
        return s;
    };
    bool feasible = true;
    double logDet = 0.0;
    for (double e : eig) {
        if (e <= 0.0)
            feasible = false;
        else
            logDet += std::log(e);
    }
    if (feasible && logDet >= 0.0) {
        lam = eig;
    } else {
        // Σ log λ_i(ν) grows with ν from -∞ (some μ_i ≤ 0, or Σ log μ_i < 0 at ν = 0) to +∞.
        double lo = 0.0, hi = 1.0;
        while (logDetAt(hi) < 0.0)
            hi *= 2.0;
        for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
            const double mid = 0.5 * (lo + hi);
            (logDetAt(mid) < 0.0 ? lo : hi) = mid;
        }
        logDetAt(hi); // the feasible end: Σ log λ ≥ 0
    }
    const torch::Tensor l = torch::tensor(lam, torch::kFloat64).to(vectors.device());
    return (vectors * l.unsqueeze(0)).matmul(vectors.t()).to(m.scalar_type());
}

sdk::LossOutput PairAffinityLoss::forward(const sdk::LossContext&)
{
    throw std::logic_error("this loss needs the batch's graph affinities: train it with a sampler that gives them "
                           "(ssdml-partition with an affinity other than none), or call forward(context, affinity)");
}

} // namespace setscope::losses
