// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainingSink.h"

#include <cstdint>
#include <memory>
#include <string>

namespace setscope::data {
class Dataset;
struct LabelSet;
}
namespace setscope::train {
struct TrainerConfig;
class TrainingJob;
}
namespace setscope::plugin {
class Registry;
}

namespace setscope::project {

class ProjectStore;

/// Registers `dataset` in the project (path + content hash) and makes sure the project
/// holds each of its shipped label sets (created from the dataset's labels the first time).
/// Returns the dataset id. Blocking (SQLite writes).
std::int64_t registerDataset(ProjectStore& store, const data::Dataset& dataset, const std::string& path);

/// The dataset with the project's current labels (user edits included) in place of the
/// shipped ones, for every label set the project holds for it. Copies the dataset once.
data::Dataset withProjectLabels(const ProjectStore& store, std::int64_t datasetId, const data::Dataset& dataset);

/// A dataset opened through a project: its id there and the dataset with the project's labels.
struct AttachedDataset {
    std::int64_t datasetId = 0;
    std::shared_ptr<const data::Dataset> dataset;
};
/// registerDataset() then withProjectLabels(): what the CLI and the GUI do to open a
/// dataset in a project. Blocking (SQLite writes with fsync, one copy of the dataset), so
/// the GUI calls it on a worker thread. Throws ProjectError / std::exception on failure.
AttachedDataset attachDataset(ProjectStore& store, const data::Dataset& dataset, const std::string& path);

/// A ProgressSink that records a training run in the project store and forwards every call
/// to `next` (may be null): per-epoch metrics (mean-loss, seconds and every named value of
/// EpochMetrics: knn-accuracy, recall-hit@K, recall-class@K, ...), every
/// checkpoint, and the final status. Created for one run (createRun is called here); runs on
/// the job's worker thread like any sink. A store error is reported through next->message()
/// and does not stop training: the run goes on, the record is incomplete, and the user is
/// told so.
///
/// Ownership: the recorder shares the store, so a job that is still stopping can record its
/// end even after its owner (e.g. the GUI switching projects) has let go of the store.
class RunRecorder final : public train::TrainingSink {
public:
    RunRecorder(std::shared_ptr<ProjectStore> store, std::int64_t datasetId, const train::TrainerConfig& config,
                train::TrainingSink* next);

    std::int64_t runId() const { return m_runId; }

    void progress(std::int64_t done, std::int64_t total, const std::string& what) override;
    void message(const std::string& text) override;
    void stepLoss(std::int64_t step, double loss) override;
    void epochMetrics(const train::EpochMetrics& m) override;
    void checkpointWritten(std::int64_t step, const std::string& path) override;
    void finished(job::JobStatus status, const std::string& detail) override;

private:
    void storeFailed(const std::exception& e);

    std::shared_ptr<ProjectStore> m_store;
    train::TrainingSink* m_next;
    std::int64_t m_runId = 0;
};

/// A training run as the CLI and the GUI start it: the job and, in a project, the recorder
/// that it reports through.
struct TrainingRun {
    std::unique_ptr<train::TrainingJob> job;
    std::unique_ptr<RunRecorder> recorder; ///< null without a project, or when recording failed
    /// What to pass to job->start(): the recorder, or `next` when there is none.
    train::TrainingSink* sink = nullptr;
    /// Why the run is not recorded although a project was given ("" otherwise): the project
    /// could not create the run's row. The caller decides whether to go on without it.
    std::string recordError;
};

/// Sets up a training run; the one place where the CLI and the GUI do it. Builds the job for
/// `config` on `dataset` (`external`: the dataset of a recipe's external stages, or null;
/// throws std::invalid_argument for a bad configuration before anything is recorded). With a
/// `store` (and the dataset's id there), the run is recorded: a run that names no checkpoint
/// folder writes its checkpoints to newRunCheckpointDir(*store), and the stored
/// configuration says so. `next` (may be null) gets every report. Blocking (one SQLite insert).
TrainingRun prepareTrainingRun(std::shared_ptr<ProjectStore> store, std::int64_t datasetId,
                               std::shared_ptr<const data::Dataset> dataset, train::TrainerConfig config,
                               const plugin::Registry& registry, std::shared_ptr<const data::Dataset> external,
                               train::TrainingSink* next);

/// A new folder name for a recorded run's checkpoints:
/// <store.checkpointDir()>/run-<UTC yyyymmdd-hhmmss-mmm>-<process id>, with "-2", "-3", ...
/// when this process gave that name out before or the folder exists (not created here).
std::string newRunCheckpointDir(const ProjectStore& store);

} // namespace setscope::project
