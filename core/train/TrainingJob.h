// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/EmbeddingSnapshot.h"
#include "core/job/Job.h"
#include "core/train/TrainerConfig.h"
#include "core/train/TrainingSink.h"
#include "core/train/run/RunRecord.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::plugin {
class Registry;
}
namespace setscope::dist {
class Communicator;
}

namespace setscope::model {
class ModelHandle;
}

namespace setscope::train {


/// Trains an encoder with a metric loss on a dataset's train split, on a worker thread
/// (start()) or the caller's (runHere()). This header is Torch-free: the GUI includes it. The
/// run itself is run::TrainingRun (core/train/run/), made of parts; the job owns what the run
/// has produced (run::RunRecord) and is the run's host (its sink, cancel and counters).
///
/// - progress: to the sink given to Job::start() / Job::runHere(); when that sink is a
///   TrainingSink (also when the job is started through a job::Job*), it gets
///   TrainingSink::progress once per step (throttled), stepLoss, epochMetrics and
///   checkpointWritten; lock-free ProgressCounters for per-frame polling;
/// - cancel: returns within one step (milliseconds) or one evaluation chunk;
/// - pause / resume: blocks between steps;
/// - checkpoints: every `checkpointEvery` steps (written to a temporary file, then renamed,
///   so a kill never leaves a half-written checkpoint) and at the end;
/// - resume: from `resumeFrom`, continuing with the identical sample order, giving results
///   identical to an uninterrupted run on the same machine and thread count. The run is
///   refused before any training when the checkpoint does not fit (checkResume());
/// - threads and seed: `threads` sets the intra-op thread count of this job's worker thread
///   only (not the process default other jobs start from), and seeding plus building the
///   model happen under a process-wide lock, so jobs that overlap (one stopping, one
///   starting) get the weights they would get alone;
/// - snapshots: every `snapshotEvery` steps, the embeddings of a fixed subset of items
///   (test split first, stratified) go to snapshots();
/// - distributed (setCommunicator(), docs/DISTRIBUTED.md): data-parallel over the ranks of a
///   run; every rank runs its own TrainingJob on the same dataset and configuration (checked at
///   the start), takes its batch_shards / W parts of each step's batch, and the gradients are
///   summed over the ranks before each optimizer step. Rank 0 alone evaluates, snapshots and
///   writes checkpoints. A rank that stops makes the others fail with dist::PeerLost's message.
class TrainingJob final : public job::Job, private run::RunHost {
public:
    /// `external`: the dataset of the stages marked external (recipe ext; config.externalDataset
    /// opened by the caller), null otherwise.
    TrainingJob(std::shared_ptr<const data::Dataset> dataset, TrainerConfig config, const plugin::Registry& registry,
                std::shared_ptr<const data::Dataset> external = nullptr);
    ~TrainingJob() override;

    /// Makes this job one rank of a distributed run (before start; null: a single process).
    void setCommunicator(std::shared_ptr<dist::Communicator> communicator) { m_comm = std::move(communicator); }

    const TrainerConfig& config() const { return m_config; }
    const job::SnapshotBuffer& snapshots() const { return m_record.snapshots(); }
    /// Metrics of every finished epoch so far (thread-safe copy).
    std::vector<EpochMetrics> history() const { return m_record.history(); }
    /// Path of the newest checkpoint written ("" when none).
    std::string lastCheckpoint() const { return m_record.lastCheckpoint(); }
    /// best.pt: the weights of the best validation epoch of the last stage ("" when the run
    /// has no validation split or no checkpoint folder).
    std::string bestCheckpoint() const { return m_record.bestCheckpoint(); }
    /// The weights at the last snapshot (or the end of the run) as a Torch-free handle that
    /// views and retrieval can embed sets with; null before the first snapshot.
    std::shared_ptr<const model::ModelHandle> currentModel() const { return m_record.model(); }
    /// Total steps this run will take (known after the job has started).
    std::int64_t totalSteps() const { return m_record.totalSteps(); }

protected:
    void run() override;

private:
    // run::RunHost: what the run reports to.
    job::JobControl& jobControl() override { return control(); }
    void message(const std::string& text) override { reportMessage(text); }
    void progress(std::int64_t done, std::int64_t total, const std::string& what) override
    {
        reportProgress(done, total, what);
    }
    void setCounters(std::int64_t done, std::int64_t total, int epoch, double loss) override;
    TrainingSink* trainingSink() override { return m_trainingSink; }
    run::RunRecord& record() override { return m_record; }

    std::shared_ptr<const data::Dataset> m_dataset;
    std::shared_ptr<const data::Dataset> m_external;
    TrainerConfig m_config;
    const plugin::Registry& m_registry;
    std::shared_ptr<dist::Communicator> m_comm;
    TrainingSink* m_trainingSink = nullptr; ///< sink() as a TrainingSink, or null (set when the run starts)
    run::RunRecord m_record;
};

/// Item embeddings computed with a checkpoint's model.
struct Embeddings {
    int dim = 0;
    std::vector<float> data; ///< dataset.size() x dim
    std::string config;      ///< the checkpoint's TrainerConfig as JSON text
};

/// Loads `checkpoint` and embeds every item of `dataset` (on the configured device, in
/// batches; `control` may be null). Throws std::runtime_error when the checkpoint does
/// not fit the dataset (other input dimension) and sdk::InputError for an unreadable file.
Embeddings embedWithCheckpoint(const std::string& checkpoint, const data::Dataset& dataset,
                               const plugin::Registry& registry, job::JobControl* control = nullptr);

/// Checks that `config` can resume from `config.resumeFrom` on `dataset`: the checkpoint is
/// readable, has the dataset's input dimension and content hash, and was trained with the same
/// configuration (resumeDifferences(); differences listed in config.resumeOverrides are
/// allowed, structural ones never). Throws sdk::InputError naming the checkpoint: unreadable,
/// other data, or every difference in the configuration. Returns the allowed differences ("" when
/// the run is an exact continuation). TrainingJob::run() does the same before training;
/// callers use this to fail at once. Reads the whole checkpoint (blocking). Without a resume,
/// checks config.initFrom instead (readable, same input dimension, same model, embedding_dim
/// and model_options) and returns "".
std::string checkResume(const TrainerConfig& config, const data::Dataset& dataset);

/// The configuration `checkpoint` was trained with (what resuming compares against). Throws
/// sdk::InputError naming the file when it is not a readable checkpoint.
TrainerConfig checkpointConfig(const std::string& checkpoint);

/// The intra-op thread count LibTorch uses on the calling thread (for tests and diagnostics).
int intraOpThreadsHere();

/// "cpu", or "cuda"/"cuda:N" when asked for and available; "auto" picks CUDA when this
/// LibTorch has it and a GPU is visible. Throws std::invalid_argument with the reason when
/// CUDA is requested but unavailable.
std::string resolveDevice(const std::string& requested);
/// Whether this LibTorch build has CUDA and a device is visible.
bool cudaAvailable();

} // namespace setscope::train
