// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/PartitionSampler.h"

#include "core/semi/AffinityPropagation.h"
#include "core/semi/Ssdml.h"
#include "core/train/PartitionDraw.h"
#include "core/train/PairAffinity.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace setscope::train {

namespace {

/// Tags the checkpointed state (format of state()).
constexpr std::int64_t kStateTag = 0x50415254; // "PART"

enum class Affinity { None, Binary, Heat, Density, Propagated };

Affinity affinityOf(const std::string& s)
{
    if (s == "none")
        return Affinity::None;
    if (s == "binary")
        return Affinity::Binary;
    if (s == "heat")
        return Affinity::Heat;
    if (s == "density")
        return Affinity::Density;
    if (s == "propagated")
        return Affinity::Propagated;
    throw std::invalid_argument("sampler ssdml-partition: unknown affinity '" + s + "'");
}

class PartitionRows final : public sdk::BatchSampler, public PairAffinitySampler {
public:
    explicit PartitionRows(const sdk::SamplerSpec& s)
        : m_items(s.items)
        , m_labels(s.labels)
        , m_seed(s.seed)
        , m_batch(s.options.integer("batch-size"))
        , m_partitionSize(s.options.integer("partition-size"))
        , m_every(s.options.integer("partition-epochs"))
        , m_affinity(affinityOf(s.options.text("affinity")))
    {
        m_options.k = static_cast<int>(s.options.integer("k"));
        m_options.gamma = s.options.real("gamma");
        if (m_labels.size() != m_items.size())
            throw std::invalid_argument("sampler ssdml-partition: one label per pool item expected");
        std::int64_t labelled = 0;
        for (std::size_t i = 0; i < m_items.size(); ++i) {
            labelled += m_labels[i] >= 0 ? 1 : 0;
            m_labelOf.emplace(m_items[i], m_labels[i]);
        }
        if (labelled == 0)
            throw std::invalid_argument("sampler ssdml-partition: the pool has no labelled item (the baselines' "
                                        "labelled terms need some; does the stage read labels?)");
        m_labelledRows = labelled;
        m_unlabelledRows = std::min(m_partitionSize, static_cast<std::int64_t>(m_items.size()) - labelled);
        m_perBatchLabelled = std::min(s.options.integer("labelled-per-batch"), labelled);
        m_perBatchUnlabelled = m_batch - m_perBatchLabelled;
        if (m_unlabelledRows > 0 && m_perBatchUnlabelled < 1)
            throw std::invalid_argument("sampler ssdml-partition: labelled-per-batch (" +
                                        std::to_string(m_perBatchLabelled) + ") leaves no room for unlabelled rows in "
                                        "batches of " + std::to_string(m_batch));
        m_batches = m_unlabelledRows > 0 ? (m_unlabelledRows + m_perBatchUnlabelled - 1) / m_perBatchUnlabelled
                                         : (labelled + m_perBatchLabelled - 1) / m_perBatchLabelled;
        if (m_affinity != Affinity::None && labelled + m_unlabelledRows <= m_options.k)
            throw std::invalid_argument("sampler ssdml-partition: a partition of " +
                                        std::to_string(labelled + m_unlabelledRows) + " items is too small for k = " +
                                        std::to_string(m_options.k) + " neighbours");
    }

    std::int64_t batchesPerEpoch() const override { return m_batches; }

