// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// A training run made of parts (docs/ARCHITECTURE.md "Training"): what it reads (RunContext),
// its stages (StageSchedule, buildStage), its checkpoints (Checkpointer), its evaluation
// (EpochEvaluator), what it shows while it runs (Publisher), the ranks' gradients
// (GradientSync) and one optimizer step (StepRunner). TrainingRun composes them and keeps the
// loop. Internal to core/train (includes Torch); TrainingJob runs one on its worker thread.

#include "core/train/run/Checkpointer.h"
#include "core/train/run/EpochEvaluator.h"
#include "core/train/run/GradientSync.h"
#include "core/train/run/Publisher.h"
#include "core/train/run/RunContext.h"
#include "core/train/run/Stages.h"
#include "core/train/run/StepRunner.h"

#include <cstdint>
#include <vector>

namespace setscope::train::run {

class TrainingRun {
public:
    /// Checks and sets up everything that can be before the encoder is built (splits, stages and
    /// their samplers, the checkpoint to resume or start from); throws what the parts throw.
    TrainingRun(const data::Dataset& dataset, const data::Dataset* external, const TrainerConfig& config,
                const plugin::Registry& registry, dist::Communicator* comm, RunHost& host);

    /// Trains to the end (or throws job::Cancelled / the failure), reporting to the host.
    void run();

private:
    /// Builds the encoder and its starting weights, checks the ranks agree, enters the resumed
    /// stage, prepares the checkpoint folder, reports the plan and publishes the start.
    void begin();
    /// Builds stage `k` at the current step (restoring it from the checkpoint when `restore`).
    void enterStage(std::size_t k, bool restore);
    /// The batches of `epoch` of stage `k`, mined first when the sampler mines from the model.
    void loadEpochBatches(std::size_t k, std::int64_t epoch);
    /// After a step: counters, throttled progress, snapshots, the epoch's row, checkpoints.
    void afterStep(std::size_t k, std::int64_t epoch, double emdSeconds);
    /// The best epoch's model as the run's (its row scored again), the last snapshot, the end.
    void end();

    RunContext m_ctx;
    StageSchedule m_stages;
    RunState m_state;
    Checkpointer m_checkpoints;
    GradientSync m_sync;
    EpochEvaluator m_evaluator;
    StepRunner m_steps;
    Publisher m_publisher; ///< declared last: its snapshot thread stops first

    std::vector<std::vector<std::int64_t>> m_batches; ///< the batches of the epoch being trained
    std::int64_t m_batchesEpoch = -1;
    std::size_t m_batchesStage = 0;
    EpochStats m_epochStats;
    Clock::time_point m_lastReport;
};

} // namespace setscope::train::run
