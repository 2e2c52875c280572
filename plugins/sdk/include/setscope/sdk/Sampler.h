// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Batch samplers as a registry kind: which items form each mini-batch. Torch-free.

#include <setscope/sdk/Options.h>

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::sdk {

/// What a sampler is built from: the training pool of one stage of a run.
struct SamplerSpec {
    OptionValues options;               ///< resolved against the sampler's schema
    std::vector<std::int64_t> items;    ///< dataset indices of the pool
    std::vector<std::int32_t> labels;   ///< one per pool item, -1 unlabelled (all -1 in self-supervised stages)
    std::vector<std::int64_t> setSizes; ///< one per pool item: elements of its set
    std::uint64_t seed = 1;
};

/// The batches of every epoch, a pure function of (options, pool, seed, epoch): a resumed
/// run draws the same batches as an uninterrupted one.
class BatchSampler {
public:
    virtual ~BatchSampler() = default;
    virtual std::int64_t batchesPerEpoch() const = 0;
    /// Every batch of epoch `epoch` (0-based), each a list of dataset indices from the pool.
    virtual std::vector<std::vector<std::int64_t>> epochBatches(std::int64_t epoch) const = 0;
    /// One line for the log: "batches of 64, 8 classes x 8".
    virtual std::string describe() const = 0;
};

} // namespace setscope::sdk
