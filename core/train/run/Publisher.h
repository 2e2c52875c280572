// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/run/SnapshotEmbedder.h"

#include <cstdint>
#include <vector>

namespace setscope::train::run {

struct RunContext;
struct RunState;
class StageSchedule;

/// What a run shows while it trains: a copy of the current weights as a Torch-free model::ModelHandle (a TrainedModel)
/// (for views and retrieval), and snapshots of a fixed subset of items embedded with it (test
/// split first, stratified) on a thread of their own (SnapshotEmbedder).
class Publisher {
public:
    Publisher(const RunContext& ctx, const StageSchedule& stages, RunState& state);

    /// The weights at `atStep` as the run's current model. Building the copy does not draw
    /// from the default generator the run's dropout uses.
    void publishModel(std::int64_t atStep);
    /// publishModel(), then the snapshot items embedded with that copy (queued; at most one
    /// waits while another is embedded).
    void publishSnapshot(std::int64_t atStep);
    /// Waits until every requested snapshot is published (the end of a run).
    void finish() { m_embedder.finish(); }

private:
    const RunContext& m_ctx;
    const StageSchedule& m_stages;
    RunState& m_state;
    const std::vector<std::int64_t> m_items;
    SnapshotEmbedder m_embedder; ///< declared after what its thread reads
};

} // namespace setscope::train::run
