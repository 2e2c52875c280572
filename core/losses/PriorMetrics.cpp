// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/PriorMetrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace setscope::losses {

namespace {

void checkInput(const char* who, const Eigen::MatrixXd& x, const std::vector<std::int32_t>& labels)
{
    if (x.rows() != static_cast<Eigen::Index>(labels.size()))
        throw std::invalid_argument(std::string(who) + ": " + std::to_string(x.rows()) + " rows but " +
                                    std::to_string(labels.size()) + " labels");
    if (x.cols() < 1)
        throw std::invalid_argument(std::string(who) + ": the embeddings have no column");
    for (std::int32_t y : labels)
        if (y < 0)
            throw std::invalid_argument(std::string(who) + ": every row must be labelled (label ≥ 0)");
    if (!x.allFinite())
        throw std::invalid_argument(std::string(who) + ": a non-finite embedding value");
}

void checkFloor(const char* who, double floor)
{
    if (!(floor > 0.0 && floor <= 1.0))
        throw std::invalid_argument(std::string(who) + ": floor must be in (0, 1]");
}

Eigen::MatrixXd inverseSpd(const Eigen::MatrixXd& m)
{
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (m + m.transpose()));
    return es.eigenvectors() * es.eigenvalues().cwiseInverse().asDiagonal() * es.eigenvectors().transpose();
}

} // namespace

Eigen::MatrixXd clipSpectrum(const Eigen::MatrixXd& m, double floor)
{
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (m + m.transpose()));
    const double top = es.eigenvalues().maxCoeff();
    if (!(top > 0.0))
        throw std::runtime_error("prior metric: no positive eigenvalue (the labelled pairs give no direction in which "
                                 "similar pairs are closer than dissimilar ones)");
    const Eigen::VectorXd v = es.eigenvalues().cwiseMax(floor * top);
    return es.eigenvectors() * v.asDiagonal() * es.eigenvectors().transpose();
}

Eigen::MatrixXd kissmePrior(const Eigen::MatrixXd& x, const std::vector<std::int32_t>& labels,
                            const KissmeOptions& options)
{
    const char* who = "KISSME prior";
    checkInput(who, x, labels);
    checkFloor(who, options.floor);
    if (!(options.ridge >= 0.0) || !std::isfinite(options.ridge))
        throw std::invalid_argument("KISSME prior: ridge must be finite and ≥ 0");
    const Eigen::Index n = x.rows(), d = x.cols();
    Eigen::MatrixXd s = Eigen::MatrixXd::Zero(d, d), dis = Eigen::MatrixXd::Zero(d, d);
    std::int64_t ns = 0, nd = 0;
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = i + 1; j < n; ++j) {
            const Eigen::VectorXd v = (x.row(i) - x.row(j)).transpose();
            if (labels[static_cast<std::size_t>(i)] == labels[static_cast<std::size_t>(j)]) {
                s.noalias() += v * v.transpose();
                ++ns;
            } else {
                dis.noalias() += v * v.transpose();
                ++nd;
            }
        }
    if (ns == 0 || nd == 0)
        throw std::invalid_argument("KISSME prior: needs at least one similar and one dissimilar labelled pair (got " +
                                    std::to_string(ns) + " and " + std::to_string(nd) + ")");
    s /= static_cast<double>(ns);
    dis /= static_cast<double>(nd);
    auto ridged = [&](const Eigen::MatrixXd& c) {
        const double scale = c.trace() / static_cast<double>(d);
        return Eigen::MatrixXd(c + options.ridge * (scale > 0.0 ? scale : 1.0) * Eigen::MatrixXd::Identity(d, d));
    };
    return clipSpectrum(inverseSpd(ridged(s)) - inverseSpd(ridged(dis)), options.floor);
}

Eigen::MatrixXd itmlPrior(const Eigen::MatrixXd& x, const std::vector<std::int32_t>& labels, const ItmlOptions& options)
{
    const char* who = "ITML prior";
    checkInput(who, x, labels);
    checkFloor(who, options.floor);
    if (!(options.gamma > 0.0))
        throw std::invalid_argument("ITML prior: the slack γ must be > 0");
    if (options.sweeps < 0)
        throw std::invalid_argument("ITML prior: sweeps must be ≥ 0");
    const Eigen::Index n = x.rows(), d = x.cols();
    struct Constraint {
        Eigen::Index i, j;
        double delta, xi, lambda;
    };
    std::vector<Constraint> cs;
    std::vector<double> dist;
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = i + 1; j < n; ++j) {
            const bool same = labels[static_cast<std::size_t>(i)] == labels[static_cast<std::size_t>(j)];
            cs.push_back({i, j, same ? 1.0 : -1.0, 0.0, 0.0});
            dist.push_back((x.row(i) - x.row(j)).squaredNorm());
        }
    if (cs.empty())
        throw std::invalid_argument("ITML prior: needs at least two labelled rows");
    std::sort(dist.begin(), dist.end());
    auto percentile = [&](double q) {
        const double f = std::clamp(q / 100.0, 0.0, 1.0);
        return dist[static_cast<std::size_t>(std::floor(f * static_cast<double>(dist.size() - 1)))];
    };
    const double u = options.upper > 0.0 ? options.upper : percentile(options.lowerPercentile);
    const double l = options.lower > 0.0 ? options.lower : percentile(options.upperPercentile);
    for (Constraint& c : cs)
        c.xi = c.delta > 0 ? u : l;
    const bool hard = std::isinf(options.gamma);
    const double gproj = hard ? 1.0 : options.gamma / (options.gamma + 1.0);
    Eigen::MatrixXd a = Eigen::MatrixXd::Identity(d, d);
    for (int sweep = 0; sweep < options.sweeps; ++sweep)
        for (Constraint& c : cs) {
            const Eigen::VectorXd v = (x.row(c.i) - x.row(c.j)).transpose();
            const Eigen::VectorXd av = a * v;
            const double p = v.dot(av);
            if (!(p > 0.0) || !(c.xi > 0.0))
                continue;
            const double alpha = std::min(c.lambda, c.delta * gproj * (1.0 / p - 1.0 / c.xi));
            const double beta = c.delta * alpha / (1.0 - c.delta * alpha * p);
            if (!hard)
                c.xi = 1.0 / (1.0 / c.xi + c.delta * alpha / options.gamma);
            c.lambda -= alpha;
            a.noalias() += beta * av * av.transpose();
        }
    return clipSpectrum(a, options.floor);
}

} // namespace setscope::losses
