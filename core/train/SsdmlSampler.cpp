// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/SsdmlSampler.h"

#include "core/semi/Ssdml.h"
#include "core/train/PartitionDraw.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace setscope::train {

namespace {

/// Tags the checkpointed state (format of state()).
constexpr std::int64_t kStateTag = 0x55444d4c; // "SDML"

class SsdmlTriplets final : public sdk::BatchSampler {
public:
    explicit SsdmlTriplets(const sdk::SamplerSpec& s)
        : m_items(s.items)
        , m_labels(s.labels)
        , m_seed(s.seed)
        , m_batch(s.options.integer("batch-triplets"))
        , m_partitionSize(s.options.integer("partition-size"))
        , m_every(s.options.integer("partition-epochs"))
    {
        m_options.k = static_cast<int>(s.options.integer("k"));
        m_options.gamma = s.options.real("gamma");
        m_options.normalisation = s.options.text("graph") == "symmetric" ? semi::GraphNormalisation::Symmetric
                                                                         : semi::GraphNormalisation::Row;
        if (m_labels.size() != m_items.size())
            throw std::invalid_argument("sampler ssdml-triplets: one label per pool item expected");
        std::int64_t labelled = 0;
        for (std::int32_t y : m_labels)
            labelled += y >= 0 ? 1 : 0;
        if (labelled == 0)
            throw std::invalid_argument("sampler ssdml-triplets: the pool has no labelled item (affinity propagation "
                                        "spreads the labels of some; does the stage read labels?)");
        const std::int64_t unlabelled = static_cast<std::int64_t>(m_items.size()) - labelled;
        m_rows = labelled + std::min(m_partitionSize, unlabelled);
        if (m_rows <= m_options.k)
            throw std::invalid_argument("sampler ssdml-triplets: a partition of " + std::to_string(m_rows) +
                                        " items is too small for k = " + std::to_string(m_options.k) + " neighbours");
        m_perEpoch = m_rows * (m_options.k / 2);
        m_batches = (m_perEpoch + m_batch - 1) / m_batch;
    }

    std::int64_t batchesPerEpoch() const override { return m_batches; }

    std::vector<std::vector<std::int64_t>> epochBatches(std::int64_t epoch) const override
    {
        if (m_triplets.empty())
            throw std::logic_error("sampler ssdml-triplets: epochBatches() before the first refresh()");
        const auto t = static_cast<std::int64_t>(m_triplets.size() / 3);
        std::vector<std::int64_t> order(static_cast<std::size_t>(t));
        std::iota(order.begin(), order.end(), 0);
        std::mt19937_64 rng(saltedEpochSeed(m_seed, epoch, kShuffleSalt));
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(m_batches));
        for (std::int64_t b = 0; b < m_batches; ++b) {
            auto& batch = out[static_cast<std::size_t>(b)];
            const std::int64_t end = std::min((b + 1) * m_batch, m_perEpoch);
            for (std::int64_t slot = b * m_batch; slot < end; ++slot) {
                const auto r = static_cast<std::size_t>(3 * order[static_cast<std::size_t>(slot % t)]);
                batch.insert(batch.end(), m_triplets.begin() + static_cast<std::ptrdiff_t>(r),
                             m_triplets.begin() + static_cast<std::ptrdiff_t>(r + 3));
            }
        }
        return out;
    }

    std::string describe() const override
    {
        return "SSDML triplets: partitions of " + std::to_string(m_rows) + " items (labelled + " +
               std::to_string(m_partitionSize) + " unlabelled), k = " + std::to_string(m_options.k) +
               ", re-mined every " + std::to_string(m_every) + " epoch(s), " + std::to_string(m_batch) +
               " triplets per batch";
    }

    std::int64_t refreshEvery() const override { return m_every; }

