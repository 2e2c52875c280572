// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// Batches of sets of similar size, so a padded batch (nn::collate pads to its largest set)
// is mostly real elements. Torch-free.

#include <cstdint>
#include <vector>

namespace setscope::nn {

struct SizeBucketing {
    std::int64_t batchSize = 64;
    /// Sets are shuffled, cut into chunks of chunkBatches * batchSize sets and sorted by size
    /// within each chunk; each chunk is then cut into batches. Larger chunks pad less and mix
    /// less: 1 is plain shuffled batches, a chunk as large as the data is a global sort.
    std::int64_t chunkBatches = 16;
    std::uint64_t seed = 0;
};

/// Groups `items` into batches of similar set size: `sizeOfItem[id]` is the size of item
/// `id`. Every item appears exactly once; all batches have `batchSize` items except at
/// most one smaller one (the end of the last chunk). The order of the batches is shuffled
/// too, so an epoch does not run from small sets to large ones. The result depends only on
/// the arguments (the shuffles use std::mt19937_64 and a bounded draw of our own, not
/// std::shuffle, whose algorithm is the standard library's choice).
/// Throws std::invalid_argument for batchSize or chunkBatches < 1 or an id outside sizeOfItem.
std::vector<std::vector<std::int64_t>> sizeBucketedBatches(const std::vector<std::int64_t>& items,
                                                           const std::vector<std::int64_t>& sizeOfItem,
                                                           const SizeBucketing& options);

/// Slots of batches collated to their largest set (nn::collate: S = max(1, largest size)).
struct PaddingCount {
    std::int64_t real = 0;  ///< elements of the sets
    std::int64_t slots = 0; ///< B x S summed over the batches
    /// Padded slots / all slots (0 when there are no slots).
    double share() const;
    PaddingCount& operator+=(const PaddingCount& o);
};

/// Real elements and slots of one batch given its sets' sizes.
PaddingCount paddingCount(const std::vector<std::int64_t>& setSizes);
/// Padded slots / all slots of one batch: 1 - sum(sizes) / (B * max(1, max size)).
double paddingShare(const std::vector<std::int64_t>& setSizes);

} // namespace setscope::nn
