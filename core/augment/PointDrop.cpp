// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/augment/PointDrop.h"

#include <algorithm>

namespace setscope::augment {

Augmented pointDrop(const ot::PointSet& x, const PointDropOptions& options, Rng& rng)
{
    checkProbability(options.p, "PointDrop", "p");
    checkSet(x, "set x", "PointDrop");
    const std::size_t n = static_cast<std::size_t>(x.n);
    const std::size_t d = static_cast<std::size_t>(x.d);

    std::vector<char> keep(n, 0);
    double total = 0.0, kept = 0.0;
    std::int64_t rescue = -1; // the positive-weight element whose draw came closest to keeping it
    double rescueU = -1.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double u = uniform01(rng);
        total += x.weights[i];
        keep[i] = !(u < options.p);
        if (keep[i])
            kept += x.weights[i];
        if (x.weights[i] > 0.0f && u > rescueU) {
            rescueU = u;
            rescue = static_cast<std::int64_t>(i);
        }
    }
    if (!(kept > 0.0)) { // every element of positive weight dropped (validate() guarantees one exists)
        keep[static_cast<std::size_t>(rescue)] = 1;
        kept += x.weights[rescue];
    }

    Augmented out;
    out.d = x.d;
    const double scale = total / kept;
    for (std::size_t i = 0; i < n; ++i) {
        if (!keep[i]) {
            out.changes.push_back({ChangeKind::Dropped, static_cast<std::int64_t>(i), -1, -1, -1, 0.0});
            continue;
        }
        out.points.insert(out.points.end(), x.points + i * d, x.points + (i + 1) * d);
        out.weights.push_back(static_cast<float>(x.weights[i] * scale));
        ++out.n;
    }
    return out;
}

} // namespace setscope::augment