    void refresh(std::int64_t epoch, const sdk::EmbedItems& embed) override
    {
        DrawnPartition drawn = drawPartition(m_items, m_labels, m_partitionSize, m_seed, epoch);
        std::vector<std::int64_t>& items = drawn.items;
        const std::vector<std::int32_t>& labels = drawn.labels;
        int dim = 0;
        const std::vector<float> z = embed(items, dim);
        if (dim < 1 || z.size() != items.size() * static_cast<std::size_t>(dim))
            throw std::logic_error("sampler ssdml-triplets: the embedding has the wrong shape");
        const semi::PartitionTriplets mined =
            semi::minePartition({z.data(), static_cast<std::int64_t>(items.size()), dim}, labels, items, m_options);
        if (mined.triplets.empty())
            throw std::runtime_error("sampler ssdml-triplets: the partition gave no triplets");
        m_triplets.clear();
        m_triplets.reserve(mined.triplets.size() * 3);
        for (const semi::Triplet& t : mined.triplets)
            m_triplets.insert(m_triplets.end(), {t.anchor, t.positive, t.negative});
        m_minedAt = epoch;
    }

    std::vector<std::int64_t> state() const override
    {
        if (m_triplets.empty())
            return {};
        std::vector<std::int64_t> s{kStateTag, m_minedAt, static_cast<std::int64_t>(m_triplets.size())};
        s.insert(s.end(), m_triplets.begin(), m_triplets.end());
        return s;
    }

    void restoreState(const std::vector<std::int64_t>& s) override
    {
        if (s.size() < 3 || s[0] != kStateTag || s[2] < 3 || s[2] % 3 != 0 ||
            static_cast<std::int64_t>(s.size()) != 3 + s[2])
            throw std::invalid_argument("sampler ssdml-triplets: the checkpoint's mined triplets are malformed");
        std::vector<std::int64_t> pool = m_items;
        std::sort(pool.begin(), pool.end());
        for (std::size_t i = 3; i < s.size(); ++i)
            if (!std::binary_search(pool.begin(), pool.end(), s[i]))
                throw std::invalid_argument("sampler ssdml-triplets: the checkpoint's triplets name item " +
                                            std::to_string(s[i]) + ", which is not in this run's training pool");
        m_minedAt = s[1];
        m_triplets.assign(s.begin() + 3, s.end());
    }

private:
    std::vector<std::int64_t> m_items;
    std::vector<std::int32_t> m_labels;
    std::uint64_t m_seed;
    std::int64_t m_batch;
    std::int64_t m_partitionSize;
    std::int64_t m_every;
    semi::PropagationOptions m_options;
    std::int64_t m_rows = 0;
    std::int64_t m_perEpoch = 0; ///< triplet slots per epoch
    std::int64_t m_batches = 0;
    std::vector<std::int64_t> m_triplets; ///< (anchor, positive, negative) dataset items, flat
    std::int64_t m_minedAt = -1;
};

} // namespace

sdk::SamplerInfo ssdmlTripletSamplerInfo()
{
    using sdk::OptionSpec;
    return {"ssdml-triplets",
            "seed 004: triplets mined by affinity propagation on partitions (labelled + random unlabelled items) "
            "embedded by the current network",
            {OptionSpec::integer("batch-triplets", 100, 1, 1 << 20, "triplets per batch (seed 004: 100)"),
             OptionSpec::integer("partition-size", 9000, 1, 1 << 30,
                                 "unlabelled items drawn into each partition (seed 004: 9000)"),
             OptionSpec::integer("partition-epochs", 10, 1, 1 << 20,
                                 "epochs over one partition's triplets before the next partition is drawn and "
                                 "mined (seed 004: 10)"),
             OptionSpec::integer("k", 10, 2, 1000, "neighbours of the kNN graph (seed 004: 10; 50 for CUB / Cars)"),
             OptionSpec::real("gamma", 0.99, 1e-6, 0.999999, "γ of the affinity propagation (seed 004: 0.99)"),
             OptionSpec::choice("graph", "row", {"row", "symmetric"},
                                "Q of the propagation: row = 1/k on each node's kNN (seed 004); symmetric = "
                                "D^-1/2 A D^-1/2 on the kNN edges both ways (Zhou et al. 2004; docs/SSDML.md)")},
            /*needsLabels=*/false,
            [](const sdk::SamplerSpec& s) -> std::unique_ptr<sdk::BatchSampler> {
                return std::make_unique<SsdmlTriplets>(s);
            }};
}

} // namespace setscope::train