    std::vector<std::vector<std::int64_t>> epochBatches(std::int64_t epoch) const override
    {
        if (m_partition.empty())
            throw std::logic_error("sampler ssdml-partition: epochBatches() before the first refresh()");
        std::vector<std::int64_t> lab, unl;
        for (std::size_t r = 0; r < m_partition.size(); ++r)
            (m_labelOf.at(m_partition[r]) >= 0 ? lab : unl).push_back(m_partition[r]);
        std::mt19937_64 rng(saltedEpochSeed(m_seed, epoch, kShuffleSalt));
        std::shuffle(lab.begin(), lab.end(), rng);
        std::shuffle(unl.begin(), unl.end(), rng);
        const auto nl = static_cast<std::int64_t>(lab.size());
        const auto nu = static_cast<std::int64_t>(unl.size());
        const std::int64_t perLab = std::min(m_perBatchLabelled, nl);
        std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(m_batches));
        for (std::int64_t b = 0; b < m_batches; ++b) {
            auto& batch = out[static_cast<std::size_t>(b)];
            for (std::int64_t i = 0; i < perLab; ++i)
                batch.push_back(lab[static_cast<std::size_t>((b * perLab + i) % nl)]);
            const std::int64_t end = std::min((b + 1) * m_perBatchUnlabelled, nu);
            for (std::int64_t slot = b * m_perBatchUnlabelled; slot < end; ++slot)
                batch.push_back(unl[static_cast<std::size_t>(slot)]);
        }
        return out;
    }

    std::string describe() const override
    {
        static const char* names[] = {"none", "binary", "heat", "density", "propagated"};
        return "SSDML partitions: " + std::to_string(m_labelledRows) + " labelled + " +
               std::to_string(m_unlabelledRows) + " unlabelled rows, batches of " + std::to_string(m_batch) + " (" +
               std::to_string(m_perBatchLabelled) + " labelled), affinity " + names[static_cast<int>(m_affinity)] +
               (m_affinity == Affinity::None ? "" : ", k = " + std::to_string(m_options.k)) + ", re-drawn every " +
               std::to_string(m_every) + " epoch(s)";
    }

    std::int64_t refreshEvery() const override { return m_every; }

    void refresh(std::int64_t epoch, const sdk::EmbedItems& embed) override
    {
        DrawnPartition drawn = drawPartition(m_items, m_labels, m_partitionSize, m_seed, epoch);
        std::vector<std::int64_t>& items = drawn.items;
        const std::vector<std::int32_t>& labels = drawn.labels;
        std::unordered_map<std::uint64_t, float> edges;
        if (m_affinity != Affinity::None)
            edges = weighEdges(items, labels, embed);
        m_partition = std::move(items);
        m_edges = std::move(edges);
        indexPartition();
        m_minedAt = epoch;
    }

    std::vector<std::int64_t> state() const override
    {
        if (m_partition.empty())
            return {};
        std::vector<std::int64_t> s{kStateTag, m_minedAt, static_cast<std::int64_t>(m_partition.size())};
        s.insert(s.end(), m_partition.begin(), m_partition.end());
        s.push_back(static_cast<std::int64_t>(m_edges.size()));
        std::vector<std::pair<std::uint64_t, float>> sorted(m_edges.begin(), m_edges.end());
        std::sort(sorted.begin(), sorted.end());
        for (const auto& [key, w] : sorted) {
            s.push_back(static_cast<std::int64_t>(key));
            s.push_back(static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(w)));
        }
        return s;
    }

    void restoreState(const std::vector<std::int64_t>& s) override
    {
        auto bad = [] { return std::invalid_argument("sampler ssdml-partition: the checkpoint's partition is malformed"); };
        if (s.size() < 4 || s[0] != kStateTag || s[2] < 1 || static_cast<std::int64_t>(s.size()) < 4 + s[2])
            throw bad();
        const std::int64_t n = s[2];
        const std::int64_t e = s[static_cast<std::size_t>(3 + n)];
        if (e < 0 || static_cast<std::int64_t>(s.size()) != 4 + n + 2 * e)
            throw bad();
        std::vector<std::int64_t> partition(s.begin() + 3, s.begin() + 3 + n);
        for (std::int64_t item : partition)
            if (!m_labelOf.count(item))
                throw std::invalid_argument("sampler ssdml-partition: the checkpoint's partition names item " +
                                            std::to_string(item) + ", which is not in this run's training pool");
        std::unordered_map<std::uint64_t, float> edges;
        for (std::int64_t i = 0; i < e; ++i) {
            const auto key = static_cast<std::uint64_t>(s[static_cast<std::size_t>(4 + n + 2 * i)]);
            const auto bits = static_cast<std::uint32_t>(s[static_cast<std::size_t>(5 + n + 2 * i)]);
            if (key / static_cast<std::uint64_t>(n) >= static_cast<std::uint64_t>(n))
                throw bad();
            edges.emplace(key, std::bit_cast<float>(bits));
        }
        m_minedAt = s[1];
        m_partition = std::move(partition);
        m_edges = std::move(edges);
        indexPartition();
    }

    std::vector<float> batchAffinity(const std::vector<std::int64_t>& batch) const override
    {
        if (m_partition.empty())
            throw std::logic_error("sampler ssdml-partition: batchAffinity() before the first refresh()");
        const std::size_t b = batch.size();
        std::vector<std::int64_t> rows(b);
        for (std::size_t i = 0; i < b; ++i) {
            const auto it = m_rowOf.find(batch[i]);
            if (it == m_rowOf.end())
                throw std::invalid_argument("sampler ssdml-partition: item " + std::to_string(batch[i]) +
                                            " is not in the current partition");
            rows[i] = it->second;
        }
        std::vector<float> w(b * b, 0.0f);
        if (m_edges.empty())
            return w;
        for (std::size_t i = 0; i < b; ++i)
            for (std::size_t j = i + 1; j < b; ++j) {
                const auto it = m_edges.find(key(rows[i], rows[j]));
                if (it != m_edges.end())
                    w[i * b + j] = w[j * b + i] = it->second;
            }
        return w;
    }

    bool hasAffinity() const override { return m_affinity != Affinity::None; }

