// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/semi/Baselines.h"

#include "core/semi/PriorMetrics.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace setscope::semi {

namespace {

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

/// Unordered pairs (i < j) by kind, as B x B masks in `dtype`.
struct PairMasks {
    torch::Tensor similar, dissimilar, unlabelled;
    BaselinePairCounts counts;
};

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

} // namespace

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

BaselineLoss lrmlLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& labels,
                      const torch::Tensor& affinity, const LrmlOptions& options)
{
    const char* who = "LRML loss";
    checkEmbeddingsAndMetric(who, z, m);
    checkLabels(who, z, labels);
    checkAffinity(who, z, affinity);
    checkNonNegative(who, "γ_S", options.gammaS);
    checkNonNegative(who, "γ_D", options.gammaD);
    const torch::Tensor dist = pairwiseMetricDistances(z, m);
    const PairMasks pm = pairMasks(labels, z.scalar_type());
    BaselineLoss out;
    out.pairs = pm.counts;
    out.labelled = options.gammaS * (pm.similar * dist).sum() - options.gammaD * (pm.dissimilar * dist).sum();
    out.unlabelled = 0.5 * (affinity.to(z.dtype()) * dist).sum();
    // Keeps M in the graph (and its gradient defined, zero) like the other parts.
    out.regulariser = m.to(z.dtype()).sum() * 0.0;
    out.loss = out.labelled + out.unlabelled + out.regulariser;
    return out;
}

