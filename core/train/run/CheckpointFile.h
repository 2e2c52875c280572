// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// The checkpoint file (format "setscope-checkpoint-2"; format 1 still read): its header, how it
// is opened (through the archive check) and how a resume or a fine-tuning start is checked
// against it. Internal to core/train (includes Torch); the public checks are checkResume() and
// checkpointConfig() in TrainingJob.h.

#include "core/train/TrainerConfig.h"
#include "core/train/TrainingSink.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
}

namespace setscope::train::run {

/// Format 2 (recipes): adds the stage index and the loss module's state. Format 1 files
/// (one stage, no loss parameters) are still read.
inline constexpr const char* kCheckpointFormat = "setscope-checkpoint-2";
inline constexpr const char* kCheckpointFormat1 = "setscope-checkpoint-1";

nlohmann::json metricsToJson(const EpochMetrics& m);
/// A history row of a checkpoint; rows written before the values were named (knn_accuracy,
/// recall_k / recall, extra with validation_knn, emd_seconds, padding_share) are read under
/// the names of today.
EpochMetrics metricsFromJson(const nlohmann::json& j);

/// The best validation epoch of the last stage so far (model selection, seed 001 §6.2.2: keep
/// the model with the best validation kNN accuracy), carried by every checkpoint so that a
/// resumed run keeps it.
struct BestEpoch {
    double validation = -1.0;
    std::int64_t step = -1; ///< -1: none yet
    int epoch = 0;
    std::string weights;    ///< the encoder's archive, serialized
    /// The loss's archive at that epoch, serialized. A loss that learns a metric (seed 004's L,
    /// the SSDML baselines' M) is part of the model: scores and embeddings go through it. ""
    /// in checkpoints written before it was kept (the kept model then has the last step's).
    std::string loss;
    std::string path;       ///< the best.pt written for it ("" when the run writes no checkpoints)
};

struct CheckpointHeader {
    TrainerConfig config;
    BestEpoch best;
    int format = 2;
    std::int64_t stage = 0;
    std::int64_t step = 0;
    std::int64_t inputDim = 0;
    std::string datasetHash;
    double epochLossSum = 0.0;
    std::int64_t epochLossCount = 0;
    std::vector<EpochMetrics> history;
};

/// Reads the header records of an open checkpoint; throws sdk::InputError naming `path` when
/// one is missing or of another format. The best epoch's weights (an archive inside the
/// archive) pass the archive check, polling `control` (may be null).
CheckpointHeader readHeader(torch::serialize::InputArchive& ar, const std::string& path,
                            job::JobControl* control = nullptr);

/// Opens `path` for LibTorch after the archive check (core/train/ArchiveCheck.h). `control`
/// (may be null) is polled while the file is checked: a crafted file is refused within the
/// check's budgets, and a cancel stops the check before that.
torch::serialize::InputArchive openArchive(const std::string& path, const torch::Device& device,
                                           job::JobControl* control = nullptr);

/// The checks of checkResume() on an open checkpoint header; returns the allowed differences.
std::string checkResumeHeader(const CheckpointHeader& h, const TrainerConfig& cfg, const data::Dataset& ds);

/// The checks of a fine-tuning start (TrainerConfig::initFrom) on an open checkpoint header:
/// the weights must fit the model; the data may differ (only the input dimension must match).
void checkInitHeader(const CheckpointHeader& h, const TrainerConfig& cfg, const data::Dataset& ds);

} // namespace setscope::train::run
