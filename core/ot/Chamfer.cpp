// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/ot/Chamfer.h"

#include "core/ot/CostMatrix.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace setscope::ot {

namespace {

double weightSum(const float* w, std::int64_t n, const char* name)
{
    double s = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
        if (!std::isfinite(w[i]) || w[i] < 0.0f)
            throw OtError(std::string(name) + ": element " + std::to_string(i) + " has weight " +
                          std::to_string(w[i]) + " (weights must be finite and non-negative)");
        s += w[i];
    }
    if (!(s > 0.0))
        throw OtError(std::string(name) + " has zero total weight");
    return s;
}

} // namespace

double chamferFromCost(const double* cost, const float* wa, std::int64_t na, const float* wb, std::int64_t nb,
                       bool weighted)
{
    if (na <= 0 || nb <= 0)
        throw OtError(na <= 0 ? "set A is empty" : "set B is empty");
    const double sa = weighted ? weightSum(wa, na, "set A") : static_cast<double>(na);
    const double sb = weighted ? weightSum(wb, nb, "set B") : static_cast<double>(nb);
    auto present = [weighted](const float* w, std::int64_t i) { return !weighted || w[i] > 0.0f; };

    constexpr double kInf = std::numeric_limits<double>::infinity();
    std::vector<double> colMin(static_cast<std::size_t>(nb), kInf);
    double forward = 0.0; // Σ_i ŵ_a,i min_j d_ij, accumulated unnormalised
    for (std::int64_t i = 0; i < na; ++i) {
        if (!present(wa, i))
            continue;
        const double* row = cost + i * nb;
        double best = kInf;
        for (std::int64_t j = 0; j < nb; ++j) {
            const double c = row[j];
            if (!std::isfinite(c) || c < 0.0)
                throw OtError("cost matrix entry " + std::to_string(i) + "," + std::to_string(j) + " is " +
                              std::to_string(c) + " (costs must be finite and non-negative)");
            if (!present(wb, j))
                continue;
            best = std::min(best, c);
            double& cm = colMin[static_cast<std::size_t>(j)];
            cm = std::min(cm, c);
        }
        forward += (weighted ? static_cast<double>(wa[i]) : 1.0) * best;
    }
    double backward = 0.0;
    for (std::int64_t j = 0; j < nb; ++j)
        if (present(wb, j))
            backward += (weighted ? static_cast<double>(wb[j]) : 1.0) * colMin[static_cast<std::size_t>(j)];
    return forward / sa + backward / sb;
}

double chamfer(const PointSet& a, const PointSet& b, const ChamferOptions& options)
{
    validate(a, "set A");
    validate(b, "set B");
    if (a.d != b.d)
        throw OtError("sets have different dimensions (" + std::to_string(a.d) + " and " + std::to_string(b.d) + ")");
    std::vector<double> cost;
    costMatrix(a, b, options.ground, cost);
    return chamferFromCost(cost.data(), a.weights, a.n, b.weights, b.n, options.weighted);
}

} // namespace setscope::ot
