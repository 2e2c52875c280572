// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/SnapshotSubset.h"

#include "core/data/Dataset.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

namespace setscope::train {

std::vector<std::int64_t> snapshotSubset(const data::Dataset& ds, const std::vector<std::int32_t>& labels, int n,
                                         std::uint64_t seed)
{
    if (n <= 0) { // every item
        std::vector<std::int64_t> all(ds.size());
        std::iota(all.begin(), all.end(), 0);
        return all;
    }
    std::vector<std::int64_t> pool = ds.indices(data::Split::Test);
    if (pool.empty()) {
        pool.resize(ds.size());
        std::iota(pool.begin(), pool.end(), 0);
    }
    if (static_cast<std::int64_t>(pool.size()) <= n)
        return pool;
    std::mt19937_64 rng(seed ^ 0xA5A5A5A5ULL);
    std::map<std::int32_t, std::vector<std::int64_t>> byClass;
    for (std::int64_t i : pool)
        byClass[labels[static_cast<std::size_t>(i)]].push_back(i);
    std::vector<std::int64_t> out;
    const double frac = static_cast<double>(n) / static_cast<double>(pool.size());
    for (auto& [l, v] : byClass) {
        std::shuffle(v.begin(), v.end(), rng);
        const auto take = std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(v.size()) * frac));
        out.insert(out.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(take, v.size())));
    }
    std::sort(out.begin(), out.end());
    if (static_cast<std::int64_t>(out.size()) > n)
        out.resize(static_cast<std::size_t>(n));
    return out;
}

} // namespace setscope::train
