// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/ProgressSink.h"

#include <cstdint>
#include <memory>
#include <string>

namespace setscope::data {
class Dataset;
struct LabelSet;
}
namespace setscope::train {
struct TrainerConfig;
}

namespace setscope::project {

class ProjectStore;

/// Registers `dataset` in the project (path + content hash) and makes sure the project
/// holds each of its shipped label sets (created from the dataset's labels the first time).
/// Returns the dataset id. Blocking (SQLite writes).
std::int64_t registerDataset(ProjectStore& store, const data::Dataset& dataset, const std::string& path);

/// The dataset with the project's current labels (user edits included) in place of the
/// shipped ones, for every label set the project holds for it.
data::Dataset withProjectLabels(const ProjectStore& store, std::int64_t datasetId, const data::Dataset& dataset);

/// A ProgressSink that records a training run in the project store and forwards every call
/// to `next` (may be null): per-epoch metrics (mean_loss, knn_accuracy, recall@K), every
/// checkpoint, and the final status. Created for one run (createRun is called here); runs on
/// the job's worker thread like any sink. A store error is reported through next->message()
/// and does not stop training: the run goes on, the record is incomplete, and the user is
/// told so.
class RunRecorder final : public train::ProgressSink {
public:
    RunRecorder(ProjectStore& store, std::int64_t datasetId, const train::TrainerConfig& config,
                train::ProgressSink* next);

    std::int64_t runId() const { return m_runId; }

    void progress(std::int64_t done, std::int64_t total, const std::string& what) override;
    void message(const std::string& text) override;
    void stepLoss(std::int64_t step, double loss) override;
    void epochMetrics(const train::EpochMetrics& m) override;
    void checkpointWritten(std::int64_t step, const std::string& path) override;
    void finished(train::JobStatus status, const std::string& detail) override;

private:
    void storeFailed(const std::exception& e);

    ProjectStore& m_store;
    train::ProgressSink* m_next;
    std::int64_t m_runId = 0;
};

} // namespace setscope::project
