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
    /// A registered recipe ("ours", "ours+ps", "int", "tl", ...) that defines the stages, or ""
    /// for one stage built from loss / augmentation / sampler below.
    std::string recipe;
    std::map<std::string, std::string> recipeOptions;
    std::string model = "mlp";         ///< a registered encoder
    std::map<std::string, std::string> modelOptions; ///< checked against the encoder's schema
    /// Without a recipe: the loss ("" = triplet), the augmentation ("" = none) and the sampler
    /// ("" = class-balanced when the loss reads labels, else random). With a recipe they stay
    /// empty (the recipe names them).
    std::string loss;
    std::string augmentation;
    std::string sampler;
    /// Options of the loss, augmentation and sampler of every stage that declares them (a
    /// recipe's own values are overridden); an option no stage's item declares is an error.
    std::map<std::string, std::string> lossOptions;
    std::map<std::string, std::string> augmentationOptions;
    std::map<std::string, std::string> samplerOptions;
    std::string optimizer = "adam";    ///< a registered optimizer
    std::map<std::string, std::string> optimizerOptions;
    /// Learning-rate schedule within each stage: constant | cosine (to 0 at the stage's end).
    std::string schedule = "constant";
    /// "", "paper" or "cpu", below anything given explicitly (applyPreset(), RunPlan.h):
    ///  paper: the papers' defaults (Adam lr 1e-5, β 0.9/0.999, ε 1e-7, batches of 64; seed 000
    ///         §VI-A, seed 001 §6.2.2);
    ///  cpu:   what trains on a few CPU cores (docs/BENCHMARKS.md "step profile"): Adam lr 1e-4,
    ///         β 0.9/0.999, ε 1e-7, batches of 32 (the authors' run.sh), and the self-attention
    ///         encoder at 2 layers, 4 heads, feed-forward 256 and ρ 256 (the authors' ρ).
    std::string preset;
    std::string labelSet = "fine";     ///< which labels supervise the supervised stages and score the runs
    /// Share of the training pool's labels that supervised stages may use (semi-supervised
    /// fine-tuning with 1/3/5/7/10 %, seed 001 §7.3); stratified by class, fixed by the seed.
    double labelFraction = 1.0;
    /// Share of the train split held out for model selection (stratified): the run keeps the
    /// weights with the best validation kNN accuracy. < 0: 0.1 for recipes (the papers'
    /// protocol), 0 otherwise.
    double validationFraction = -1.0;
    /// The dataset (name or path) that stages marked `external` train on (recipe "ext").
    std::string externalDataset;
    int epochs = 3;
    std::int64_t maxSteps = 0;         ///< stop after this many steps in total (0 = no limit)
    int embeddingDim = 64;
    std::uint64_t seed = 1;
    std::string device = "auto";       ///< auto | cpu | cuda | cuda:N
    /// Where a step's exact EMDs come from when its loss or augmentation reads them: "auto" takes
    /// them from a finished pairwise EMD matrix of the dataset in the cache (ot::findCachedMatrix;
    /// `setscope-cli emd-matrix` computes one) when there is one, else solves the batch's pairs;
    /// "off" always solves them. Cached values are float32 (relative rounding 6e-8).
    std::string emdCache = "auto";
    int threads = 0;                   ///< intra-op threads (0 = LibTorch's default)
    /// Parts each step's batch is cut into (docs/DISTRIBUTED.md): the loss -- its mining, its EMD
    /// pseudo-labels, its batch statistics -- sees one part at a time, and the step averages the
    /// parts' gradients. A distributed run of W ranks needs a multiple of W (each rank takes
    /// batch_shards / W consecutive parts); one process runs the parts one after the other. So a
    /// run gives the same weights on any number of ranks that divides it, and resumes on another
    /// number of ranks as an exact continuation. 1: the loss sees the whole batch (as before).
    int batchShards = 1;

    std::string checkpointDir;         ///< "" = no checkpoints
    std::int64_t checkpointEvery = 0;  ///< steps; 0 = at the end of every epoch
    std::string resumeFrom;            ///< checkpoint file to resume from ("" = fresh start)
    /// Fields (JSON names, e.g. "loss", "seed") allowed to differ from the checkpoint's when
    /// resuming; see resumeDifferences(). Like resumeFrom, not stored in checkpoints.
    std::vector<std::string> resumeOverrides;
    /// Checkpoint file whose encoder weights this run starts from ("" = fresh weights): a
    /// fine-tuning start, not a resume -- the optimizer, schedule, step count, sampler order and
    /// history start fresh. The checkpoint must be of the same model, embedding_dim and
    /// model_options and the same input dimension (any dataset). Ignored when resumeFrom is set
    /// (the checkpoint resumed already holds the weights). Stored with the run (provenance) and
    /// free in resumeDifferences().
    std::string initFrom;

    std::int64_t snapshotEvery = 50;   ///< steps between EmbeddingSnapshots (0 = none)
    int snapshotItems = 0;             ///< items in a snapshot: 0 = every item; else a stratified subset (test split first)
    bool evaluateEachEpoch = true;     ///< kNN accuracy and Recall@K after each epoch
    /// Evaluate every this many epochs of a stage (and always after a stage's last epoch); 1 =
    /// every epoch. For runs whose epochs are a step or two (a few labels), where evaluating
    /// would cost more than training. The best-validation model is chosen among evaluated epochs.
    int evaluateEvery = 1;

    /// The validation share this run uses (validationFraction resolved).
    double effectiveValidationFraction() const;

    nlohmann::json toJson() const;
    /// Unknown keys are an error (a typo must not silently fall back to a default). The keys of
    /// configurations stored before recipes (margin, batch_classes, batch_per_class,
    /// learning_rate, weight_decay) are read into the matching item options.
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
///  - refused unless listed in run.resumeOverrides: recipe and every item and its options
///    (loss, augmentation, sampler, optimizer, schedule, preset), label_set, label_fraction,
///    validation_fraction, external_dataset, seed, threads (the thread count changes
///    floating-point reductions), batch_shards (the parts the loss sees);
///  - free: epochs and max_steps (extending a run is the point of resuming), device (a run
///    may move between machines; numerics then differ anyway), emd_cache (float32 cached
///    EMDs against float64 solved ones: the last bits differ), checkpoint_dir,
///    checkpoint_every, snapshot_every, snapshot_items, evaluate_each_epoch, evaluate_every (they do not
///    change the weights).
std::vector<ConfigDifference> resumeDifferences(const TrainerConfig& checkpoint, const TrainerConfig& run);

/// "loss triplet → contrastive, seed 1 → 7": differences for a message.
std::string describe(const std::vector<ConfigDifference>& differences);

} // namespace setscope::train
