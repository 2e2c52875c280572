// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/Perplexity.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace setscope::util {

void calibratePerplexityRow(const double* dist, std::int64_t count, std::int64_t skip, double logU, double* row)
{
    double dmin = std::numeric_limits<double>::infinity();
    double dsum = 0.0;
    for (std::int64_t j = 0; j < count; ++j) {
        if (j == skip)
            continue;
        dmin = std::min(dmin, dist[j]);
        dsum += dist[j];
    }
    const std::int64_t others = skip >= 0 && skip < count ? count - 1 : count;
    const double meanShift = dsum / static_cast<double>(others) - dmin;
    double beta = meanShift > 0.0 ? 1.0 / meanShift : 1.0;
    double lo = 0.0;
    double hi = std::numeric_limits<double>::infinity();

    for (int tries = 0; tries < kPerplexityMaxTries; ++tries) {
        double sum = 0.0;
        double s1 = 0.0;
        double s2 = 0.0;
        for (std::int64_t j = 0; j < count; ++j) {
            if (j == skip) {
                row[j] = 0.0;
                continue;
            }
            const double e = dist[j] - dmin;
            const double w = std::exp(-beta * e);
            row[j] = w;
            sum += w;
            s1 += w * e;
            s2 += w * e * e;
        }
        const double mean = s1 / sum;
        const double var = std::max(0.0, s2 / sum - mean * mean);
        const double entropy = std::log(sum) + beta * mean;
        const double diff = entropy - logU;
        if (std::abs(diff) < kPerplexityEntropyTolerance)
            break;
        if (diff > 0.0)
            lo = beta; // too flat: sharpen
        else
            hi = beta;
        const double slope = -beta * var;
        const double newton = slope < 0.0 ? beta - diff / slope : -1.0;
        if (std::isfinite(newton) && newton > lo && newton < hi)
            beta = newton;
        else if (std::isinf(hi))
            beta *= 2.0;
        else
            beta = 0.5 * (lo + hi);
    }
    double sum = 0.0;
    for (std::int64_t j = 0; j < count; ++j)
        sum += row[j];
    for (std::int64_t j = 0; j < count; ++j)
        row[j] /= sum;
}

} // namespace setscope::util