private:
    std::uint64_t key(std::int64_t a, std::int64_t b) const
    {
        const auto n = static_cast<std::uint64_t>(m_partition.size());
        const auto lo = static_cast<std::uint64_t>(std::min(a, b));
        const auto hi = static_cast<std::uint64_t>(std::max(a, b));
        return lo * n + hi;
    }

    void indexPartition()
    {
        m_rowOf.clear();
        for (std::size_t r = 0; r < m_partition.size(); ++r)
            m_rowOf.emplace(m_partition[r], static_cast<std::int64_t>(r));
    }

    /// The graph's symmetrised edges (unordered row pairs of the partition) and their weights.
    std::unordered_map<std::uint64_t, float> weighEdges(const std::vector<std::int64_t>& items,
                                                        const std::vector<std::int32_t>& labels,
                                                        const sdk::EmbedItems& embed)
    {
        int dim = 0;
        std::vector<float> z = embed(items, dim);
        const auto n = static_cast<std::int64_t>(items.size());
        if (dim < 1 || z.size() != items.size() * static_cast<std::size_t>(dim))
            throw std::logic_error("sampler ssdml-partition: the embedding has the wrong shape");
        // l2-normalised, as buildKnnGraph does internally: the kernels use the same distances.
        for (std::int64_t r = 0; r < n; ++r) {
            float* row = z.data() + r * dim;
            double s = 0.0;
            for (int c = 0; c < dim; ++c)
                s += static_cast<double>(row[c]) * row[c];
            if (s > 0.0) {
                const auto inv = static_cast<float>(1.0 / std::sqrt(s));
                for (int c = 0; c < dim; ++c)
                    row[c] *= inv;
            }
        }
        const eval::MatrixView view{z.data(), n, dim};
        const auto n64 = static_cast<std::uint64_t>(n);
        auto keyOf = [n64](std::int64_t a, std::int64_t b) {
            const auto lo = static_cast<std::uint64_t>(std::min(a, b));
            const auto hi = static_cast<std::uint64_t>(std::max(a, b));
            return lo * n64 + hi;
        };
        std::unordered_map<std::uint64_t, float> edges;
        if (m_affinity == Affinity::Propagated) {
            const semi::NeighbourhoodAffinities w = semi::propagateAffinities(view, labels, m_options);
            for (std::int64_t a = 0; a < n; ++a)
                for (int t = 0; t < w.graph.k; ++t)
                    edges[keyOf(a, w.graph.neighbour(a, t))] = static_cast<float>(w.at(a, t));
            return edges;
        }
        const semi::KnnGraph g = semi::buildKnnGraph(view, m_options.k);
        auto sq = [&](std::int64_t a, std::int64_t b) {
            double s = 0.0;
            for (int c = 0; c < dim; ++c) {
                const double d = static_cast<double>(view.row(a)[c]) - view.row(b)[c];
                s += d * d;
            }
            return s;
        };
        double meanSq = 0.0;
        std::vector<double> sigma(static_cast<std::size_t>(n), 0.0);
        for (std::int64_t a = 0; a < n; ++a) {
            for (int t = 0; t < g.k; ++t)
                meanSq += sq(a, g.neighbour(a, t));
            sigma[static_cast<std::size_t>(a)] = std::sqrt(sq(a, g.neighbour(a, g.k - 1)));
        }
        meanSq /= static_cast<double>(n * g.k);
        for (std::int64_t a = 0; a < n; ++a)
            for (int t = 0; t < g.k; ++t) {
                const std::int64_t b = g.neighbour(a, t);
                const double d2 = sq(a, b);
                double w = 1.0;
                if (m_affinity == Affinity::Heat) {
                    w = meanSq > 0.0 ? std::exp(-d2 / meanSq) : 1.0;
                } else if (m_affinity == Affinity::Density) {
                    const double s2 = sigma[static_cast<std::size_t>(a)] * sigma[static_cast<std::size_t>(b)];
                    w = s2 > 0.0 ? std::exp(-d2 / s2) : (d2 > 0.0 ? 0.0 : 1.0);
                }
                edges[keyOf(a, b)] = static_cast<float>(w);
            }
        return edges;
    }

    std::vector<std::int64_t> m_items;
    std::vector<std::int32_t> m_labels;
    std::unordered_map<std::int64_t, std::int32_t> m_labelOf;
    std::uint64_t m_seed;
    std::int64_t m_batch;
    std::int64_t m_partitionSize;
    std::int64_t m_every;
    Affinity m_affinity;
    semi::PropagationOptions m_options;
    std::int64_t m_labelledRows = 0;
    std::int64_t m_unlabelledRows = 0;
    std::int64_t m_perBatchLabelled = 0;
    std::int64_t m_perBatchUnlabelled = 0;
    std::int64_t m_batches = 0;
    std::vector<std::int64_t> m_partition; ///< dataset items, row r of the graph = m_partition[r]
    std::unordered_map<std::int64_t, std::int64_t> m_rowOf;
    std::unordered_map<std::uint64_t, float> m_edges; ///< key lo * n + hi of partition rows
    std::int64_t m_minedAt = -1;
};

} // namespace

