// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/semi/Ssdml.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace setscope::semi {

std::vector<std::int64_t> samplePartition(const std::vector<std::int32_t>& labels, std::int64_t unlabelledCount,
                                          std::mt19937_64& rng)
{
    if (unlabelledCount < 0)
        throw std::invalid_argument("SSDML partition: the number of unlabelled items must be >= 0");
    std::vector<std::int64_t> labelled, unlabelled;
    for (std::size_t i = 0; i < labels.size(); ++i)
        (labels[i] >= 0 ? labelled : unlabelled).push_back(static_cast<std::int64_t>(i));
    if (unlabelledCount < static_cast<std::int64_t>(unlabelled.size())) {
        // Partial Fisher-Yates with our own index draws: std::shuffle and
        // uniform_int_distribution differ between standard libraries.
        for (std::int64_t i = 0; i < unlabelledCount; ++i) {
            const auto span = static_cast<std::uint64_t>(unlabelled.size()) - static_cast<std::uint64_t>(i);
            const auto j = i + static_cast<std::int64_t>(rng() % span);
            std::swap(unlabelled[static_cast<std::size_t>(i)], unlabelled[static_cast<std::size_t>(j)]);
        }
        unlabelled.resize(static_cast<std::size_t>(unlabelledCount));
        std::sort(unlabelled.begin(), unlabelled.end());
    }
    labelled.insert(labelled.end(), unlabelled.begin(), unlabelled.end());
    return labelled;
}

PartitionTriplets minePartition(eval::MatrixView features, const std::vector<std::int32_t>& labels,
                                const std::vector<std::int64_t>& items, const PropagationOptions& options,
                                job::JobControl* control, job::ProgressSink* sink)
{
    if (static_cast<std::int64_t>(items.size()) != features.rows)
        throw std::invalid_argument("SSDML partition: " + std::to_string(items.size()) + " item ids for " +
                                    std::to_string(features.rows) + " feature rows");
    PartitionTriplets out;
    out.items = items;
    out.affinities = propagateAffinities(features, labels, options, control, sink);
    out.triplets = mineTriplets(out.affinities);
    for (Triplet& t : out.triplets) {
        t.anchor = items[static_cast<std::size_t>(t.anchor)];
        t.positive = items[static_cast<std::size_t>(t.positive)];
        t.negative = items[static_cast<std::size_t>(t.negative)];
    }
    return out;
}

} // namespace setscope::semi
