// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/BatchTransport.h"

#include <cstdint>
#include <map>
#include <vector>

namespace setscope::data {
class Dataset;
}

namespace setscope::train::run {

class GradientSync;
struct EpochStats;
struct RunContext;
struct RunState;
struct StageRun;

/// One optimizer step of the stage being trained: this rank's parts of the batch through the
/// encoder, the loss and backward (with the batch's optimal transport when the loss or the
/// augmentation reads it), the gradients summed over the ranks, the learning-rate schedule,
/// the optimizer and MoCo's key encoder.
class StepRunner {
public:
    StepRunner(const RunContext& ctx, RunState& state, const GradientSync& sync);

    struct Result {
        double loss = 0.0;       ///< the step's loss: the mean over the batch's parts (all ranks')
        double emdSeconds = 0.0; ///< this rank's EMD time in the step
    };
    /// Trains `batch` of stage `st` at the current step (state.step, not advanced here); adds
    /// the step's figures to `stats`.
    Result step(const StageRun& st, const std::vector<std::int64_t>& batch, EpochStats& stats);

private:
    /// One part of the step's batch through the loss and backward: `offset` is the part's
    /// position in the whole batch (augmentation seeds follow the whole batch's positions),
    /// `scale` weighs its gradient. Returns the part's loss.
    double forwardBackward(const StageRun& st, const std::vector<std::int64_t>& items, std::size_t offset, double scale,
                           EpochStats& stats, double& emdSeconds);
    /// Finished pairwise EMD matrices from the cache, per dataset a stage trains on (looked up
    /// once, when the first stage that reads EMDs starts).
    const CachedEmd& cachedEmds(const data::Dataset& d);

    const RunContext& m_ctx;
    RunState& m_state;
    const GradientSync& m_sync;
    std::map<const data::Dataset*, CachedEmd> m_emdCaches;
};

} // namespace setscope::train::run
