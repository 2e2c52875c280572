// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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
    /// Fields (JSON names, e.g. "loss", "seed") allowed to differ from the checkpoint's when
    /// resuming; see resumeDifferences(). Like resumeFrom, not stored in checkpoints.
    std::vector<std::string> resumeOverrides;

    std::int64_t snapshotEvery = 50;   ///< steps between EmbeddingSnapshots (0 = none)
    int snapshotItems = 3000;          ///< size of the snapshot subset (stratified, test split first)
    bool evaluateEachEpoch = true;     ///< kNN accuracy and Recall@K after each epoch

    nlohmann::json toJson() const;
    /// Unknown keys are an error (a typo must not silently fall back to a default).
    static TrainerConfig fromJson(const nlohmann::json& j);
    /// Throws std::invalid_argument for values out of range, and for resumeOverrides that
    /// name no field or a field that can never differ (see resumeDifferences()).
    void validate() const;
};

/// One field in which a run's configuration differs from the checkpoint it resumes.
struct ConfigDifference {
    std::string field;     ///< JSON name, e.g. "loss"
    std::string stored;    ///< the checkpoint's value, as JSON text
    std::string requested; ///< the new run's value, as JSON text
    /// The checkpoint's weights do not fit the new value (model, embedding_dim,
    /// model_options): the run cannot resume from it, override or not.
    bool structural = false;
};

/// Where `run` differs from the configuration `checkpoint` was trained with, in the fields
/// that decide what training does. A resumed run is an exact continuation (bit-identical to
/// an uninterrupted run on the same machine) only when there is no difference.
///  - structural (never allowed): model, embedding_dim, model_options;
///  - refused unless listed in run.resumeOverrides: loss, margin, label_set, batch_classes,
///    batch_per_class, learning_rate, weight_decay, seed, threads (the thread count changes
///    floating-point reductions);
///  - free: epochs and max_steps (extending a run is the point of resuming), device (a run
///    may move between machines; numerics then differ anyway), checkpoint_dir,
///    checkpoint_every, snapshot_every, snapshot_items, evaluate_each_epoch (they do not
///    change the weights).
std::vector<ConfigDifference> resumeDifferences(const TrainerConfig& checkpoint, const TrainerConfig& run);

/// "loss triplet → contrastive, seed 1 → 7": differences for a message.
std::string describe(const std::vector<ConfigDifference>& differences);

} // namespace setscope::train
