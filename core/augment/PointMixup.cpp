// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/augment/PointMixup.h"

#include "core/ot/Emd.h"

namespace setscope::augment {

namespace {

/// Unmoved mass of an element below this share of x's total is rounding (float weights
/// summed in double differ between two normalised sets by ~1e-7), not partial transport.
constexpr double kUnmovedShare = 1e-6;

/// Interpolation along `flows` (checked, sorted by (i, j)); inputs are checked by the callers.
Augmented mixAlong(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                   std::span<const ot::Flow> flows, const PointMixupOptions& options)
{
    const std::size_t n = static_cast<std::size_t>(x.n);
    const std::size_t d = static_cast<std::size_t>(x.d);
    Augmented out;
    out.d = x.d;
    out.partner = partnerIndex;
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        total += x.weights[i];
    const double lambda = options.lambda;
    std::vector<double> weights;
    std::size_t k = 0; // next arc (sorted by (i, j))
    for (std::size_t i = 0; i < n; ++i) {
        const float* xi = x.points + i * d;
        double moved = 0.0;
        for (; k < flows.size() && static_cast<std::size_t>(flows[k].i) == i; ++k) {
            const ot::Flow& f = flows[k];
            const float* yj = partner.points + static_cast<std::size_t>(f.j) * d;
            for (std::size_t c = 0; c < d; ++c)
                out.points.push_back(static_cast<float>((1.0 - lambda) * xi[c] + lambda * yj[c]));
            weights.push_back(f.amount);
            moved += f.amount;
            out.changes.push_back({ChangeKind::Mixed, static_cast<std::int64_t>(i), out.n, partnerIndex, f.j, f.amount});
            ++out.n;
        }
        const double unmoved = x.weights[i] - moved;
        if (unmoved > kUnmovedShare * total) {
            out.points.insert(out.points.end(), xi, xi + d);
            weights.push_back(unmoved);
            ++out.n;
        }
    }
    double sum = 0.0;
    for (double w : weights)
        sum += w;
    const double scale = total / sum;
    out.weights.reserve(weights.size());
    for (double w : weights)
        out.weights.push_back(static_cast<float>(w * scale));
    return out;
}

} // namespace

Augmented pointMixupWith(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                         const PointMixupOptions& options)
{
    checkProbability(options.lambda, "PointMixup", "lambda");
    checkPair(x, partner, "PointMixup");
    ot::EmdOptions eo;
    eo.ground = options.ground;
    eo.flows = true;
    const ot::EmdResult r = ot::emd(x, partner, eo); // arcs sorted by (i, j)
    Augmented out = mixAlong(x, partner, partnerIndex, r.flows, options);
    out.partnerEmd = r.emd;
    return out;
}

Augmented pointMixupWithFlow(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                             std::span<const ot::Flow> flow, const PointMixupOptions& options)
{
    checkProbability(options.lambda, "PointMixup", "lambda");
    checkPair(x, partner, "PointMixup");
    checkFlow(flow, x, partner, "PointMixup");
    return mixAlong(x, partner, partnerIndex, flow, options);
}

Augmented pointMixup(const ot::PointSet& x, std::span<const ot::PointSet> candidates, std::int64_t self,
                     const PointMixupOptions& options)
{
    checkProbability(options.lambda, "PointMixup", "lambda");
    const Nearest nb = nearestByEmd(x, candidates, self, options.ground);
    return pointMixupWith(x, candidates[static_cast<std::size_t>(nb.index)], nb.index, options);
}

} // namespace setscope::augment
