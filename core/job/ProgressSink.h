// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::train {

/// Metrics at the end of an epoch (or of an evaluation).
struct EpochMetrics {
    int epoch = 0;                 ///< 1-based; 0 = before training
    std::int64_t step = 0;
    double meanLoss = 0.0;
    double knnAccuracy = -1.0;     ///< distance-weighted kNN (k=10) on the test split, -1 = not computed
    std::vector<int> recallK;      ///< K of recallAtK
    std::vector<double> recallAtK; ///< Recall@K within the test split
    double seconds = 0.0;          ///< wall time since the job started
};

enum class JobStatus { Idle, Running, Finished, Cancelled, Failed };
const char* statusName(JobStatus s);

/// How a job reports. Core defines it; the CLI prints, the GUI implements it with queued
/// Qt signals (gui/bridge). Every method is called on the job's worker thread, so an
/// implementation must not touch widgets directly. Calls are cheap and at most ~10 per
/// second for progress().
class ProgressSink {
public:
    virtual ~ProgressSink() = default;
    /// `done` of `total` units (total 0 = unknown); `what` says what is being done.
    virtual void progress(std::int64_t done, std::int64_t total, const std::string& what) {}
    /// A line for the user's log.
    virtual void message(const std::string& text) {}
    /// One training step finished (for loss curves). Called at most ~20 times per second.
    virtual void stepLoss(std::int64_t step, double loss) {}
    virtual void epochMetrics(const EpochMetrics& m) {}
    /// A checkpoint file was written (complete and renamed into place).
    virtual void checkpointWritten(std::int64_t step, const std::string& path) {}
    /// Last call of a job: its final status and, for Failed, the reason.
    virtual void finished(JobStatus status, const std::string& detail) {}
};

} // namespace setscope::train
