// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/ProgressSink.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace setscope::train {

/// What a run reports at the end of an epoch (or of an evaluation).
struct EpochMetrics {
    int epoch = 0;                 ///< 1-based; 0 = before training
    std::int64_t step = 0;
    double meanLoss = 0.0;
    double seconds = 0.0;          ///< wall time since the job started
    std::string stage;             ///< the recipe stage ("pre-train", "fine-tune"; "train" without a recipe)
    /// Named values, in a stable order: first the evaluation's scores under the names of eval's
    /// metric registry (knn-accuracy, recall-hit@K, recall-class@K, precision@K; docs/METRICS.md),
    /// then the run's own figures: validation-knn (the model-selection score), emd-seconds (EMD
    /// time of the epoch's steps, apart from the step time), emd-solved / emd-cached (exact EMDs
    /// the epoch solved / read from a cached pairwise matrix), padding-share (padded slots / all
    /// slots of the epoch's batches). A run resumed mid-epoch counts that epoch's figures from
    /// the resume on. The console, the project store and the GUI show whatever is here.
    std::vector<std::pair<std::string, double>> values;

    /// The value named `name`, if there is one.
    std::optional<double> value(std::string_view name) const
    {
        for (const auto& [k, v] : values)
            if (k == name)
                return v;
        return std::nullopt;
    }
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
