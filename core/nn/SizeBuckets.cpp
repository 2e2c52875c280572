// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/SizeBuckets.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

namespace setscope::nn {

namespace {

/// Uniform integer in [0, n) by rejection (n >= 1): the same on every standard library.
std::uint64_t bucketDraw(std::mt19937_64& rng, std::uint64_t n)
{
    const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % n;
    std::uint64_t x = rng();
    while (x >= limit)
        x = rng();
    return x % n;
}

template <class T>
void bucketShuffle(std::vector<T>& v, std::mt19937_64& rng)
{
    for (std::size_t i = v.size(); i > 1; --i)
        std::swap(v[i - 1], v[bucketDraw(rng, i)]);
}

} // namespace

std::vector<std::vector<std::int64_t>> sizeBucketedBatches(const std::vector<std::int64_t>& items,
                                                           const std::vector<std::int64_t>& sizeOfItem,
                                                           const SizeBucketing& options)
{
    if (options.batchSize < 1 || options.chunkBatches < 1)
        throw std::invalid_argument("sizeBucketedBatches: batchSize and chunkBatches must be >= 1");
    for (std::int64_t id : items)
        if (id < 0 || static_cast<std::size_t>(id) >= sizeOfItem.size())
            throw std::invalid_argument("sizeBucketedBatches: item " + std::to_string(id) + " has no size (" +
                                        std::to_string(sizeOfItem.size()) + " sizes)");
    std::mt19937_64 rng(options.seed);
    std::vector<std::int64_t> order = items;
    bucketShuffle(order, rng);

    const auto batch = static_cast<std::size_t>(options.batchSize);
    const std::size_t chunk = batch * static_cast<std::size_t>(options.chunkBatches);
    std::vector<std::vector<std::int64_t>> batches;
    batches.reserve((order.size() + batch - 1) / batch);
    for (std::size_t c = 0; c < order.size(); c += chunk) {
        const auto first = order.begin() + static_cast<std::ptrdiff_t>(c);
        const auto last = order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), c + chunk));
        // Stable: equal sizes keep their shuffled order.
        std::stable_sort(first, last, [&](std::int64_t a, std::int64_t b) {
            return sizeOfItem[static_cast<std::size_t>(a)] < sizeOfItem[static_cast<std::size_t>(b)];
        });
        for (auto b = first; b != last;) {
            const std::ptrdiff_t n = std::min(static_cast<std::ptrdiff_t>(batch), last - b);
            batches.emplace_back(b, b + n);
            b += n;
        }
    }
    bucketShuffle(batches, rng);
    return batches;
}

double PaddingCount::share() const
{
    return slots == 0 ? 0.0 : static_cast<double>(slots - real) / static_cast<double>(slots);
}

PaddingCount& PaddingCount::operator+=(const PaddingCount& o)
{
    real += o.real;
    slots += o.slots;
    return *this;
}

PaddingCount paddingCount(const std::vector<std::int64_t>& setSizes)
{
    PaddingCount c;
    if (setSizes.empty())
        return c;
    std::int64_t longest = 1;
    for (std::int64_t s : setSizes) {
        c.real += s;
        longest = std::max(longest, s);
    }
    c.slots = longest * static_cast<std::int64_t>(setSizes.size());
    return c;
}

double paddingShare(const std::vector<std::int64_t>& setSizes)
{
    return paddingCount(setSizes).share();
}

} // namespace setscope::nn
