// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/PartitionDraw.h"

#include "core/semi/Ssdml.h"

#include <random>

namespace setscope::train {

std::uint64_t saltedEpochSeed(std::uint64_t seed, std::int64_t epoch, std::uint64_t salt)
{
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(epoch) * 0xBF58476D1CE4E5B9ULL + salt;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 29;
    return x;
}

DrawnPartition drawPartition(const std::vector<std::int64_t>& poolItems, const std::vector<std::int32_t>& poolLabels,
                             std::int64_t unlabelled, std::uint64_t seed, std::int64_t epoch)
{
    std::mt19937_64 rng(saltedEpochSeed(seed, epoch, kPartitionSalt));
    const std::vector<std::int64_t> rows = semi::samplePartition(poolLabels, unlabelled, rng);
    DrawnPartition p;
    p.items.reserve(rows.size());
    p.labels.reserve(rows.size());
    for (const std::int64_t r : rows) {
        p.items.push_back(poolItems[static_cast<std::size_t>(r)]);
        p.labels.push_back(poolLabels[static_cast<std::size_t>(r)]);
    }
    return p;
}

} // namespace setscope::train