BaselineLoss seraphLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& labels,
                        const SeraphOptions& options)
{
    const char* who = "SERAPH loss";
    checkEmbeddingsAndMetric(who, z, m);
    checkLabels(who, z, labels);
    checkNonNegative(who, "η", options.eta);
    checkNonNegative(who, "μ", options.mu);
    checkNonNegative(who, "λ", options.lambda);
    namespace F = torch::nn::functional;
    const torch::Tensor t = pairwiseMetricDistances(z, m) - options.eta;
    const PairMasks pm = pairMasks(labels, z.scalar_type());
    BaselineLoss out;
    out.pairs = pm.counts;
    // -log p(y) = log(1 + exp(y t)): y = +1 on similar pairs, -1 on dissimilar ones.
    out.labelled = (pm.similar * F::softplus(t)).sum() + (pm.dissimilar * F::softplus(-t)).sum();
    // -Σ_y p(y) log p(y) with p(+1) = σ(-t), p(-1) = σ(t): σ(-t) softplus(t) + σ(t) softplus(-t).
    const torch::Tensor entropy = torch::sigmoid(-t) * F::softplus(t) + torch::sigmoid(t) * F::softplus(-t);
    out.unlabelled = options.mu * (pm.unlabelled * entropy).sum();
    out.regulariser = options.lambda * m.to(z.dtype()).diagonal().sum();
    out.loss = out.labelled + out.unlabelled + out.regulariser;
    return out;
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

namespace {

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

} // namespace

sdk::OptionSchema SeraphLoss::schema()
{
    const SeraphOptions d;
    return {sdk::OptionSpec::real("eta", d.eta, 0.0, 1e12, "η: the distance threshold of p(y) = 1 / (1 + exp(y (δ² - η))) (seed 004 Eq. 1)"),
            sdk::OptionSpec::real("mu", d.mu, 0.0, 1e12, "μ: the weight of the entropy over unlabelled pairs"),
            sdk::OptionSpec::real("lambda", d.lambda, 0.0, 1e12, "λ: the weight of Tr(M)"),
            sdk::OptionSpec::real("metric-lr-scale", 1.0, 0.0, 1e12, "M's step size relative to the network's learning rate")};
}

SeraphLoss::SeraphLoss(const sdk::LossSpec& spec)
{
    const sdk::OptionValues o = spec.options.orDefaults(schema(), "SERAPH loss");
    m_options = {o.real("eta"), o.real("mu"), o.real("lambda")};
    m_lrScale = o.real("metric-lr-scale");
    m_metric = register_parameter("metric", initialMetric("SERAPH loss", spec.embeddingDim));
}

sdk::LossOutput SeraphLoss::forward(const sdk::LossContext& context)
{
    const BaselineLoss b = seraphLoss(context.embeddings, m_metric, context.labels, m_options);
    sdk::LossOutput out;
    out.loss = b.loss;
    out.terms = b.pairs.similar + b.pairs.dissimilar + b.pairs.unlabelled;
    out.activeTerms = out.terms;
    return out;
}

void SeraphLoss::stepMetric(double lr) { projectedStep(m_metric, lr, &projectPsd); }

sdk::OptionSchema LrmlLoss::schema()
{
    const LrmlOptions d;
    return {sdk::OptionSpec::real("gamma-s", d.gammaS, 0.0, 1e12, "γ_S: the weight of the similar pairs' distances (seed 004 Eq. 2)"),
            sdk::OptionSpec::real("gamma-d", d.gammaD, 0.0, 1e12, "γ_D: the weight of the dissimilar pairs' distances (1 in Eq. 2)"),
            sdk::OptionSpec::real("metric-lr-scale", 1.0, 0.0, 1e12, "M's step size relative to the network's learning rate")};
}

LrmlLoss::LrmlLoss(const sdk::LossSpec& spec)
{
    const sdk::OptionValues o = spec.options.orDefaults(schema(), "LRML loss");
    m_options = {o.real("gamma-s"), o.real("gamma-d")};
    m_lrScale = o.real("metric-lr-scale");
    m_metric = register_parameter("metric", initialMetric("LRML loss", spec.embeddingDim));
}

sdk::LossOutput PairAffinityLoss::forward(const sdk::LossContext&)
{
    throw std::logic_error("this loss needs the batch's graph affinities: train it with a sampler that gives them "
                           "(ssdml-partition with an affinity other than none), or call forward(context, affinity)");
}

sdk::LossOutput LrmlLoss::forward(const sdk::LossContext& context, const torch::Tensor& affinity)
{
    const BaselineLoss b = lrmlLoss(context.embeddings, m_metric, context.labels, affinity, m_options);
    sdk::LossOutput out;
    out.loss = b.loss;
    out.terms = b.pairs.similar + b.pairs.dissimilar;
    if (out.terms) {
        torch::NoGradGuard noGrad;
        const torch::Tensor dist = pairwiseMetricDistances(context.embeddings, m_metric);
        const torch::Tensor lab = context.labels.to(torch::kLong);
        const torch::Tensor known = lab >= 0;
        const torch::Tensor pairs = known.unsqueeze(1).logical_and(known.unsqueeze(0)).triu(1);
        out.activeTerms = pairs.logical_and(dist > 0).sum().item<std::int64_t>();
    }
    return out;
}

void LrmlLoss::stepMetric(double lr) { projectedStep(m_metric, lr, &projectLrmlFeasible); }

BaselineLoss apPriorLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& prior,
                         const torch::Tensor& affinity, double lambda)
{
    const char* who = "AP prior loss";
    checkEmbeddingsAndMetric(who, z, m);
    checkAffinity(who, z, affinity);
    checkNonNegative(who, "λ", lambda);
    const std::int64_t d = z.size(1);
    if (!prior.defined() || prior.dim() != 2 || prior.size(0) != d || prior.size(1) != d)
        throw std::invalid_argument(std::string(who) + ": the prior M0 must be d x d with d = " + std::to_string(d) +
                                    ", got " + shapeOf(prior));
    // M0⁻¹ and log det M0 in double from the eigen-decomposition (M0 is symmetric positive definite).
    torch::Tensor m0inv, logdetM0;
    {
        torch::NoGradGuard noGrad;
        const torch::Tensor p = prior.detach().to(torch::kFloat64);
        auto [values, vectors] = torch::linalg::eigh(0.5 * (p + p.t()), "L");
        if ((values <= 0).any().item<bool>())
            throw std::invalid_argument(std::string(who) + ": the prior M0 must be positive definite");
        m0inv = (vectors * values.reciprocal().unsqueeze(0)).matmul(vectors.t());
        logdetM0 = values.log().sum();
    }
    const torch::Tensor md = m.to(torch::kFloat64);
    const torch::Tensor divergence = (md * m0inv).sum() - torch::logdet(md) + logdetM0 - static_cast<double>(d);
    BaselineLoss out;
    out.labelled = divergence.to(z.scalar_type());
    out.unlabelled = lambda * laplacianRegulariser(z, m, affinity);
    out.regulariser = m.to(z.dtype()).sum() * 0.0;
    out.loss = out.labelled + out.unlabelled + out.regulariser;
    return out;
}

sdk::OptionSchema ApPriorLoss::schema()
{
    const ApPriorOptions d;
    return {sdk::OptionSpec::choice("prior", "llr", {"llr", "it"},
                                    "the prior metric M0 from the batch's labelled rows: llr (APLLR: KISSME's "
                                    "log-likelihood ratio) or it (APIT: ITML)"),
            sdk::OptionSpec::real("lambda", d.lambda, 0.0, 1e12, "λ: the weight of the Laplacian term on the propagated affinities"),
            sdk::OptionSpec::real("ridge", d.ridge, 0.0, 1e6, "KISSME: ridge × tr(Σ)/d added to the covariances' diagonal"),
            sdk::OptionSpec::real("floor", d.floor, 1e-12, 1.0, "eigenvalues of M0 and M clipped from below at floor × the largest"),
            sdk::OptionSpec::real("itml-gamma", d.itmlGamma, 1e-12, 1e300, "ITML: slack γ"),
            sdk::OptionSpec::integer("itml-sweeps", d.itmlSweeps, 0, 1000, "ITML: passes over the labelled pairs per batch"),
            sdk::OptionSpec::real("metric-lr-scale", 1.0, 0.0, 1e12, "M's step size relative to the network's learning rate")};
}

