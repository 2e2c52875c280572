// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/ProgressSink.h"

#include <cstdint>
#include <string>
#include <utility>
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
    std::string stage;             ///< the recipe stage ("pre-train", "fine-tune"; "train" without a recipe)
    /// Further named values: validation_knn, emd_seconds (EMD time of the epoch's steps, apart
    /// from the step time), emd_solved / emd_cached (exact EMDs the epoch solved / read from a
    /// cached pairwise matrix), padding_share (padded slots / all slots of the epoch's batches).
    /// A run resumed mid-epoch counts that epoch's figures from the resume on.
    std::vector<std::pair<std::string, double>> extra;
};

/// What a training job reports beyond any job's progress: losses, metrics, checkpoints.
class TrainingSink : public job::ProgressSink {
public:
    /// One training step finished (for loss curves). Called at most ~20 times per second.
    virtual void stepLoss(std::int64_t step, double loss) {}
    virtual void epochMetrics(const EpochMetrics& m) {}
    /// A checkpoint file was written (complete and renamed into place).
    virtual void checkpointWritten(std::int64_t step, const std::string& path) {}
};

} // namespace setscope::train
