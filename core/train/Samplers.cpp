// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/Samplers.h"

#include "core/nn/SizeBuckets.h"
#include "core/train/BatchSampler.h"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace setscope::train {

namespace {

std::uint64_t epochSeed(std::uint64_t seed, std::int64_t epoch)
{
    return seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(epoch) * 0xBF58476D1CE4E5B9ULL + 7;
}

class ClassBalanced final : public sdk::BatchSampler {
public:
    explicit ClassBalanced(const sdk::SamplerSpec& s)
        : m_sampler(s.items, s.labels, static_cast<int>(s.options.integer("classes")),
                    static_cast<int>(s.options.integer("per-class")), s.seed)
        , m_perClass(static_cast<int>(s.options.integer("per-class")))
    {
    }
    std::int64_t batchesPerEpoch() const override { return m_sampler.batchesPerEpoch(); }
    std::vector<std::vector<std::int64_t>> epochBatches(std::int64_t epoch) const override
    {
        return m_sampler.epochBatches(epoch);
    }
    std::string describe() const override
    {
        return "class-balanced batches of " + std::to_string(m_sampler.batchSize()) + " (" +
               std::to_string(m_sampler.batchSize() / m_perClass) + " classes x " + std::to_string(m_perClass) + ")";
    }

private:
    train::BatchSampler m_sampler;
    int m_perClass;
};

void checkPool(const sdk::SamplerSpec& s, const char* who)
{
    if (s.items.size() < 2)
        throw std::invalid_argument(std::string("sampler ") + who + ": the training pool has " +
                                    std::to_string(s.items.size()) + " items; a batch needs at least two");
}

class Random final : public sdk::BatchSampler {
public:
    explicit Random(const sdk::SamplerSpec& s)
        : m_items(s.items)
        , m_batch(std::min<std::int64_t>(s.options.integer("batch-size"), static_cast<std::int64_t>(s.items.size())))
        , m_seed(s.seed)
    {
        checkPool(s, "random");
        const auto n = static_cast<std::int64_t>(m_items.size());
        m_batches = n / m_batch + (n % m_batch >= 2 ? 1 : 0);
    }
    std::int64_t batchesPerEpoch() const override { return m_batches; }
    std::vector<std::vector<std::int64_t>> epochBatches(std::int64_t epoch) const override
    {
        std::vector<std::int64_t> order = m_items;
        std::mt19937_64 rng(epochSeed(m_seed, epoch));
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<std::vector<std::int64_t>> out;
        for (std::int64_t b = 0; b < m_batches; ++b) {
            const auto first = order.begin() + b * m_batch;
            const auto last = order.begin() + std::min<std::int64_t>((b + 1) * m_batch, static_cast<std::int64_t>(order.size()));
            out.emplace_back(first, last);
        }
        return out;
    }
    std::string describe() const override { return "random batches of " + std::to_string(m_batch); }

private:
    std::vector<std::int64_t> m_items;
    std::int64_t m_batch;
    std::uint64_t m_seed;
    std::int64_t m_batches = 0;
};

class SizeBucketed final : public sdk::BatchSampler {
public:
    explicit SizeBucketed(const sdk::SamplerSpec& s)
        : m_items(s.items)
        , m_seed(s.seed)
    {
        checkPool(s, "size-bucketed");
        if (s.setSizes.size() != s.items.size())
            throw std::invalid_argument("sampler size-bucketed: one set size per pool item expected");
        // sizeBucketedBatches() indexes sizes by item: spread them over the dataset's indices.
        std::int64_t maxItem = 0;
        for (std::int64_t i : m_items)
            maxItem = std::max(maxItem, i);
        m_sizeOfItem.assign(static_cast<std::size_t>(maxItem + 1), 0);
        for (std::size_t k = 0; k < m_items.size(); ++k)
            m_sizeOfItem[static_cast<std::size_t>(m_items[k])] = s.setSizes[k];
        m_opt.batchSize = std::min<std::int64_t>(s.options.integer("batch-size"), static_cast<std::int64_t>(m_items.size()));
        m_opt.chunkBatches = s.options.integer("chunk-batches");
        m_batches = static_cast<std::int64_t>(epochBatches(0).size());
    }
    std::int64_t batchesPerEpoch() const override { return m_batches; }
    std::vector<std::vector<std::int64_t>> epochBatches(std::int64_t epoch) const override
    {
        nn::SizeBucketing o = m_opt;
        o.seed = epochSeed(m_seed, epoch);
        std::vector<std::vector<std::int64_t>> out = nn::sizeBucketedBatches(m_items, m_sizeOfItem, o);
        out.erase(std::remove_if(out.begin(), out.end(), [](const auto& b) { return b.size() < 2; }), out.end());
        return out;
    }
    std::string describe() const override
    {
        return "size-bucketed batches of " + std::to_string(m_opt.batchSize) + " (chunks of " +
               std::to_string(m_opt.chunkBatches) + " batches)";
    }

private:
    std::vector<std::int64_t> m_items;
    std::vector<std::int64_t> m_sizeOfItem;
    nn::SizeBucketing m_opt;
    std::uint64_t m_seed;
    std::int64_t m_batches = 0;
};

} // namespace

sdk::SamplerInfo classBalancedSamplerInfo()
{
    using sdk::OptionSpec;
    return {"class-balanced",
            "batches of `classes` classes x `per-class` items each, so every anchor has positives (FaceNet)",
            {OptionSpec::integer("classes", 8, 2, 1 << 20, "classes per batch"),
             OptionSpec::integer("per-class", 16, 2, 1 << 20, "items per class in a batch")},
            /*needsLabels=*/true,
            [](const sdk::SamplerSpec& s) -> std::unique_ptr<sdk::BatchSampler> { return std::make_unique<ClassBalanced>(s); }};
}

sdk::SamplerInfo randomSamplerInfo()
{
    using sdk::OptionSpec;
    return {"random", "the pool shuffled every epoch, cut into batches (the papers' self-supervised batches)",
            {OptionSpec::integer("batch-size", 64, 2, 1 << 20, "sets per batch (seed 001 §6.2.2: 64)")},
            false,
            [](const sdk::SamplerSpec& s) -> std::unique_ptr<sdk::BatchSampler> { return std::make_unique<Random>(s); }};
}

sdk::SamplerInfo sizeBucketedSamplerInfo()
{
    using sdk::OptionSpec;
    return {"size-bucketed", "random batches of sets of similar size (less padding for the attention encoder)",
            {OptionSpec::integer("batch-size", 64, 2, 1 << 20, "sets per batch"),
             OptionSpec::integer("chunk-batches", 16, 1, 1 << 20,
                                 "batches per shuffled chunk sorted by size (1 = plain random batches)")},
            false,
            [](const sdk::SamplerSpec& s) -> std::unique_ptr<sdk::BatchSampler> {
                return std::make_unique<SizeBucketed>(s);
            }};
}

} // namespace setscope::train
