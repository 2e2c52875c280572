// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace setscope::train {

/// Everything that defines a training run; stored as JSON with the run in the project
/// store and inside every checkpoint.
struct TrainerConfig {
    std::string model = "mlp";         ///< a registered encoder
    std::string loss = "triplet";      ///< a registered loss: triplet | contrastive | plugins'
    std::string labelSet = "fine";     ///< which labels supervise the loss
    int epochs = 3;
    std::int64_t maxSteps = 0;         ///< stop after this many steps in total (0 = no limit)
    int embeddingDim = 64;
    std::map<std::string, std::string> modelOptions; ///< passed to the encoder (see its docs)
    double margin = -1.0;              ///< < 0: the loss's documented default
    /// Batches hold `batchClasses` classes x `batchPerClass` items (FaceNet-style sampling,
    /// so every anchor has positives). 8 x 16 = 128.
    int batchClasses = 8;
    int batchPerClass = 16;
    /// Adam (seed 000 uses β1 0.9, β2 0.999, ε 1e-7). Its learning rate 1e-5 is for 1 000
    /// epochs on documents; 1e-3 is setscope's default for few-epoch runs.
    double learningRate = 1e-3;
    double weightDecay = 0.0;
    std::uint64_t seed = 1;
    std::string device = "auto";       ///< auto | cpu | cuda | cuda:N
    int threads = 0;                   ///< intra-op threads (0 = LibTorch's default)

    std::string checkpointDir;         ///< "" = no checkpoints
    std::int64_t checkpointEvery = 0;  ///< steps; 0 = at the end of every epoch
    std::string resumeFrom;            ///< checkpoint file to resume from ("" = fresh start)

    std::int64_t snapshotEvery = 50;   ///< steps between EmbeddingSnapshots (0 = none)
    int snapshotItems = 3000;          ///< size of the snapshot subset (stratified, test split first)
    bool evaluateEachEpoch = true;     ///< kNN accuracy and Recall@K after each epoch

    nlohmann::json toJson() const;
    /// Unknown keys are an error (a typo must not silently fall back to a default).
    static TrainerConfig fromJson(const nlohmann::json& j);
    /// Throws std::invalid_argument for values out of range.
    void validate() const;
};

} // namespace setscope::train
