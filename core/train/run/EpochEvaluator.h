// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::train::run {

class Checkpointer;
struct RunContext;
struct RunState;

/// Where an epoch's steps spent their time and what their batches were (docs/BENCHMARKS.md
/// "step profile"): wall seconds of each phase summed over the epoch's steps, the EMDs solved
/// and read from a cache, the padded slots, the all-reduce. On a GPU the phases are timed as
/// the host issues them (kernels run asynchronously), so only their sum is exact there.
struct EpochStats {
    double augment = 0, collate = 0, forward = 0, loss = 0, backward = 0, optimizer = 0, steps = 0;
    double emdSeconds = 0.0;
    std::int64_t emdSolved = 0, emdCached = 0;
    std::int64_t realSlots = 0, slots = 0;
    double allreduceSeconds = 0.0;
};

/// One row of the run's history per epoch (EpochMetrics): the mean loss and the epoch's figures
/// always; when the epoch is scored, the evaluation of the embedding of every item (kNN,
/// Recall@K, precision@K, spread, the stage's own metrics) and the validation kNN that selects
/// the best epoch of the last stage (Checkpointer::offerBest).
class EpochEvaluator {
public:
    /// `total`: the run's steps (for the progress of an evaluation).
    EpochEvaluator(const RunContext& ctx, RunState& state, Checkpointer& checkpoints, std::int64_t total);

    /// How bunched the start is, as a message: semi-hard mining cannot leave a start whose
    /// distances are all ~0 (docs/LOSSES.md, "WSSET: the printed form and the authors' code").
    void reportInitialSpread();

    /// Records the row of `epoch` (at the current step) in the run's history and reports it.
    /// `extra`: the stage's metrics besides the standard ones (sdk::RecipeStage::metrics).
    /// `scored`: whether the row is evaluated (evaluate_every; a stage's last epoch always is).
    /// A row of the best epoch (stage name "best ...") carries no step figures.
    void evaluate(int epoch, double meanLoss, const std::string& stageName, bool finalStage,
                  const std::vector<std::string>& extra, bool scored, const EpochStats& stats);

private:
    double validationKnn(const std::vector<float>& all, int dim) const;

    const RunContext& m_ctx;
    RunState& m_state;
    Checkpointer& m_checkpoints;
    const std::int64_t m_total;
};

} // namespace setscope::train::run
