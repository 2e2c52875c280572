// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/augment/PointSwap.h"

#include "core/ot/Emd.h"

#include <algorithm>
#include <cmath>

namespace setscope::augment {

PointSwapOptions PointSwapOptions::variant(int v, double omega)
{
    PointSwapOptions o;
    o.omega = omega;
    switch (v) {
    case 0: break;
    case 1:
        o.partner = PartnerChoice::Random;
        o.substitute = SubstituteChoice::Uniform;
        break;
    case 2:
        o.partner = PartnerChoice::Random;
        o.substitute = SubstituteChoice::Assignment;
        break;
    case 3:
        o.partner = PartnerChoice::NearestEmd;
        o.substitute = SubstituteChoice::Uniform;
        break;
    default:
        throw ot::OtError("PointSwap: variant must be 0 (PointSwap itself), 1, 2 or 3 (seed 001 Table 11), got " +
                          std::to_string(v));
    }
    return o;
}

namespace {

/// Eq. 6 on x with `partner`: `flow` (checked, sorted by (i, j)) is used with
/// SubstituteChoice::Assignment only. Inputs are checked by the callers.
Augmented swapAlong(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                    std::span<const ot::Flow> flows, const PointSwapOptions& options, Rng& rng)
{
    const std::size_t d = static_cast<std::size_t>(x.d);
    const std::size_t n = static_cast<std::size_t>(x.n);

    Augmented out;
    out.n = x.n;
    out.d = x.d;
    out.partner = partnerIndex;
    out.points.assign(x.points, x.points + n * d);
    out.weights.assign(x.weights, x.weights + n);

    // The flow's arcs by row: rows[i] .. rows[i + 1] index the arcs leaving x_i.
    std::vector<std::size_t> rows(n + 1, 0);
    std::vector<std::int64_t> present; // partner elements of positive weight, for the uniform choice
    if (options.substitute == SubstituteChoice::Assignment) {
        for (const ot::Flow& f : flows)
            ++rows[static_cast<std::size_t>(f.i) + 1];
        for (std::size_t i = 0; i < n; ++i)
            rows[i + 1] += rows[i];
    } else {
        for (std::int64_t j = 0; j < partner.n; ++j)
            if (partner.weights[j] > 0.0f)
                present.push_back(j);
    }

    for (std::size_t i = 0; i < n; ++i) {
        if (!(uniform01(rng) < options.omega))
            continue;
        std::int64_t j = -1;
        double flow = 0.0;
        if (options.substitute == SubstituteChoice::Assignment) {
            const std::size_t b = rows[i], e = rows[i + 1];
            if (b == e)
                continue; // nothing of x_i moves: Eq. 6 needs f_ij > 0
            std::size_t pick = b;
            if (options.pick == FlowPick::Largest) {
                for (std::size_t k = b + 1; k < e; ++k)
                    if (flows[k].amount > flows[pick].amount)
                        pick = k;
            } else if (e - b > 1) {
                double total = 0.0;
                for (std::size_t k = b; k < e; ++k)
                    total += flows[k].amount;
                const double t = uniform01(rng) * total;
                double acc = 0.0;
                pick = e - 1; // rounding: the running sum may stop short of total
                for (std::size_t k = b; k < e; ++k) {
                    acc += flows[k].amount;
                    if (t < acc) {
                        pick = k;
                        break;
                    }
                }
            } else {
                (void)uniform01(rng); // one draw per swapped element whatever the row's arcs
            }
            j = flows[pick].j;
            flow = flows[pick].amount;
        } else {
            j = present[static_cast<std::size_t>(uniformIndex(rng, present.size()))];
        }
        std::copy(partner.points + j * x.d, partner.points + (j + 1) * x.d, out.points.begin() + static_cast<std::ptrdiff_t>(i * d));
        out.changes.push_back({ChangeKind::Swapped, static_cast<std::int64_t>(i), static_cast<std::int64_t>(i), partnerIndex, j, flow});
    }
    return out;
}

} // namespace

Augmented pointSwapWith(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                        const PointSwapOptions& options, Rng& rng)
{
    checkProbability(options.omega, "PointSwap", "omega");
    checkPair(x, partner, "PointSwap");
    if (options.substitute != SubstituteChoice::Assignment)
        return swapAlong(x, partner, partnerIndex, {}, options, rng);
    ot::EmdOptions eo;
    eo.ground = options.ground;
    eo.flows = true;
    const ot::EmdResult r = ot::emd(x, partner, eo); // arcs sorted by (i, j)
    Augmented out = swapAlong(x, partner, partnerIndex, r.flows, options, rng);
    out.partnerEmd = r.emd;
    return out;
}

Augmented pointSwapWithFlow(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                            std::span<const ot::Flow> flow, const PointSwapOptions& options, Rng& rng)
{
    checkProbability(options.omega, "PointSwap", "omega");
    checkPair(x, partner, "PointSwap");
    if (options.substitute == SubstituteChoice::Assignment)
        checkFlow(flow, x, partner, "PointSwap");
    return swapAlong(x, partner, partnerIndex, flow, options, rng);
}

Augmented pointSwap(const ot::PointSet& x, std::span<const ot::PointSet> candidates, std::int64_t self,
                    const PointSwapOptions& options, Rng& rng)
{
    checkProbability(options.omega, "PointSwap", "omega");
    std::int64_t p = -1;
    double emd = std::numeric_limits<double>::quiet_NaN();
    if (options.partner == PartnerChoice::NearestEmd) {
        const Nearest nb = nearestByEmd(x, candidates, self, options.ground);
        p = nb.index;
        emd = nb.emd;
    } else {
        const auto size = static_cast<std::int64_t>(candidates.size());
        const bool selfIn = self >= 0 && self < size;
        const std::int64_t count = size - (selfIn ? 1 : 0);
        if (count <= 0)
            throw ot::OtError("PointSwap: no candidate partner besides set x (" + std::to_string(size) + " candidates)");
        p = static_cast<std::int64_t>(uniformIndex(rng, static_cast<std::uint64_t>(count)));
        if (selfIn && p >= self)
            ++p;
        checkSet(candidates[static_cast<std::size_t>(p)], "candidate " + std::to_string(p), "PointSwap");
    }
    Augmented out = pointSwapWith(x, candidates[static_cast<std::size_t>(p)], p, options, rng);
    if (std::isnan(out.partnerEmd))
        out.partnerEmd = emd;
    return out;
}

} // namespace setscope::augment