ApPriorLoss::ApPriorLoss(const sdk::LossSpec& spec)
{
    const sdk::OptionValues o = spec.options.orDefaults(schema(), "AP prior loss");
    m_options.prior = o.text("prior") == "it" ? PriorKind::InformationTheoretic : PriorKind::LogLikelihoodRatio;
    m_options.lambda = o.real("lambda");
    m_options.ridge = o.real("ridge");
    m_options.floor = o.real("floor");
    m_options.itmlGamma = o.real("itml-gamma");
    m_options.itmlSweeps = static_cast<int>(o.integer("itml-sweeps"));
    m_lrScale = o.real("metric-lr-scale");
    m_metric = register_parameter("metric", initialMetric("AP prior loss", spec.embeddingDim));
}

torch::Tensor ApPriorLoss::priorOf(const torch::Tensor& z, const torch::Tensor& labels) const
{
    checkLabels("AP prior loss", z, labels);
    torch::NoGradGuard noGrad;
    const torch::Tensor lab = labels.to(torch::kCPU).to(torch::kLong);
    const torch::Tensor known = lab >= 0;
    const torch::Tensor x = z.detach().to(torch::kCPU).to(torch::kFloat64).index({known}).contiguous();
    const torch::Tensor y = lab.index({known}).contiguous();
    const std::int64_t n = x.size(0), d = x.size(1);
    if (n < 2)
        throw std::invalid_argument("AP prior loss: the batch has " + std::to_string(n) +
                                    " labelled row(s); the prior metric needs labelled pairs (labelled-per-batch)");
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::MatrixXd xe = Eigen::Map<const RowMajor>(x.data_ptr<double>(), n, d);
    std::vector<std::int32_t> ye(static_cast<std::size_t>(n));
    const auto ya = y.accessor<std::int64_t, 1>();
    for (std::int64_t i = 0; i < n; ++i)
        ye[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(ya[i]);
    Eigen::MatrixXd m0;
    if (m_options.prior == PriorKind::LogLikelihoodRatio) {
        m0 = kissmePrior(xe, ye, {m_options.ridge, m_options.floor});
    } else {
        ItmlOptions io;
        io.gamma = m_options.itmlGamma;
        io.sweeps = m_options.itmlSweeps;
        io.floor = m_options.floor;
        m0 = itmlPrior(xe, ye, io);
    }
    // Eigen is column-major: the blob read row-major is M0ᵀ.
    return torch::from_blob(m0.data(), {d, d}, torch::kFloat64).t().clone();
}

sdk::LossOutput ApPriorLoss::forward(const sdk::LossContext& context, const torch::Tensor& affinity)
{
    const torch::Tensor m0 = priorOf(context.embeddings, context.labels).to(context.embeddings.device());
    const BaselineLoss b = apPriorLoss(context.embeddings, m_metric, m0, affinity, m_options.lambda);
    sdk::LossOutput out;
    out.loss = b.loss;
    const std::int64_t labelled = (context.labels >= 0).sum().item<std::int64_t>();
    const std::int64_t edges = (affinity != 0).triu(1).sum().item<std::int64_t>();
    out.terms = labelled * (labelled - 1) / 2 + edges;
    out.activeTerms = out.terms;
    return out;
}

void ApPriorLoss::stepMetric(double lr)
{
    if (!m_metric.grad().defined())
        return;
    torch::NoGradGuard noGrad;
    const double floor = m_options.floor;
    const torch::Tensor next = m_metric - lr * m_metric.grad();
    const torch::Tensor sym = 0.5 * (next + next.t());
    auto [values, vectors] = torch::linalg::eigh(sym.to(torch::kFloat64), "L");
    const double top = values.max().item<double>();
    // A step that leaves no positive direction keeps M (the LogDet term's barrier was overstepped).
    if (top > 0.0)
        m_metric.copy_((vectors * values.clamp_min(floor * top).unsqueeze(0)).matmul(vectors.t()).to(m_metric.scalar_type()));
    m_metric.mutable_grad().zero_();
}

sdk::LossInfo seraphLossInfo()
{
    return {"seraph",
            "Deep-SERAPH (seed 004 Eq. 1): entropy regularisation over labelled and unlabelled pairs under "
            "the metric M ⪰ 0 it owns (sampler ssdml-partition; recipe seraph)",
            SeraphLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<SeraphLoss>(s); }};
}

sdk::LossInfo lrmlLossInfo()
{
    return {"lrml",
            "Deep-LRML (seed 004 Eq. 2): labelled pair distances + the Laplacian term of the batch's kNN "
            "affinities, metric M ⪰ 0, log|M| ≥ 0 (sampler ssdml-partition; recipes lrml, isdml)",
            LrmlLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<LrmlLoss>(s); }};
}

sdk::LossInfo apPriorLossInfo()
{
    return {"ap-prior",
            "Deep-APLLR / Deep-APIT (seed 004; Dutta and Sekhar 2018): LogDet divergence to a prior metric "
            "from the labelled rows + the Laplacian term of propagated affinities (recipes apllr, apit)",
            ApPriorLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<ApPriorLoss>(s); }};
}

} // namespace setscope::semi
