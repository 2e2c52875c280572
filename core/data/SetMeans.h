// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/Dataset.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace setscope::data {

/// One vector per item of `items`: the item's vector, or for a set the weighted mean of its
/// elements (sum_e w_e x_e / sum_e w_e, accumulated in double), items.size() x ds.dim(),
/// row-major. What a map shows before training (the GUI's first map, `setscope-cli tsne`
/// without a checkpoint), and what the mlp encoder pools a set to.
inline std::vector<float> weightedMeans(const Dataset& ds, std::span<const std::int64_t> items)
{
    const auto d = static_cast<std::size_t>(ds.dim());
    std::vector<float> out(items.size() * d, 0.0f);
    std::vector<double> acc(d);
    for (std::size_t r = 0; r < items.size(); ++r) {
        const ItemView it = ds.item(static_cast<std::size_t>(items[r]));
        double wsum = 0.0;
        for (std::size_t e = 0; e < it.count; ++e)
            wsum += it.weights ? it.weights[e] : 1.0;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::size_t e = 0; e < it.count; ++e) {
            const double w = (it.weights ? it.weights[e] : 1.0) / (wsum > 0 ? wsum : 1.0);
            const std::span<const float> v = it.element(e);
            for (std::size_t k = 0; k < d; ++k)
                acc[k] += w * v[k];
        }
        float* row = out.data() + r * d;
        for (std::size_t k = 0; k < d; ++k)
            row[k] = static_cast<float>(acc[k]);
    }
    return out;
}

} // namespace setscope::data