sdk::SamplerInfo ssdmlPartitionSamplerInfo()
{
    using sdk::OptionSpec;
    return {"ssdml-partition",
            "seed 004's deep baselines: rows of partitions (labelled + random unlabelled items), with the batch's kNN "
            "affinities for the graph-based losses",
            {OptionSpec::integer("batch-size", 200, 2, 1 << 20, "rows per batch"),
             OptionSpec::integer("labelled-per-batch", 100, 1, 1 << 20,
                                 "labelled rows in every batch, cycling through the partition's labelled items "
                                 "(at most all of them)"),
             OptionSpec::integer("partition-size", 9000, 1, 1 << 30,
                                 "unlabelled items drawn into each partition (seed 004: 9000)"),
             OptionSpec::integer("partition-epochs", 10, 1, 1 << 20,
                                 "epochs over one partition before the next is drawn (seed 004: 10)"),
             OptionSpec::choice("affinity", "heat", {"none", "binary", "heat", "density", "propagated"},
                                "edge weights W of the partition's kNN graph: none (SERAPH), binary, heat (LRML), "
                                "density (ISDML), propagated (APLLR, APIT)"),
             OptionSpec::integer("k", 10, 1, 1000, "neighbours of the kNN graph (seed 004: 10)"),
             OptionSpec::real("gamma", 0.99, 1e-6, 0.999999, "γ of the affinity propagation (affinity propagated)")},
            /*needsLabels=*/false,
            [](const sdk::SamplerSpec& s) -> std::unique_ptr<sdk::BatchSampler> {
                return std::make_unique<PartitionRows>(s);
            }};
}

} // namespace setscope::train
