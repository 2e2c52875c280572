// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// A run's stages: each one's pool and sampler, set up before the first step (so the run's
// length is known before it starts), and the stage being trained with what it built (loss,
// augmentation, optimizer, MoCo's key encoder). Internal to core/train (includes Torch).

#include "core/train/KeyEncoder.h"
#include "core/train/RunPlan.h"

#include <setscope/sdk/Augmentation.h>
#include <setscope/sdk/Model.h>
#include <setscope/sdk/Sampler.h>

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::losses {
class PairAffinityLoss;
}

namespace setscope::train {

class PairAffinitySampler;

namespace run {

struct RunContext;

/// `fraction` of the items of each class of `items` (at least one per class with any; labels
/// < 0 left out), chosen by a seeded shuffle of each class. Returns them ascending.
std::vector<std::int64_t> stratifiedShare(const std::vector<std::int64_t>& items, const std::vector<std::int32_t>& labels,
                                          double fraction, std::uint64_t seed);
/// `perClass` items of each class of `items` (all of a smaller class), likewise.
std::vector<std::int64_t> perClassShare(const std::vector<std::int64_t>& items, const std::vector<std::int32_t>& labels,
                                        std::int64_t perClass, std::uint64_t seed);

/// One stage as it runs: the pool it samples and its sampler.
struct StageRun {
    const PlannedStage* plan = nullptr;
    const data::Dataset* dataset = nullptr;
    std::vector<std::int64_t> pool;
    bool supervised = false;
    /// Semi-supervised stages: the stage's labels by dataset item (-1 beyond the kept share);
    /// empty otherwise (the run's labels apply).
    std::vector<std::int32_t> labels;
    /// A sampler with the refresh capability has mined (or restored) its batches.
    bool mined = false;
    std::unique_ptr<sdk::BatchSampler> sampler;
    std::string samplerName;
    std::int64_t perEpoch = 0;
    std::int64_t steps = 0;
    std::int64_t firstStep = 0; ///< global step at which the stage starts

    /// The labels a batch of this stage is trained with: the stage's, the run's, or none.
    const std::vector<std::int32_t>& labelsOr(const std::vector<std::int32_t>& runLabels) const
    {
        return labels.empty() ? runLabels : labels;
    }
};

/// Every stage of the run with its pool and sampler, and the run's length.
class StageSchedule {
public:
    /// Decides which stages are supervised and checks that their labels exist; throws
    /// std::invalid_argument naming the stage otherwise.
    explicit StageSchedule(const RunContext& ctx);

    std::size_t size() const { return m_stages.size(); }
    StageRun& operator[](std::size_t k) { return m_stages[k]; }
    const StageRun& operator[](std::size_t k) const { return m_stages[k]; }
    const StageRun& last() const { return m_stages.back(); }
    /// Steps of the whole run (the stages' sum, cut to max_steps).
    std::int64_t total() const { return m_total; }
    /// The stage `step` belongs to.
    std::size_t stageOf(std::int64_t step) const;
    /// Epochs finished at `step`, counted across stages.
    std::int64_t epochOf(std::int64_t step) const;

private:
    std::vector<StageRun> m_stages;
    std::int64_t m_total = 0;
};

/// The stage being trained and what it built.
struct ActiveStage {
    /// The stage's index; the stage count before the first stage is entered.
    std::size_t index = 0;
    std::shared_ptr<sdk::MetricLoss> loss;
    std::unique_ptr<sdk::SetAugmentation> augmentation;
    std::unique_ptr<torch::optim::Optimizer> opt;
    std::unique_ptr<KeyEncoder> keyEnc; ///< MoCo's momentum key encoder, when the stage's loss asks for one
    sdk::LossNeeds needs;
    losses::PairAffinityLoss* affinityLoss = nullptr;       ///< when the loss reads the batch's graph
    const PairAffinitySampler* affinitySampler = nullptr; ///< and the sampler that gives it
    std::vector<double> baseLr;                           ///< each parameter group's rate before the schedule
    /// What the ranks sum the gradients of: the encoder's and the loss's parameters.
    std::vector<torch::Tensor> gradParams;

    /// Records each parameter group's learning rate as the schedule's base.
    void captureBaseLr();
    /// "stage k/n name: loss + augmentation on 'data', N items, ..." for the run's messages.
    std::string describe(const StageRun& st, std::size_t stageCount) const;
};

/// The run's state that its parts share and change: the encoder, the stage being trained, the
/// step and the epoch's loss so far. Owned by TrainingRun.
struct RunState {
    std::shared_ptr<sdk::SetEncoder> enc;
    /// The stage being trained (index = the stage count and no optimizer before the first).
    ActiveStage stage;
    std::int64_t step = 0;
    double epochLossSum = 0.0;
    std::int64_t epochLossCount = 0;
    double lastLoss = 0.0;

    bool inStage() const { return stage.opt != nullptr; }
};

/// Builds stage `k`'s loss, augmentation, optimizer and key encoder for `enc` at `step` (seeded
/// per stage; a stage that re-initialises the head does so at its first step). Throws
/// std::invalid_argument when the loss, the sampler and the augmentation do not fit together.
ActiveStage buildStage(const RunContext& ctx, StageRun& st, std::size_t k, std::int64_t step, sdk::SetEncoder& enc);

} // namespace run
} // namespace setscope::train
