// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Batch samplers as a registry kind: which items form each mini-batch. Torch-free.

#include <setscope/sdk/Options.h>

#include <cstdint>
#include <functional>
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

/// Embeds dataset items with the run's current network (eval mode, no gradient). Returns
/// items.size() x dim floats, row-major, and sets `dim`. Valid only during refresh(), on the
/// training thread.
using EmbedItems = std::function<std::vector<float>(const std::vector<std::int64_t>& items, int& dim)>;

/// The batches of every epoch, a pure function of (options, pool, seed, epoch): a resumed
/// run draws the same batches as an uninterrupted one. A sampler that mines its batches from
/// the current model (seed 004's triplets) also implements the optional refresh capability
/// below; the batches are then a pure function of (options, pool, seed, epoch, state()).
class BatchSampler {
public:
    virtual ~BatchSampler() = default;
    virtual std::int64_t batchesPerEpoch() const = 0;
    /// Every batch of epoch `epoch` (0-based), each a list of dataset indices from the pool.
    virtual std::vector<std::vector<std::int64_t>> epochBatches(std::int64_t epoch) const = 0;
    /// One line for the log: "batches of 64, 8 classes x 8".
    virtual std::string describe() const = 0;

    // Optional capability: batches mined from the model being trained.

    /// > 0: the trainer calls refresh() before the first batch of every epoch e of the stage with
    /// e % refreshEvery() == 0, and epochBatches() only after the first refresh. 0 (default):
    /// never; the batches depend on the pool and seed only.
    virtual std::int64_t refreshEvery() const { return 0; }
    /// Mines the batches of the epochs [epoch, epoch + refreshEvery()) with `embed` (the
    /// current network). Runs on the training thread; may take seconds.
    virtual void refresh(std::int64_t /*epoch*/, const EmbedItems& /*embed*/) {}
    /// What refresh() built, stored in checkpoints: a run resumed within those epochs restores
    /// it (restoreState()) instead of mining again with weights that have moved on. Empty for
    /// samplers without the capability.
    virtual std::vector<std::int64_t> state() const { return {}; }
    /// Throws std::invalid_argument when `state` is not one that state() wrote for this pool.
    virtual void restoreState(const std::vector<std::int64_t>& /*state*/) {}
};

} // namespace setscope::sdk
