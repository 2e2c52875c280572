// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// What every part of a training run reads and nothing changes once the run has started: the
// data and its splits, this rank's configuration, the plan, the device, and where the run
// reports to. Internal to core/train (includes Torch).

#include "core/train/RunPlan.h"
#include "core/train/TrainerConfig.h"
#include "core/train/run/RunRecord.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
struct LabelSet;
} // namespace setscope::data
namespace setscope::dist {
class Communicator;
}
namespace setscope::plugin {
class Registry;
}

namespace setscope::train::run {

using Clock = std::chrono::steady_clock;

/// Mixes three numbers into a seed (splitmix-style): the per-stage, per-step and per-item seeds
/// of a run all derive from the configured seed through it.
std::uint64_t mixSeed(std::uint64_t a, std::uint64_t b, std::uint64_t c);

struct RunContext {
    /// Checks what can be checked before anything is built (batch shards against the ranks, the
    /// external dataset, a train split to train on); throws std::invalid_argument naming it.
    /// Sets the calling thread's intra-op threads (the run's thread).
    RunContext(const data::Dataset& dataset, const data::Dataset* external, const TrainerConfig& jobConfig,
               const plugin::Registry& registry, dist::Communicator* comm, RunHost& host);

    const Clock::time_point t0;
    const data::Dataset& ds;
    const data::Dataset* external; ///< the dataset of stages marked external, or null
    /// The configuration as the job was given it (what every rank must share), and this rank's:
    /// rank 0 alone evaluates, snapshots and writes checkpoints.
    const TrainerConfig& jobConfig;
    const TrainerConfig cfg;
    const plugin::Registry& registry;
    dist::Communicator* const comm; ///< null in a single process
    const int world;
    const int rank;
    RunHost& host;
    const torch::Device device;
    const std::string threads; ///< the steps' intra-op threads, in words
    const RunPlan plan;

    /// The run's label set (null without one) and its labels by dataset item (-1 unlabelled; all
    /// -1 without a label set).
    const data::LabelSet* labelSet = nullptr;
    std::vector<std::int32_t> labels;
    /// The validation items (a stratified share of the labelled train items, when the plan asks
    /// for model selection) and the training pool (the rest of the train split), ascending.
    std::vector<std::int64_t> validation;
    std::vector<std::int64_t> pool;

    job::JobControl& control() const { return host.jobControl(); }
    void message(const std::string& text) const { host.message(text); }
};

} // namespace setscope::train::run
