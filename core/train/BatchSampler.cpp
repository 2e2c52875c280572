// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/BatchSampler.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>

namespace setscope::train {

BatchSampler::BatchSampler(std::vector<std::int64_t> items, std::vector<std::int32_t> labels, int classesPerBatch,
                           int perClass, std::uint64_t seed)
    : m_perClass(perClass)
    , m_seed(seed)
{
    if (items.size() != labels.size())
        throw std::invalid_argument("sampler: items and labels differ in length");
    std::map<std::int32_t, std::vector<std::int64_t>> byLabel;
    for (std::size_t i = 0; i < items.size(); ++i)
        if (labels[i] >= 0)
            byLabel[labels[i]].push_back(items[i]);
    std::size_t usable = 0;
    for (auto& [l, v] : byLabel)
        if (v.size() >= 2) {
            usable += v.size();
            m_byClass.push_back(std::move(v));
        }
    if (m_byClass.size() < 2)
        throw std::invalid_argument("training needs at least two classes with two or more labelled items each in the "
                                    "train split (found " + std::to_string(m_byClass.size()) + ")");
    m_classesPerBatch = std::min<int>(classesPerBatch, static_cast<int>(m_byClass.size()));
    m_batchesPerEpoch = std::max<std::int64_t>(1, static_cast<std::int64_t>(usable) / batchSize());
}

std::vector<std::vector<std::int64_t>> BatchSampler::epochBatches(std::int64_t epoch) const
{
    std::mt19937_64 rng(m_seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(epoch) * 0xBF58476D1CE4E5B9ULL + 1);
    std::vector<std::vector<std::int64_t>> pools(m_byClass.size());
    std::vector<std::size_t> next(m_byClass.size(), 0);
    for (std::size_t c = 0; c < m_byClass.size(); ++c) {
        pools[c] = m_byClass[c];
        std::shuffle(pools[c].begin(), pools[c].end(), rng);
    }
    std::vector<std::size_t> classes(m_byClass.size());
    std::iota(classes.begin(), classes.end(), 0);

    std::vector<std::vector<std::int64_t>> batches(static_cast<std::size_t>(m_batchesPerEpoch));
    for (auto& batch : batches) {
        std::shuffle(classes.begin(), classes.end(), rng);
        batch.reserve(static_cast<std::size_t>(batchSize()));
        for (int p = 0; p < m_classesPerBatch; ++p) {
            const std::size_t c = classes[static_cast<std::size_t>(p)];
            // A class smaller than perClass contributes all its items once.
            const std::size_t take = std::min<std::size_t>(static_cast<std::size_t>(m_perClass), pools[c].size());
            for (std::size_t t = 0; t < take; ++t) {
                if (next[c] == pools[c].size()) {
                    std::shuffle(pools[c].begin(), pools[c].end(), rng);
                    next[c] = 0;
                    // The class's t items already in this batch (its last t) go last, so the
                    // batch holds no set twice (take <= the class's size leaves enough).
                    const auto taken = batch.end() - static_cast<std::ptrdiff_t>(t);
                    std::stable_partition(pools[c].begin(), pools[c].end(), [&](std::int64_t i) {
                        return std::find(taken, batch.end(), i) == batch.end();
                    });
                }
                batch.push_back(pools[c][next[c]++]);
            }
        }
    }
    return batches;
}

} // namespace setscope::train
