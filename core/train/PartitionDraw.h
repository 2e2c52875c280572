// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <vector>

/// What the two samplers of seed 004's Algorithm 1 (ssdml-triplets, ssdml-partition) share:
/// the seeds of their per-epoch draws and the draw of one partition. Torch-free.
namespace setscope::train {

/// Salts of saltedEpochSeed(): the same for both samplers, so the same run seed draws the same
/// partitions for SSDML and for its baselines.
inline constexpr std::uint64_t kPartitionSalt = 0x9a; ///< which items form the partition
inline constexpr std::uint64_t kShuffleSalt = 0x0b;   ///< the order of an epoch's batches

/// A well-mixed seed for the draws of `epoch` (splitmix-style finaliser of seed, epoch, salt).
std::uint64_t saltedEpochSeed(std::uint64_t seed, std::int64_t epoch, std::uint64_t salt);

/// One partition X_L ∪ X_U^(p) of the pool: every labelled pool item plus `unlabelled` random
/// unlabelled ones (semi::samplePartition, drawn with saltedEpochSeed(seed, epoch,
/// kPartitionSalt)), as dataset items with their pool labels.
struct DrawnPartition {
    std::vector<std::int64_t> items;
    std::vector<std::int32_t> labels;
};
DrawnPartition drawPartition(const std::vector<std::int64_t>& poolItems, const std::vector<std::int32_t>& poolLabels,
                             std::int64_t unlabelled, std::uint64_t seed, std::int64_t epoch);

} // namespace setscope::train
