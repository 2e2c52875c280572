// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/ot/Bounds.h"
#include "core/util/Numeric.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace setscope::ot {

namespace {


double totalWeight(const float* w, std::int64_t n, const char* name)
{
    if (n <= 0)
        throw OtError(std::string(name) + " is empty");
    double s = 0.0;
    for (std::int64_t i = 0; i < n; ++i)
        s += w[i];
    if (!(s > 0.0) || !std::isfinite(s))
        throw OtError(std::string(name) + " has no positive total weight");
    return s;
}

// Nearest-element costs: rowMin[i] = min over columns with positive weight, colMin[j] =
// min over rows with positive weight. Zero-weight elements take no part in a transport
// (the EMD solver drops them), so they must not serve as anyone's nearest element.
void nearestCosts(const double* cost, const float* wa, std::int64_t na, const float* wb, std::int64_t nb,
                  std::vector<double>& rowMin, std::vector<double>& colMin)
{
    rowMin.assign(static_cast<std::size_t>(na), util::kInfinity);
    colMin.assign(static_cast<std::size_t>(nb), util::kInfinity);
    for (std::int64_t i = 0; i < na; ++i) {
        if (!(wa[i] > 0.0f))
            continue;
        const double* row = cost + i * nb;
        double best = util::kInfinity;
        for (std::int64_t j = 0; j < nb; ++j) {
            if (!(wb[j] > 0.0f))
                continue;
            const double c = row[j];
            best = std::min(best, c);
            double& cm = colMin[static_cast<std::size_t>(j)];
            cm = std::min(cm, c);
        }
        rowMin[static_cast<std::size_t>(i)] = best;
    }
}

// All of this side's mass (total `mass`) moves: Σ w_i nearest_i / mass.
double fullSide(const std::vector<double>& nearest, const float* w, double mass)
{
    double s = 0.0;
    for (std::size_t i = 0; i < nearest.size(); ++i)
        if (w[i] > 0.0f)
            s += static_cast<double>(w[i]) * nearest[i];
    return s / mass;
}

// The heavier side receives only `moved` of its `mass`: the cheapest way to pick `moved`
// units under the capacities w is to fill its nearest-cost-ascending elements first.
double partialSide(const std::vector<double>& nearest, const float* w, double mass, double moved)
{
    if (moved == mass)
        return fullSide(nearest, w, mass);
    std::vector<std::size_t> order;
    order.reserve(nearest.size());
    for (std::size_t i = 0; i < nearest.size(); ++i)
        if (w[i] > 0.0f)
            order.push_back(i);
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return nearest[x] < nearest[y]; });
    double left = moved, s = 0.0;
    for (const std::size_t i : order) {
        const double take = std::min(left, static_cast<double>(w[i]));
        s += take * nearest[i];
        left -= take;
        if (left <= 0.0)
            break;
    }
    // Rounding may leave a crumb unplaced; that only lowers the bound.
    return s / moved;
}

} // namespace

std::vector<double> centroid(const PointSet& s)
{
    std::vector<double> c(static_cast<std::size_t>(s.d), 0.0);
    double total = 0.0;
    for (std::int64_t i = 0; i < s.n; ++i)
        total += s.weights[i];
    for (std::int64_t i = 0; i < s.n; ++i) {
        const double w = s.weights[i] / total;
        if (w == 0.0)
            continue;
        const float* x = s.points + i * s.d;
        for (int k = 0; k < s.d; ++k)
            c[static_cast<std::size_t>(k)] += w * x[k];
    }
    return c;
}

double centroidDistance(const std::vector<double>& ca, const std::vector<double>& cb)
{
    if (ca.size() != cb.size())
        throw OtError("centroids have different dimensions (" + std::to_string(ca.size()) + " and " +
                      std::to_string(cb.size()) + ")");
    double s = 0.0;
    for (std::size_t k = 0; k < ca.size(); ++k)
        s += (ca[k] - cb[k]) * (ca[k] - cb[k]);
    return std::sqrt(s);
}

CentroidSummary summarize(const PointSet& s)
{
    CentroidSummary out;
    out.centroid = centroid(s);
    for (std::int64_t i = 0; i < s.n; ++i) {
        out.mass += s.weights[i];
        const float* x = s.points + i * s.d;
        double r2 = 0.0, n2 = 0.0;
        for (int k = 0; k < s.d; ++k) {
            const double dx = x[k] - out.centroid[static_cast<std::size_t>(k)];
            r2 += dx * dx;
            n2 += static_cast<double>(x[k]) * x[k];
        }
        if (s.weights[i] > 0.0f)
            out.radius = std::max(out.radius, std::sqrt(r2));
        out.scale = std::max(out.scale, std::sqrt(n2));
    }
    return out;
}

double centroidBound(const CentroidSummary& a, const CentroidSummary& b, GroundDistance g)
{
    if (g == GroundDistance::Cosine)
        return 0.0;
    const double wcd = centroidDistance(a.centroid, b.centroid);
    const CentroidSummary& heavy = a.mass >= b.mass ? a : b;
    const double light = std::min(a.mass, b.mass);
    // The lighter set moves onto a part of the heavier one whose centroid lies within
    // 2 (1 - m/M) ρ_H of the heavier set's centroid (docs/OT_BOUNDS.md).
    const double slack = heavy.mass > light ? 2.0 * (1.0 - light / heavy.mass) * heavy.radius : 0.0;
    const double e = std::max(0.0, wcd - slack);
    return g == GroundDistance::SquaredEuclidean ? e * e : e;
}

double relaxedEmdDirected(const double* cost, const float* wa, std::int64_t na, const float* wb, std::int64_t nb)
{
    const double sa = totalWeight(wa, na, "set A");
    totalWeight(wb, nb, "set B");
    std::vector<double> rowMin, colMin;
    nearestCosts(cost, wa, na, wb, nb, rowMin, colMin);
    return fullSide(rowMin, wa, sa);
}

double relaxedEmd(const double* cost, const float* wa, std::int64_t na, const float* wb, std::int64_t nb)
{
    const double sa = totalWeight(wa, na, "set A");
    const double sb = totalWeight(wb, nb, "set B");
    std::vector<double> rowMin, colMin;
    nearestCosts(cost, wa, na, wb, nb, rowMin, colMin);
    const double moved = std::min(sa, sb);
    const double la = sa <= sb ? fullSide(rowMin, wa, sa) : partialSide(rowMin, wa, sa, moved);
    const double lb = sb <= sa ? fullSide(colMin, wb, sb) : partialSide(colMin, wb, sb, moved);
    return std::max(la, lb);
}

} // namespace setscope::ot
