// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/EmbeddingSnapshot.h"
#include "core/train/TrainingSink.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace setscope::job {
class JobControl;
}

namespace setscope::model {
class ModelHandle;
}

namespace setscope::train {


namespace run {

/// What a training run has produced so far, readable from any thread while it runs: the epoch
/// rows, the newest and the best checkpoint, the model of the last snapshot, the snapshots
/// themselves and the run's length. TrainingJob owns one and answers its getters from it; the
/// run (TrainingRun) writes it. Torch-free (TrainingJob.h includes it).
class RunRecord {
public:
    std::vector<EpochMetrics> history() const;
    void setHistory(std::vector<EpochMetrics> history);
    void appendEpoch(const EpochMetrics& m);

    std::string lastCheckpoint() const;
    void setLastCheckpoint(std::string path);
    std::string bestCheckpoint() const;
    void setBestCheckpoint(std::string path);

    std::shared_ptr<const model::ModelHandle> model() const;
    void setModel(std::shared_ptr<const model::ModelHandle> model);

    std::int64_t totalSteps() const { return m_totalSteps.load(); }
    void setTotalSteps(std::int64_t total) { m_totalSteps.store(total); }

    job::SnapshotBuffer& snapshots() { return m_snapshots; }
    const job::SnapshotBuffer& snapshots() const { return m_snapshots; }

private:
    mutable std::mutex m_mutex;
    std::vector<EpochMetrics> m_history;
    std::string m_lastCheckpoint;
    std::string m_bestCheckpoint;
    std::shared_ptr<const model::ModelHandle> m_model;
    std::atomic<std::int64_t> m_totalSteps{0};
    job::SnapshotBuffer m_snapshots;
};

/// What a run reports to and is stopped by: the job it runs in (TrainingJob), whose progress
/// sink, cancel/pause control and counters are the job's.
class RunHost {
public:
    virtual ~RunHost() = default;
    /// Polled between steps and inside long work (evaluation, EMDs, mining, the archive check).
    virtual job::JobControl& jobControl() = 0;
    virtual void message(const std::string& text) = 0;
    virtual void progress(std::int64_t done, std::int64_t total, const std::string& what) = 0;
    /// The lock-free counters the GUI polls every frame, after each step.
    virtual void setCounters(std::int64_t done, std::int64_t total, int epoch, double loss) = 0;
    /// The sink's training events (losses, metrics, checkpoints); null when the job reports to
    /// a plain ProgressSink or to none.
    virtual TrainingSink* trainingSink() = 0;
    virtual RunRecord& record() = 0;
};

} // namespace run
} // namespace setscope::train
