// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/ApPriorLoss.h"

#include "core/losses/PriorMetrics.h"

#include <Eigen/Dense>

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace setscope::losses {

BaselineLoss apPriorLoss(const torch::Tensor& z, const torch::Tensor& m, const torch::Tensor& prior,
                         const torch::Tensor& affinity, double lambda)
{
    const char* who = "AP prior loss";
    detail::checkEmbeddingsAndMetric(who, z, m);
    detail::checkAffinity(who, z, affinity);
    detail::checkNonNegative(who, "λ", lambda);
    const std::int64_t d = z.size(1);
    if (!prior.defined() || prior.dim() != 2 || prior.size(0) != d || prior.size(1) != d)
        throw std::invalid_argument(std::string(who) + ": the prior M0 must be d x d with d = " + std::to_string(d) +
                                    ", got " + detail::shapeOf(prior));
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
    ownMetric("AP prior loss", spec.embeddingDim, o.real("metric-lr-scale"));
}

torch::Tensor ApPriorLoss::priorOf(const torch::Tensor& z, const torch::Tensor& labels) const
{
    detail::checkLabels("AP prior loss", z, labels);
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

sdk::LossInfo apPriorLossInfo()
{
    return {"ap-prior",
            "Deep-APLLR / Deep-APIT (seed 004; Dutta and Sekhar 2018): LogDet divergence to a prior metric "
            "from the labelled rows + the Laplacian term of propagated affinities (recipes apllr, apit)",
            ApPriorLoss::schema(),
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return std::make_shared<ApPriorLoss>(s); }};
}

} // namespace setscope::losses
