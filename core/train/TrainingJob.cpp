// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/TrainingJob.h"

#include "core/data/Dataset.h"
#include "core/dist/Communicator.h"
#include "core/nn/Collate.h"
#include "core/plugin/Registry.h"
#include "core/eval/Knn.h"
#include "core/eval/Metrics.h"
#include "core/ot/PairwiseMatrix.h"
#include "core/semi/Baselines.h"
#include "core/train/ArchiveCheck.h"
#include "core/train/BatchTransport.h"
#include "core/train/CheckedLoad.h"
#include "core/train/KeyEncoder.h"
#include "core/train/RunPlan.h"
#include "core/train/ModelHandle.h"
#include "core/train/PairAffinity.h"
#include "core/train/SnapshotSubset.h"
#include "core/util/AtomicFile.h"
#include "core/util/Hash.h"
#include "core/util/OpenMpWait.h"

#include <setscope/sdk/Errors.h>
#include <setscope/sdk/Model.h>

#include <nlohmann/json.hpp>
#include <torch/torch.h>
#if AT_PARALLEL_OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cmath>
#include <iterator>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string_view>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace setscope::train {

namespace {

/// Format 2 (recipes): adds the stage index and the loss module's state. Format 1 files
/// (one stage, no loss parameters) are still read.
constexpr const char* kCheckpointFormat = "setscope-checkpoint-2";
constexpr const char* kCheckpointFormat1 = "setscope-checkpoint-1";
using Clock = std::chrono::steady_clock;

nlohmann::json metricsToJson(const EpochMetrics& m)
{
    nlohmann::json values = nlohmann::json::array();
    for (const auto& [k, v] : m.values)
        values.push_back({k, v});
    return {{"epoch", m.epoch}, {"step", m.step},     {"mean_loss", m.meanLoss},
            {"seconds", m.seconds}, {"stage", m.stage}, {"values", values}};
}

/// A history row of a checkpoint; rows written before the values were named (knn_accuracy,
/// recall_k / recall, extra with validation_knn, emd_seconds, padding_share) are read under
/// the names of today.
EpochMetrics metricsFromJson(const nlohmann::json& j)
{
    EpochMetrics m;
    m.epoch = j.at("epoch").get<int>();
    m.step = j.at("step").get<std::int64_t>();
    m.meanLoss = j.at("mean_loss").get<double>();
    m.seconds = j.at("seconds").get<double>();
    m.stage = j.value("stage", std::string());
    if (j.contains("values")) {
        for (const auto& e : j.at("values"))
            m.values.emplace_back(e.at(0).get<std::string>(), e.at(1).get<double>());
        return m;
    }
    if (const double knn = j.value("knn_accuracy", -1.0); knn >= 0)
        m.values.emplace_back("knn-accuracy", knn);
    const auto ks = j.value("recall_k", std::vector<int>());
    const auto rs = j.value("recall", std::vector<double>());
    for (std::size_t i = 0; i < ks.size() && i < rs.size(); ++i)
        m.values.emplace_back("recall-hit@" + std::to_string(ks[i]), rs[i]);
    if (j.contains("extra"))
        for (const auto& e : j.at("extra")) {
            std::string name = e.at(0).get<std::string>();
            std::replace(name.begin(), name.end(), '_', '-');
            m.values.emplace_back(name, e.at(1).get<double>());
        }
    return m;
}

sdk::EncoderSpec encoderSpec(const plugin::Registry& registry, const TrainerConfig& c, std::int64_t inputDim)
{
    sdk::EncoderSpec s;
    s.inputDim = inputDim;
    s.outputDim = c.embeddingDim;
    s.options = sdk::OptionValues::resolve(registry.requireEncoder(c.model).options, c.modelOptions, "model " + c.model);
    return s;
}

/// Embeds `sets` (each `inputDim`-d) in batches (eval mode, no grad); returns sets.size() x dim
/// on the CPU. `control` (may be null) is polled between batches.
std::vector<float> embedSets(sdk::SetEncoder& enc, std::span<const sdk::SetRef> sets, std::int64_t inputDim,
                             const torch::Device& device, job::JobControl* control)
{
    torch::NoGradGuard noGrad;
    const bool wasTraining = enc.is_training();
    enc.eval();
    const std::int64_t dim = enc.outputDim();
    std::vector<float> out(sets.size() * static_cast<std::size_t>(dim));
    constexpr std::size_t kBatch = 2048;
    for (std::size_t b0 = 0; b0 < sets.size(); b0 += kBatch) {
        if (control)
            control->checkpoint();
        const std::size_t n = std::min(kBatch, sets.size() - b0);
        const torch::Tensor e = enc.forward(nn::collateSets(sets.subspan(b0, n), inputDim, device)).to(torch::kCPU).contiguous();
        std::copy(e.data_ptr<float>(), e.data_ptr<float>() + e.numel(), out.begin() + static_cast<std::ptrdiff_t>(b0 * dim));
    }
    if (wasTraining)
        enc.train();
    return out;
}

/// The same for items of a dataset.
std::vector<float> embedItems(sdk::SetEncoder& enc, const data::Dataset& ds, const std::vector<std::int64_t>& items,
                              const torch::Device& device, job::JobControl* control)
{
    return embedSets(enc, nn::setRefs(ds, items), ds.dim(), device, control);
}

/// The loss's metric projection as a CPU float d x l copy, or undefined when it has none.
/// Throws std::logic_error when it is not d x l for the encoder's width d.
torch::Tensor metricProjection(const sdk::MetricLoss& loss, std::int64_t encoderDim)
{
    const torch::Tensor p = loss.embeddingProjection();
    if (!p.defined())
        return {};
    if (p.dim() != 2 || p.size(0) != encoderDim || p.size(1) < 1)
        throw std::logic_error("the loss's embedding projection is not " + std::to_string(encoderDim) + " x l");
    return p.detach().to(torch::kCPU, torch::kFloat32).clone();
}

/// rows (n x d, row-major) -> rows P (n x l) when `projection` is defined; `dim` becomes l.
std::vector<float> projectRows(std::vector<float> rows, int& dim, const torch::Tensor& projection)
{
    if (!projection.defined() || rows.empty())
        return rows;
    const auto n = static_cast<std::int64_t>(rows.size()) / dim;
    const torch::Tensor z = torch::from_blob(rows.data(), {n, dim}, torch::kFloat32);
    const torch::Tensor out = z.matmul(projection).contiguous();
    dim = static_cast<int>(projection.size(1));
    return std::vector<float>(out.data_ptr<float>(), out.data_ptr<float>() + out.numel());
}

/// Embeds the items of each snapshot on a thread of its own, so that a snapshot of every item
/// (seconds to minutes with the attention encoder on a large corpus) does not pause training:
/// the training thread only hands over a copy of the weights (a ModelHandle). At most one
/// snapshot waits while another is embedded; a third submit() waits for room (so every
/// requested snapshot is published, in order, and memory stays bounded). Its own JobControl:
/// the job's pause does not park it (a pause lets the snapshot in hand finish).
class SnapshotEmbedder {
public:
    SnapshotEmbedder(const data::Dataset& ds, std::vector<std::int64_t> items, job::SnapshotBuffer& out)
        : m_ds(ds)
        , m_items(std::move(items))
        , m_out(out)
    {
    }
    SnapshotEmbedder(const SnapshotEmbedder&) = delete;
    SnapshotEmbedder& operator=(const SnapshotEmbedder&) = delete;
    /// Abandons what is left (a failed or cancelled run) and joins.
    ~SnapshotEmbedder() { abort(); }

    /// Queues `meta` (step, epoch, loss) to be filled with `model`'s embedding of the items.
    /// Waits while a snapshot is already queued; throws job::Cancelled when `control` is
    /// cancelled meanwhile, and the embedder's error if it failed.
    void submit(std::shared_ptr<const ModelHandle> model, std::shared_ptr<job::EmbeddingSnapshot> meta,
                job::JobControl& control)
    {
        std::unique_lock lock(m_mutex);
        if (!m_thread.joinable())
            m_thread = std::thread([this] { loop(); });
        while (m_pending && m_error.empty()) {
            m_cv.wait_for(lock, std::chrono::milliseconds(20));
            lock.unlock();
            control.checkpoint();
            lock.lock();
        }
        if (!m_error.empty())
            throw std::runtime_error("embedding a snapshot: " + m_error);
        m_pending = Request{std::move(model), std::move(meta)};
        m_cv.notify_all();
    }
    /// Waits until every submitted snapshot is published (the end of a run), then joins;
    /// throws when embedding one failed (as it would have failed the run on its own thread).
    void finish()
    {
        {
            std::unique_lock lock(m_mutex);
            m_cv.wait(lock, [this] { return (!m_pending && !m_busy) || !m_error.empty(); });
            m_stop = true;
            m_cv.notify_all();
        }
        if (m_thread.joinable())
            m_thread.join();
        if (!m_error.empty())
            throw std::runtime_error("embedding a snapshot: " + m_error);
    }
    void abort()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
            m_pending.reset();
            m_control.requestCancel();
            m_cv.notify_all();
        }
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    struct Request {
        std::shared_ptr<const ModelHandle> model;
        std::shared_ptr<job::EmbeddingSnapshot> snapshot;
    };

    void loop()
    {
        for (;;) {
            Request r;
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [this] { return m_pending || m_stop; });
                if (!m_pending)
                    return; // stopped with nothing left
                r = std::move(*m_pending);
                m_pending.reset();
                m_busy = true;
                m_cv.notify_all(); // room for the next submit()
            }
            try {
                r.snapshot->vectors = r.model->embed(m_ds, m_items, &m_control);
                m_out.publish(std::move(r.snapshot));
            } catch (const job::Cancelled&) {
                std::lock_guard lock(m_mutex);
                m_busy = false;
                m_cv.notify_all();
                return;
            } catch (const std::exception& e) {
                std::lock_guard lock(m_mutex);
                m_error = e.what();
                m_busy = false;
                m_cv.notify_all();
                return;
            }
            std::lock_guard lock(m_mutex);
            m_busy = false;
            m_cv.notify_all();
        }
    }

    const data::Dataset& m_ds;
    const std::vector<std::int64_t> m_items;
    job::SnapshotBuffer& m_out;
    job::JobControl m_control;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::optional<Request> m_pending;
    bool m_busy = false;
    bool m_stop = false;
    std::string m_error;
    std::thread m_thread; ///< declared last: joined (by abort()) before the members it uses go
};

/// For batches laid out as (anchor, positive, negative) triplets (seed 004's mined batches): the
/// share of positives, and of negatives, whose label equals their anchor's, over the triplets
/// whose three items are labelled in `labels`. {-1, -1} when none is.
std::pair<double, double> tripletClassShares(const std::vector<std::vector<std::int64_t>>& batches,
                                             const std::vector<std::int32_t>& labels)
{
    std::int64_t n = 0, samePositive = 0, sameNegative = 0;
    for (const auto& b : batches)
        for (std::size_t i = 0; i + 2 < b.size(); i += 3) {
            const std::int32_t a = labels[static_cast<std::size_t>(b[i])];
            const std::int32_t p = labels[static_cast<std::size_t>(b[i + 1])];
            const std::int32_t q = labels[static_cast<std::size_t>(b[i + 2])];
            if (a < 0 || p < 0 || q < 0)
                continue;
            ++n;
            samePositive += p == a;
            sameNegative += q == a;
        }
    if (n == 0)
        return {-1.0, -1.0};
    return {static_cast<double>(samePositive) / static_cast<double>(n), static_cast<double>(sameNegative) / static_cast<double>(n)};
}

std::vector<std::int64_t> allItems(const data::Dataset& ds)
{
    std::vector<std::int64_t> v(ds.size());
    std::iota(v.begin(), v.end(), 0);
    return v;
}

c10::IValue readValue(torch::serialize::InputArchive& ar, const std::string& key, const std::string& path)
{
    c10::IValue v;
    if (!ar.try_read(key, v))
        throw sdk::InputError(path, "", "not a setscope checkpoint (missing '" + key + "')");
    return v;
}

/// The best validation epoch of the last stage so far (model selection, seed 001 §6.2.2: keep
/// the model with the best validation kNN accuracy), carried by every checkpoint so that a
/// resumed run keeps it.
struct BestEpoch {
    double validation = -1.0;
    std::int64_t step = -1; ///< -1: none yet
    int epoch = 0;
    std::string weights;    ///< the encoder's archive, serialized
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

/// What the archive check polls while it runs: the job's cancel (none when `control` is null).
ArchiveCheckOptions checkOptions(job::JobControl* control)
{
    ArchiveCheckOptions o;
    if (control)
        o.poll = [control] { control->checkpoint(); };
    return o;
}

CheckpointHeader readHeader(torch::serialize::InputArchive& ar, const std::string& path,
                            job::JobControl* control = nullptr)
{
    const std::string format = readValue(ar, "format", path).toStringRef();
    if (format != kCheckpointFormat && format != kCheckpointFormat1)
        throw sdk::InputError(path, "", "unsupported checkpoint format '" + format + "'");
    CheckpointHeader h;
    h.format = format == kCheckpointFormat ? 2 : 1;
    if (h.format == 2)
        h.stage = readValue(ar, "stage", path).toInt();
    h.config = TrainerConfig::fromJson(nlohmann::json::parse(readValue(ar, "config", path).toStringRef()));
    h.step = readValue(ar, "step", path).toInt();
    h.inputDim = readValue(ar, "input_dim", path).toInt();
    h.datasetHash = readValue(ar, "dataset_hash", path).toStringRef();
    h.epochLossSum = readValue(ar, "epoch_loss_sum", path).toDouble();
    h.epochLossCount = readValue(ar, "epoch_loss_count", path).toInt();
    for (const auto& m : nlohmann::json::parse(readValue(ar, "history", path).toStringRef()))
        h.history.push_back(metricsFromJson(m));
    c10::IValue v;
    if (ar.try_read("best_step", v)) { // absent before the best epoch was stored, and before the first
        h.best.step = v.toInt();
        h.best.validation = readValue(ar, "best_validation", path).toDouble();
        h.best.epoch = static_cast<int>(readValue(ar, "best_epoch", path).toInt());
        h.best.path = readValue(ar, "best_path", path).toStringRef();
        torch::Tensor bytes;
        if (!ar.try_read("best_model", bytes, /*is_buffer=*/true) || bytes.scalar_type() != torch::kUInt8 || bytes.dim() != 1)
            throw sdk::InputError(path, "", "not a setscope checkpoint (best_step without best_model)");
        bytes = bytes.contiguous();
        h.best.weights.assign(reinterpret_cast<const char*>(bytes.data_ptr<std::uint8_t>()),
                              static_cast<std::size_t>(bytes.numel()));
        // An archive inside the archive: checked like the file before LibTorch reads it.
        checkTorchArchive(h.best.weights, path + " [best_model]", checkOptions(control));
    }
    return h;
}

/// `control` (may be null) is polled while the file is checked: a crafted file is refused within
/// the check's budgets, and a cancel stops the check before that.
torch::serialize::InputArchive openArchive(const std::string& path, const torch::Device& device,
                                           job::JobControl* control = nullptr)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw sdk::InputError(path, "", "checkpoint file not found");
    // LibTorch's reader trusts the archive's class declarations and pickles (a damaged one
    // crashed it): only what OutputArchive writes gets to it (core/train/ArchiveCheck.h).
    checkTorchArchiveFile(path, checkOptions(control));
    torch::serialize::InputArchive ar;
    try {
        ar.load_from(path, device);
    } catch (const c10::Error& e) {
        throw sdk::InputError(path, "", "cannot read checkpoint (truncated or not a checkpoint): " +
                                            std::string(e.what_without_backtrace()));
    } catch (const std::exception& e) {
        // LibTorch's TorchScript importer throws torch::jit::ErrorReport, which is not a
        // c10::Error, for a type name in the archive it cannot parse (the checkpoint fuzz
        // target of issue 12): refused like any other unreadable checkpoint.
        throw sdk::InputError(path, "", std::string("cannot read checkpoint (damaged or not a checkpoint): ") + e.what());
    }
    return ar;
}

/// Seeding the default generator and drawing the initial weights from it must not interleave
/// with another job doing the same (LibTorch's default generator is process-wide).
std::mutex& initMutex()
{
    static std::mutex m;
    return m;
}

/// The state of LibTorch's default generator of `device` (the CPU's, or the CUDA device's),
/// which dropout draws from during the steps. A checkpoint stores it so that a run resumed
/// mid-stage draws what the uninterrupted run drew (each stage start reseeds it). Callers hold
/// initMutex() (other jobs seed it). The CUDA generator's state is written and restored the
/// same way (tested where a GPU is visible: train_device_parity.cudaGeneratorContinuesExactly,
/// label cuda).
torch::Tensor generatorState(const torch::Device& device)
{
    at::Generator g = device.is_cuda() ? at::globalContext().defaultGenerator(device) : at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(g.mutex());
    return g.get_state();
}

void setGeneratorState(const torch::Device& device, const torch::Tensor& state)
{
    at::Generator g = device.is_cuda() ? at::globalContext().defaultGenerator(device) : at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_state(state.cpu());
}

/// Sets the intra-op threads of the calling thread only. With LibTorch's OpenMP backend the
/// count is the thread's OpenMP ICV, which at::set_num_threads() would also write into a
/// process-wide default that every new thread (the next job, the layout job) starts from.
/// The thread's lazy initialisation runs first, so it cannot later overwrite the count.
/// With a native thread-pool backend the pool is process-wide: the count is left alone.
std::string setThreadsHere(int threads)
{
#if AT_PARALLEL_OPENMP
    at::internal::lazy_init_num_threads();
    if (threads > 0)
        omp_set_num_threads(threads);
    return std::to_string(at::get_num_threads()) + " intra-op threads";
#else
    return threads > 0 ? "the process's intra-op threads (this LibTorch's thread pool is process-wide, "
                         "--threads is ignored)"
                       : "the process's intra-op threads";
#endif
}

/// The checks of checkResume() on an open checkpoint header; returns the allowed differences.
std::string checkResumeHeader(const CheckpointHeader& h, const TrainerConfig& cfg, const data::Dataset& ds)
{
    const std::string& path = cfg.resumeFrom;
    if (h.inputDim != ds.dim())
        throw sdk::InputError(path, "", "checkpoint for " + std::to_string(h.inputDim) + "-d input, dataset '" +
                                            ds.name() + "' is " + std::to_string(ds.dim()) + "-d");
    if (h.datasetHash != ds.contentHash())
        throw sdk::InputError(path, "", "checkpoint trained on other data (dataset hash " + h.datasetHash +
                                            ", this dataset " + ds.contentHash() + ")");
    std::vector<ConfigDifference> structural, refused, allowed;
    for (const ConfigDifference& d : resumeDifferences(h.config, cfg)) {
        if (d.structural)
            structural.push_back(d);
        else if (std::find(cfg.resumeOverrides.begin(), cfg.resumeOverrides.end(), d.field) != cfg.resumeOverrides.end())
            allowed.push_back(d);
        else
            refused.push_back(d);
    }
    if (!structural.empty())
        throw sdk::InputError(path, "", "checkpoint of another model: " + describe(structural) +
                                            " (its weights fit only the model it was trained with; start a new run "
                                            "instead)");
    if (!refused.empty()) {
        std::string fields;
        for (const ConfigDifference& d : refused)
            fields += (fields.empty() ? "" : ",") + d.field;
        throw sdk::InputError(path, "", "checkpoint trained with a different configuration: " + describe(refused) +
                                            "; resume with the same settings, or pass --resume-override " + fields +
                                            " to continue deliberately (the run is then no longer an exact "
                                            "continuation)");
    }
    return describe(allowed);
}

/// The checks of a fine-tuning start (TrainerConfig::initFrom) on an open checkpoint header:
/// the weights must fit the model; the data may differ (only the input dimension must match).
void checkInitHeader(const CheckpointHeader& h, const TrainerConfig& cfg, const data::Dataset& ds)
{
    const std::string& path = cfg.initFrom;
    if (h.inputDim != ds.dim())
        throw sdk::InputError(path, "", "checkpoint for " + std::to_string(h.inputDim) + "-d input, dataset '" +
                                            ds.name() + "' is " + std::to_string(ds.dim()) + "-d");
    std::vector<ConfigDifference> structural;
    for (const ConfigDifference& d : resumeDifferences(h.config, cfg))
        if (d.structural)
            structural.push_back(d);
    if (!structural.empty())
        throw sdk::InputError(path, "", "cannot start from this checkpoint's weights: " + describe(structural) +
                                            " (its weights fit only the model it was trained with)");
}

} // namespace

std::string checkResume(const TrainerConfig& config, const data::Dataset& dataset)
{
    if (config.resumeFrom.empty()) {
        if (!config.initFrom.empty()) {
            auto ar = openArchive(config.initFrom, torch::kCPU);
            checkInitHeader(readHeader(ar, config.initFrom), config, dataset);
        }
        return {};
    }
    auto ar = openArchive(config.resumeFrom, torch::kCPU);
    return checkResumeHeader(readHeader(ar, config.resumeFrom), config, dataset);
}

TrainerConfig checkpointConfig(const std::string& checkpoint)
{
    auto ar = openArchive(checkpoint, torch::kCPU);
    return readHeader(ar, checkpoint).config;
}

int intraOpThreadsHere() { return at::get_num_threads(); }

bool cudaAvailable() { return torch::cuda::is_available(); }

std::string resolveDevice(const std::string& requested)
{
    if (requested == "cpu")
        return "cpu";
    if (requested == "auto" || requested.empty())
        return torch::cuda::is_available() ? "cuda" : "cpu";
    if (requested.rfind("cuda", 0) == 0) {
        if (!torch::cuda::is_available())
            throw std::invalid_argument("device '" + requested +
                                        "' requested but CUDA is not available (this LibTorch build has no CUDA "
                                        "support or no GPU is visible); use --device cpu");
        const torch::Device d(requested); // validates "cuda:N" syntax
        if (d.has_index() && d.index() >= static_cast<int>(torch::cuda::device_count()))
            throw std::invalid_argument("device '" + requested + "' does not exist (" +
                                        std::to_string(torch::cuda::device_count()) + " CUDA devices)");
        return requested;
    }
    throw std::invalid_argument("unknown device '" + requested + "' (auto, cpu, cuda, cuda:N)");
}

/// The device of one rank of a distributed run on a machine with GPUs (docs/DISTRIBUTED.md): a
/// `resolved` device of "cuda" (no index, as "auto" and "cuda" resolve) becomes the local rank's
/// GPU, "cuda:<localRank mod GPUs>" -- one GPU per rank where there are enough, ranks sharing
/// them round robin where not (torchrun's LOCAL_RANK convention). An explicit "cuda:N", "cpu" and
/// a process that is no rank (localRank < 0) keep `resolved`.
static std::string deviceForRank(const std::string& resolved, int localRank)
{
    if (localRank < 0 || resolved != "cuda")
        return resolved;
    const auto gpus = static_cast<int>(torch::cuda::device_count());
    return "cuda:" + std::to_string(gpus > 0 ? localRank % gpus : 0);
}

// ---------------------------------------------------------------------------------------

TrainingJob::TrainingJob(std::shared_ptr<const data::Dataset> dataset, TrainerConfig config,
                         const plugin::Registry& registry, std::shared_ptr<const data::Dataset> external)
    : m_dataset(std::move(dataset))
    , m_external(std::move(external))
    , m_config(applyPreset(std::move(config), registry)) // the recorded config names the encoder it builds
    , m_registry(registry)
{
    m_config.validate();
}

TrainingJob::~TrainingJob() { stopAndWait(); }

void TrainingJob::start(TrainingSink* sink)
{
    m_trainingSink = sink;
    Job::start(sink);
}

job::JobStatus TrainingJob::runHere(TrainingSink* sink)
{
    m_trainingSink = sink;
    return Job::runHere(sink);
}

std::vector<EpochMetrics> TrainingJob::history() const
{
    std::lock_guard lock(m_mutex);
    return m_history;
}

std::string TrainingJob::lastCheckpoint() const
{
    std::lock_guard lock(m_mutex);
    return m_lastCheckpoint;
}

std::string TrainingJob::bestCheckpoint() const
{
    std::lock_guard lock(m_mutex);
    return m_bestCheckpoint;
}

struct ModelHandle::Impl {
    std::shared_ptr<sdk::SetEncoder> encoder;
    torch::Tensor projection; ///< the loss's d x l metric projection (CPU float), or undefined
    torch::Device device{torch::kCPU};
    TrainerConfig config;
    std::int64_t step = 0;
    std::int64_t inputDim = 0;
    std::string datasetHash;
};

namespace {

/// Some items of each class of `items` (labels < 0 left out), chosen by a seeded shuffle of
/// each class (the same for the same seed): `take(class size)` of them, at most all. Returns
/// the chosen items, ascending.
template <class Take>
std::vector<std::int64_t> classShare(const std::vector<std::int64_t>& items, const std::vector<std::int32_t>& labels,
                                     std::uint64_t seed, Take take)
{
    std::map<std::int32_t, std::vector<std::int64_t>> byClass;
    for (std::int64_t i : items)
        if (labels[static_cast<std::size_t>(i)] >= 0)
            byClass[labels[static_cast<std::size_t>(i)]].push_back(i);
    std::vector<std::int64_t> out;
    std::mt19937_64 rng(seed);
    for (auto& [c, v] : byClass) {
        std::shuffle(v.begin(), v.end(), rng);
        const std::size_t n = std::min<std::size_t>(take(v.size()), v.size());
        out.insert(out.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// `n * fraction` items of each class of `items` (at least one per class with any).
std::vector<std::int64_t> stratifiedShare(const std::vector<std::int64_t>& items, const std::vector<std::int32_t>& labels,
                                          double fraction, std::uint64_t seed)
{
    return classShare(items, labels, seed, [fraction](std::size_t size) {
        return std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(fraction * static_cast<double>(size))));
    });
}

/// `perClass` items of each class of `items` (all of a smaller class).
std::vector<std::int64_t> perClassShare(const std::vector<std::int64_t>& items, const std::vector<std::int32_t>& labels,
                                        std::int64_t perClass, std::uint64_t seed)
{
    return classShare(items, labels, seed, [perClass](std::size_t) { return static_cast<std::size_t>(perClass); });
}

std::uint64_t mixSeed(std::uint64_t a, std::uint64_t b, std::uint64_t c)
{
    std::uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0xBF58476D1CE4E5B9ULL) * 0x94D049BB133111EBULL ^ (c + 1) * 0xD6E8FEB86659FD93ULL;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return x;
}

/// Float tensors (parameters, float buffers) of rank 0 to every rank, in place. Other buffers
/// (a batch norm's step counter) stay each rank's.
void broadcastTensors(dist::Communicator& comm, const std::vector<torch::Tensor>& tensors)
{
    std::vector<torch::Tensor> flat;
    for (const torch::Tensor& t : tensors)
        if (t.defined() && t.scalar_type() == torch::kFloat32)
            flat.push_back(t.detach().to(torch::kCPU).reshape({-1}));
    if (flat.empty())
        return;
    torch::Tensor all = torch::cat(flat).contiguous();
    comm.broadcast(std::span<float>(all.data_ptr<float>(), static_cast<std::size_t>(all.numel())), 0);
    torch::NoGradGuard noGrad;
    std::int64_t at = 0;
    for (const torch::Tensor& t : tensors)
        if (t.defined() && t.scalar_type() == torch::kFloat32) {
            const std::int64_t n = t.numel();
            t.detach().copy_(all.slice(0, at, at + n).view(t.sizes()));
            at += n;
        }
}

/// Sums the gradients of `params` over the ranks (one flattened all-reduce after the backward
/// pass; docs/DISTRIBUTED.md says why not bucketed during it) together with `lossSum`, which it
/// returns summed. A parameter no rank gave a gradient keeps none (the optimizer skips it, as
/// in a single process); one that some rank did gets the sum, zeros standing in for the others.
double allreduceGradients(dist::Communicator& comm, const std::vector<torch::Tensor>& params, double lossSum)
{
    std::int64_t n = 0;
    for (const torch::Tensor& p : params)
        n += p.numel();
    const auto np = static_cast<std::int64_t>(params.size());
    // Gradients, then one "has a gradient" flag per parameter.
    torch::Tensor buf = torch::zeros({n + np}, torch::kFloat32);
    float* b = buf.data_ptr<float>();
    std::int64_t at = 0;
    for (std::int64_t k = 0; k < np; ++k) {
        const torch::Tensor& p = params[static_cast<std::size_t>(k)];
        if (p.grad().defined()) {
            buf.slice(0, at, at + p.numel()).copy_(p.grad().detach().reshape({-1}).to(torch::kCPU, torch::kFloat32));
            b[n + k] = 1.0f;
        }
        at += p.numel();
    }
    comm.allreduceSum(std::span<float>(b, static_cast<std::size_t>(n + np)));
    double losses[1] = {lossSum};
    comm.allreduceSum(std::span<double>(losses));
    torch::NoGradGuard noGrad;
    at = 0;
    for (std::int64_t k = 0; k < np; ++k) {
        const torch::Tensor& p = params[static_cast<std::size_t>(k)];
        if (b[n + k] > 0.0f) {
            const torch::Tensor g = buf.slice(0, at, at + p.numel()).view(p.sizes()).to(p.device(), p.scalar_type());
            if (p.grad().defined())
                p.mutable_grad().copy_(g);
            else
                p.mutable_grad() = g.clone();
        }
        at += p.numel();
    }
    return losses[0];
}

/// Fails unless every rank runs the same training: rank 0's configuration (but the settings only
/// rank 0 uses: checkpoints, snapshots, evaluation, device, the checkpoint paths), dataset,
/// length and starting step. Throws std::invalid_argument on the rank that differs, naming the
/// differences; that rank's exit then stops the others (dist::PeerLost).
void checkSameRun(dist::Communicator& comm, const TrainerConfig& cfg, const data::Dataset& ds, std::int64_t total,
                  std::int64_t startStep)
{
    nlohmann::json mine = cfg.toJson();
    for (const char* k : {"checkpoint_dir", "checkpoint_every", "snapshot_every", "snapshot_items", "evaluate_each_epoch",
                          "evaluate_every", "device", "resume_from", "resume_overrides", "init_from"})
        mine.erase(k);
    mine["dataset_hash"] = ds.contentHash();
    // The labels the run reads (a project's edited labels are not in every dataset's hash).
    if (const data::LabelSet* ls = ds.labelSet(cfg.labelSet))
        mine["labels_hash"] = util::hashBytes(ls->labels.data(), ls->labels.size() * sizeof(std::int32_t));
    mine["dataset_items"] = ds.size();
    mine["total_steps"] = total;
    mine["start_step"] = startStep;
    std::string first = mine.dump();
    comm.broadcast(first, 0);
    const nlohmann::json lead = nlohmann::json::parse(first);
    if (lead == mine)
        return;
    std::string diff;
    for (const auto& [k, v] : mine.items())
        if (!lead.contains(k) || lead.at(k) != v)
            diff += (diff.empty() ? "" : ", ") + k + " " + (lead.contains(k) ? lead.at(k).dump() : "-") + " \u2192 " + v.dump();
    throw std::invalid_argument("rank " + std::to_string(comm.rank()) + " runs another training than rank 0 (" + diff +
                                "): every rank must run the same command on the same data");
}

/// One stage as it runs: the pool it samples, its sampler and (once entered) its loss,
/// augmentation and optimizer.
struct StageRun {
    const PlannedStage* plan = nullptr;
    const data::Dataset* dataset = nullptr;
    std::vector<std::int64_t> pool;
    bool supervised = false;
    /// Semi-supervised stages: the stage's labels by dataset item (-1 beyond the kept share);
    /// empty otherwise (the run's labels apply).
    std::vector<std::int32_t> labels;
    /// A sampler with the refresh capability has mined (or restored) its batches.
    bool mined = false;
    std::unique_ptr<sdk::BatchSampler> sampler;
    std::string samplerName;
    std::int64_t perEpoch = 0;
    std::int64_t steps = 0;
    std::int64_t firstStep = 0; ///< global step at which the stage starts
};

} // namespace

void TrainingJob::run()
{
    try {
        runTraining();
    } catch (const dist::PeerLost&) {
        // An interrupted multi-process run: every rank is told to cancel at about the same moment
        // (the launcher passes the signal on, or each rank finds its launcher gone), the first to
        // notice leaves, and its partners' next collective fails, possibly before their own
        // cancel request has arrived (the CLI polls its signals every 50 ms). Such a failure is
        // the cancel it was about to be, and is recorded as one: up to a second is given for the
        // request to arrive (issue 29 §5). A rank that really failed leaves this a failure.
        for (int k = 0; k < 100 && !control().cancelRequested(); ++k)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (control().cancelRequested())
            throw job::Cancelled();
        throw;
    }
}

void TrainingJob::runTraining()
{
    const auto t0 = Clock::now();
    const data::Dataset& ds = *m_dataset;
    const int world = m_comm ? m_comm->size() : 1;
    const int rank = m_comm ? m_comm->rank() : 0;
    // Rank 0 alone evaluates, snapshots and writes checkpoints; the other ranks only train.
    TrainerConfig rankConfig = m_config;
    if (rank != 0) {
        rankConfig.checkpointDir.clear();
        rankConfig.evaluateEachEpoch = false;
        rankConfig.snapshotEvery = 0;
    }
    const TrainerConfig& cfg = rankConfig;
    const int shards = cfg.batchShards;
    if (shards % world != 0)
        throw std::invalid_argument("batch_shards " + std::to_string(shards) + " is not a multiple of the " +
                                    std::to_string(world) + " ranks of this run: every rank takes the same number of "
                                    "parts of each batch (--batch-shards " + std::to_string(world) + " or a multiple)");
    const torch::Device device(deviceForRank(resolveDevice(cfg.device), m_comm ? m_comm->localRank() : -1));
    const std::string threads = setThreadsHere(cfg.threads);
    const RunPlan plan = planRun(cfg, m_registry);

    const data::LabelSet* ls = ds.labelSet(cfg.labelSet);
    std::vector<std::int32_t> noLabels;
    const std::vector<std::int32_t>& labels = ls ? ls->labels : (noLabels = std::vector<std::int32_t>(ds.size(), -1));

    // Splits: validation (stratified share of the labelled train items), training pool (the rest).
    const std::vector<std::int64_t> trainSplit = ds.indices(data::Split::Train);
    std::vector<std::int64_t> validation;
    if (plan.validationFraction > 0 && ls)
        validation = stratifiedShare(trainSplit, labels, plan.validationFraction, mixSeed(cfg.seed, 0x7a1, 0));
    std::vector<std::int64_t> pool;
    std::set_difference(trainSplit.begin(), trainSplit.end(), validation.begin(), validation.end(), std::back_inserter(pool));
    if (pool.empty())
        throw std::invalid_argument("dataset '" + ds.name() + "' has no items in its train split to train on");

    if (plan.needsExternal) {
        if (!m_external)
            throw std::invalid_argument("recipe " + cfg.recipe + " needs the external dataset " + cfg.externalDataset +
                                        ", which was not opened");
        if (m_external->dim() != ds.dim())
            throw std::invalid_argument("external dataset '" + m_external->name() + "' has " +
                                        std::to_string(m_external->dim()) + "-d elements, '" + ds.name() + "' " +
                                        std::to_string(ds.dim()) + "-d: pre-training needs the same element vectors");
    }

    // Every stage's pool and sampler up front: the run's length is known before it starts.
    std::vector<StageRun> stages(plan.stages.size());
    std::int64_t total = 0;
    for (std::size_t k = 0; k < plan.stages.size(); ++k) {
        StageRun& st = stages[k];
        st.plan = &plan.stages[k];
        st.dataset = st.plan->stage.external ? m_external.get() : &ds;
        // Supervised when the stage reads labels and its loss or sampler uses them.
        const bool semiStage = st.plan->stage.labels == sdk::StageLabels::SemiSupervised;
        const bool labelStage = st.plan->stage.labels == sdk::StageLabels::Training || semiStage;
        const sdk::SamplerInfo* samplerInfo = st.plan->sampler;
        bool lossReadsLabels = false;
        {
            // needs() depends on the options only; a throwaway instance answers it.
            sdk::LossSpec probe;
            probe.options = st.plan->lossOptions;
            probe.embeddingDim = cfg.embeddingDim;
            // The smallest sizes every loss accepts: an instance-level loss (Exemplar) would
            // otherwise allocate a classifier over the whole dataset just to answer needs().
            probe.numClasses = 2;
            probe.datasetSize = 2;
            lossReadsLabels = st.plan->loss->create(probe)->needs().labels;
        }
        if (lossReadsLabels && !labelStage)
            throw std::invalid_argument("stage " + st.plan->stage.name + ": loss " + st.plan->loss->name +
                                        " needs labels but the stage is self-supervised");
        if (!samplerInfo)
            samplerInfo = &m_registry.requireSampler(lossReadsLabels ? "class-balanced" : "random");
        st.supervised = labelStage && (semiStage || lossReadsLabels || samplerInfo->needsLabels);
        if (st.supervised && !ls)
            throw std::invalid_argument("dataset '" + ds.name() + "' has no label set '" + cfg.labelSet + "' for stage " +
                                        st.plan->stage.name + " (" + st.plan->loss->name + ")");
        sdk::SamplerSpec spec;
        spec.options = resolveSamplerOptions(*samplerInfo, *st.plan, cfg);
        spec.seed = mixSeed(cfg.seed, k, 0x5a3);
        if (st.plan->stage.external) {
            st.pool = st.dataset->indices(data::Split::Train);
        } else if (st.supervised) {
            std::vector<std::int64_t> labelled;
            for (std::int64_t i : pool)
                if (labels[static_cast<std::size_t>(i)] >= 0)
                    labelled.push_back(i);
            const int perClass = st.plan->stage.labelsPerClass;
            st.pool = perClass > 0               ? perClassShare(labelled, labels, perClass, mixSeed(cfg.seed, 0x1ab, 1))
                      : cfg.labelFraction < 1.0 ? stratifiedShare(labelled, labels, cfg.labelFraction, mixSeed(cfg.seed, 0x1ab, 0))
                                                : labelled;
            if (st.pool.empty())
                throw std::invalid_argument("dataset '" + ds.name() + "' has no labelled items in its train split for label set '" +
                                            cfg.labelSet + "'");
            if (semiStage) { // the kept labels on the whole pool, the others hidden
                st.labels.assign(labels.size(), -1);
                for (std::int64_t i : st.pool)
                    st.labels[static_cast<std::size_t>(i)] = labels[static_cast<std::size_t>(i)];
                st.pool = pool;
            }
        } else {
            st.pool = pool;
        }
        for (std::int64_t i : st.pool) {
            spec.items.push_back(i);
            spec.labels.push_back(!st.supervised ? -1
                                  : st.labels.empty() ? labels[static_cast<std::size_t>(i)]
                                                      : st.labels[static_cast<std::size_t>(i)]);
            spec.setSizes.push_back(static_cast<std::int64_t>(st.dataset->setSize(static_cast<std::size_t>(i))));
        }
        st.sampler = samplerInfo->create(spec);
        st.samplerName = samplerInfo->name;
        st.perEpoch = st.sampler->batchesPerEpoch();
        st.steps = st.perEpoch * st.plan->epochs;
        st.firstStep = total;
        total += st.steps;
    }
    if (cfg.maxSteps > 0)
        total = std::min(total, cfg.maxSteps);
    m_totalSteps = total;

    // Check a resume before building anything: a checkpoint that does not fit is refused
    // with every difference named, not late in a Torch error.
    std::optional<torch::serialize::InputArchive> resumeArchive;
    std::optional<CheckpointHeader> resumeHeader;
    std::string overridden;
    if (!cfg.resumeFrom.empty()) {
        resumeArchive.emplace(openArchive(cfg.resumeFrom, device, &control()));
        resumeHeader = readHeader(*resumeArchive, cfg.resumeFrom, &control());
        overridden = checkResumeHeader(*resumeHeader, cfg, ds);
    }
    std::optional<torch::serialize::InputArchive> initArchive;
    std::int64_t initStep = 0;
    if (cfg.resumeFrom.empty() && !cfg.initFrom.empty()) {
        initArchive.emplace(openArchive(cfg.initFrom, device, &control()));
        const CheckpointHeader h = readHeader(*initArchive, cfg.initFrom, &control());
        checkInitHeader(h, cfg, ds);
        initStep = h.step;
    }

    std::shared_ptr<sdk::SetEncoder> enc;
    {
        std::lock_guard lock(initMutex());
        torch::manual_seed(cfg.seed);
        enc = plan.encoder->create(encoderSpec(m_registry, cfg, ds.dim()));
    }
    enc->to(device);
    if (initArchive) {
        // Only the encoder's weights: optimizer, schedule, sampler order and history start fresh.
        torch::serialize::InputArchive m;
        initArchive->read("model", m);
        loadChecked(*enc, m, cfg.initFrom, "the weights of model " + cfg.model);
        initArchive.reset();
        reportMessage("started from the weights of " + cfg.initFrom + " (its step " + std::to_string(initStep) +
                      "); optimizer and schedule start fresh");
    }

    std::int64_t step = 0;
    double epochLossSum = 0.0;
    std::int64_t epochLossCount = 0;
    // Model selection on the validation items (kNN against the training pool): the best epoch
    // of the last stage so far. Checkpoints carry it, so a resumed run keeps it.
    BestEpoch best;
    if (resumeArchive) {
        const CheckpointHeader& h = *resumeHeader;
        best = h.best;
        torch::serialize::InputArchive m;
        resumeArchive->read("model", m);
        loadChecked(*enc, m, cfg.resumeFrom, "the weights of model " + cfg.model);
        step = h.step;
        epochLossSum = h.epochLossSum;
        epochLossCount = h.epochLossCount;
        std::lock_guard lock(m_mutex);
        m_history = h.history;
    }

    if (m_comm)
        checkSameRun(*m_comm, m_config, ds, total, step);

    // Finished pairwise EMD matrices from the cache, per dataset a stage trains on (looked up
    // once, when the first stage that reads EMDs starts).
    std::map<const data::Dataset*, CachedEmd> emdCaches;
    auto cachedEmds = [&](const data::Dataset& d) -> const CachedEmd& {
        auto it = emdCaches.find(&d);
        if (it != emdCaches.end())
            return it->second;
        CachedEmd lookup;
        if (cfg.emdCache == "auto") {
            std::string why;
            ot::PairwiseOptions po; // exact EMD, Euclidean ground distance: what the batches solve
            lookup = cachedEmdFrom(ot::findCachedMatrix(d, po, &why));
            reportMessage("EMDs of '" + d.name() + "': " +
                          (lookup ? why + " (the pairs of every batch are read from it)"
                                  : why + "; the pairs of each batch are solved on all cores (`setscope-cli emd-matrix "
                                          "--dataset ...` precomputes them once)"));
        }
        return emdCaches.emplace(&d, std::move(lookup)).first->second;
    };

    // The stage being trained and what it built.
    std::size_t current = stages.size();
    std::shared_ptr<sdk::MetricLoss> loss;
    std::unique_ptr<sdk::SetAugmentation> augmentation;
    std::unique_ptr<torch::optim::Optimizer> opt;
    std::unique_ptr<KeyEncoder> keyEnc; ///< MoCo's momentum key encoder, when the stage's loss asks for one
    sdk::LossNeeds needs;
    semi::PairAffinityLoss* affinityLoss = nullptr;           // when the loss reads the batch's graph
    const PairAffinitySampler* affinitySampler = nullptr;     // and the sampler that gives it
    std::vector<double> baseLr;
    std::vector<torch::Tensor> gradParams; ///< what the ranks sum the gradients of: the encoder's and the loss's parameters
    auto stageOf = [&](std::int64_t atStep) {
        std::size_t k = 0;
        while (k + 1 < stages.size() && atStep >= stages[k].firstStep + stages[k].steps)
            ++k;
        return k;
    };
    auto enterStage = [&](std::size_t k, bool fromCheckpoint) {
        StageRun& st = stages[k];
        const PlannedStage& ps = *st.plan;
        const std::int64_t local = step - st.firstStep;
        {
            std::lock_guard lock(initMutex());
            torch::manual_seed(mixSeed(cfg.seed, k, 0x10));
            if (ps.stage.resetHead && local == 0) {
                if (!enc->resetHead())
                    throw std::invalid_argument("stage " + ps.stage.name + " re-initialises the head, but model " + cfg.model +
                                                " has no separate head (use selfattn or deepsets)");
            }
            sdk::LossSpec lspec;
            lspec.options = ps.lossOptions;
            lspec.embeddingDim = cfg.embeddingDim;
            lspec.numClasses = ls ? ls->numClasses() : 0;
            lspec.datasetSize = static_cast<std::int64_t>(st.dataset->size());
            loss = ps.loss->create(lspec);
        }
        loss->to(device);
        needs = loss->needs();
        // Seed 004's graph-based baselines weigh the batch's pairs by the sampler's graph.
        affinityLoss = dynamic_cast<semi::PairAffinityLoss*>(loss.get());
        affinitySampler = dynamic_cast<const PairAffinitySampler*>(st.sampler.get());
        if (affinityLoss && !(affinitySampler && affinitySampler->hasAffinity()))
            throw std::invalid_argument("loss " + ps.loss->name + " weighs the batch's pairs by a graph's affinities: "
                                        "use the sampler ssdml-partition with an affinity other than none (sampler " +
                                        st.samplerName + " gives none)");
        augmentation.reset();
        if (ps.augmentation) {
            sdk::AugmentationSpec aspec;
            aspec.options = ps.augmentationOptions;
            augmentation = ps.augmentation->create(aspec);
        }
        if (needs.augmentedView && !augmentation)
            throw std::invalid_argument("loss " + ps.loss->name + " compares each set with an augmented view: choose an "
                                        "augmentation (--augmentation pointswap|pointdrop|pointmixup)");
        if (needs.momentumKeys && !(needs.keyMomentum >= 0.0 && needs.keyMomentum <= 1.0))
            throw std::invalid_argument("loss " + ps.loss->name + " asks for a key encoder with momentum " +
                                        std::to_string(needs.keyMomentum) + ", outside [0, 1]");
        // MoCo's key encoder: a copy of the encoder (as it is when the stage starts, or as the
        // checkpoint holds it), never in the optimizer. With m = 0 it would be the encoder itself.
        keyEnc.reset();
        if (needs.momentumKeys && needs.keyMomentum > 0.0) {
            std::shared_ptr<sdk::SetEncoder> fresh;
            {
                // Its initial weights are overwritten at once: building it must not move the
                // generator the steps draw from.
                std::lock_guard lock(initMutex());
                auto gen = at::detail::getDefaultCPUGenerator();
                const at::Tensor state = gen.get_state();
                fresh = plan.encoder->create(encoderSpec(m_registry, cfg, ds.dim()));
                gen.set_state(state);
            }
            keyEnc = std::make_unique<KeyEncoder>(std::move(fresh), *enc, needs.keyMomentum);
            if (fromCheckpoint) {
                torch::serialize::InputArchive k;
                if (resumeArchive->try_read("key_model", k))
                    loadChecked(keyEnc->encoder(), k, cfg.resumeFrom, "the key encoder's weights");
                else
                    reportMessage("the checkpoint holds no key encoder: it starts as a copy of the encoder at step " +
                                  std::to_string(step) + " (not an exact continuation)");
            }
        }
        std::vector<torch::Tensor> trainable = enc->parameters();
        const std::vector<torch::Tensor> ownUpdate = loss->selfUpdatedParameters(); // the loss steps these itself
        // A loss that solves its own parameters inside forward() (seed 004's L by conjugate
        // gradient) would solve them on each rank's parts apart: they would drift between ranks.
        if (m_comm && !ownUpdate.empty() && ps.lossOptions.values().count("metric-solver") &&
            ps.lossOptions.text("metric-solver") == "cg")
            throw std::invalid_argument("loss " + ps.stage.loss + " solves its metric L on each batch (metric-solver cg): "
                                        "it cannot run on several ranks; run it in one process, or with "
                                        "--metric-solver step");
        for (const torch::Tensor& p : loss->parameters())
            if (std::none_of(ownUpdate.begin(), ownUpdate.end(), [&](const torch::Tensor& q) { return q.is_same(p); }))
                trainable.push_back(p);
        sdk::OptimizerSpec ospec;
        ospec.options = plan.optimizerOptions;
        ospec.learningRate = plan.optimizerOptions.real("lr");
        opt = plan.optimizer->create(trainable, ospec);
        if (fromCheckpoint) {
            torch::serialize::InputArchive o;
            resumeArchive->read("optimizer", o);
            opt->load(o);
            if (resumeHeader->format == 2) {
                torch::serialize::InputArchive l;
                if (resumeArchive->try_read("loss", l))
                    loadChecked(*loss, l, cfg.resumeFrom, "the state of loss " + ps.loss->name);
            }
            // Batches mined from the model before the interruption (sampler refresh capability).
            torch::Tensor mined;
            if (st.sampler->refreshEvery() > 0 && resumeArchive->try_read("sampler_state", mined, /*is_buffer=*/true)) {
                mined = mined.to(torch::kCPU).to(torch::kLong).contiguous();
                st.sampler->restoreState(
                    std::vector<std::int64_t>(mined.data_ptr<std::int64_t>(), mined.data_ptr<std::int64_t>() + mined.numel()));
                st.mined = true;
            }
            torch::Tensor rng; // absent in checkpoints written before it was stored
            if (resumeArchive->try_read("rng_cpu", rng, /*is_buffer=*/true)) {
                std::lock_guard lock(initMutex());
                setGeneratorState(torch::kCPU, rng);
            }
            // The CUDA generator's, when the checkpoint was written on the device this run uses.
            c10::IValue rngDevice;
            torch::Tensor rngCuda;
            if (device.is_cuda() && resumeArchive->try_read("rng_cuda_device", rngDevice) &&
                rngDevice.toStringRef() == device.str() && resumeArchive->try_read("rng_cuda", rngCuda, /*is_buffer=*/true)) {
                std::lock_guard lock(initMutex());
                setGeneratorState(device, rngCuda);
            }
        }
        gradParams = enc->parameters();
        for (const torch::Tensor& p : loss->parameters())
            gradParams.push_back(p);
        if (m_comm) {
            // Every rank starts the stage from rank 0's weights (identical anyway with the same seed
            // and LibTorch; this makes it so whatever the build).
            std::vector<torch::Tensor> state = gradParams;
            for (const torch::Tensor& b : enc->buffers())
                state.push_back(b);
            if (keyEnc)
                for (const torch::Tensor& p : keyEnc->encoder().parameters())
                    state.push_back(p);
            broadcastTensors(*m_comm, state);
            std::int64_t values = 0;
            for (const torch::Tensor& p : gradParams)
                values += p.numel();
            reportMessage(m_comm->describe() + ": " + std::to_string(shards / world) + " of the " + std::to_string(shards) +
                          " parts of each batch; " + std::to_string(values) + " gradient values summed per step");
        }
        baseLr.clear();
        for (auto& g : opt->param_groups())
            baseLr.push_back(g.options().get_lr());
        current = k;
        reportMessage("stage " + std::to_string(k + 1) + "/" + std::to_string(stages.size()) + " " + ps.stage.name + ": " +
                      ps.loss->name + (augmentation ? " + " + ps.augmentation->name : std::string()) + " on '" +
                      st.dataset->name() + "', " + std::to_string(st.pool.size()) +
                      (!st.labels.empty() ? " items (" + std::to_string(std::count_if(st.labels.begin(), st.labels.end(),
                                                                                      [](std::int32_t y) { return y >= 0; })) +
                                                " labelled)"
                       : st.supervised   ? std::string(" labelled items")
                                         : std::string(" items")) +
                      ", " + std::to_string(st.perEpoch) + " steps/epoch x " + std::to_string(ps.epochs) + ", " +
                      st.sampler->describe() +
                      (keyEnc ? ", momentum key encoder m = " + std::to_string(needs.keyMomentum) +
                                    (augmentation ? " on the augmented views" : " on the sets (no augmentation)")
                       : needs.momentumKeys ? std::string(", keys from the encoder itself (momentum 0)")
                                            : std::string()));
    };

    if (resumeArchive) {
        const std::size_t k = stageOf(step);
        // The optimizer's state belongs to the stage the checkpoint was written in.
        enterStage(k, static_cast<std::int64_t>(k) == resumeHeader->stage && step > stages[k].firstStep);
        reportMessage("resumed from " + cfg.resumeFrom + " at step " + std::to_string(step) +
                      (overridden.empty() ? std::string(" (an exact continuation)")
                                          : " with " + overridden + " (overridden: not an exact continuation)"));
        if (step >= total)
            reportMessage("the checkpoint is at step " + std::to_string(step) + " and this run ends at step " +
                          std::to_string(total) + ": nothing to train (raise --epochs to extend it)");
    }

    if (!cfg.checkpointDir.empty()) {
        // A run killed while writing a checkpoint leaves its part file (the checkpoints before
        // it are whole: each is renamed into place complete); the next run in the folder removes
        // it, and the ".pt.partial" files of setscope versions before the atomic writer.
        const auto endsWith = [](const std::string& n, std::string_view tail) {
            return n.size() > tail.size() && n.compare(n.size() - tail.size(), tail.size(), tail) == 0;
        };
        std::error_code ec;
        for (fs::directory_iterator it(cfg.checkpointDir, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string n = it->path().filename().string();
            if (endsWith(n, ".pt.part") || endsWith(n, ".pt.partial"))
                fs::remove(it->path(), ec);
        }
    }
    std::int64_t lastSaved = -1;
    auto writeCheckpoint = [&](std::int64_t atStep, const fs::path& final) {
        fs::create_directories(final.parent_path());
        torch::serialize::OutputArchive ar;
        ar.write("format", c10::IValue(std::string(kCheckpointFormat)));
        TrainerConfig stored = cfg;
        stored.resumeFrom.clear();
        stored.resumeOverrides.clear();
        ar.write("config", c10::IValue(stored.toJson().dump()));
        ar.write("stage", c10::IValue(static_cast<std::int64_t>(current)));
        ar.write("step", c10::IValue(atStep));
        ar.write("input_dim", c10::IValue(static_cast<std::int64_t>(ds.dim())));
        ar.write("dataset_hash", c10::IValue(ds.contentHash()));
        ar.write("epoch_loss_sum", c10::IValue(epochLossSum));
        ar.write("epoch_loss_count", c10::IValue(epochLossCount));
        nlohmann::json hist = nlohmann::json::array();
        for (const auto& m : history())
            hist.push_back(metricsToJson(m));
        ar.write("history", c10::IValue(hist.dump()));
        torch::serialize::OutputArchive m, o, l;
        enc->save(m);
        opt->save(o);
        loss->save(l);
        ar.write("model", m);
        ar.write("optimizer", o);
        ar.write("loss", l);
        if (const torch::Tensor p = metricProjection(*loss, enc->outputDim()); p.defined())
            ar.write("embedding_projection", p, /*is_buffer=*/true);
        if (keyEnc) {
            torch::serialize::OutputArchive k;
            keyEnc->encoder().save(k);
            ar.write("key_model", k);
        }
        if (current < stages.size()) {
            const std::vector<std::int64_t> mined = stages[current].sampler->state();
            if (!mined.empty())
                ar.write("sampler_state", torch::tensor(mined, torch::kLong), /*is_buffer=*/true);
        }
        {
            std::lock_guard lock(initMutex());
            ar.write("rng_cpu", generatorState(torch::kCPU), /*is_buffer=*/true);
            if (device.is_cuda()) {
                ar.write("rng_cuda_device", c10::IValue(device.str()));
                ar.write("rng_cuda", generatorState(device), /*is_buffer=*/true);
            }
        }
        if (best.step >= 0) {
            ar.write("best_step", c10::IValue(best.step));
            ar.write("best_validation", c10::IValue(best.validation));
            ar.write("best_epoch", c10::IValue(static_cast<std::int64_t>(best.epoch)));
            ar.write("best_path", c10::IValue(best.path));
            const torch::Tensor bytes =
                torch::from_blob(best.weights.data(), {static_cast<std::int64_t>(best.weights.size())}, torch::kUInt8);
            ar.write("best_model", bytes, /*is_buffer=*/true);
        }
        // Written to final.part, fsynced and renamed: a reader (or a resume after a kill) sees
        // the previous file or the new one, and a failed write leaves no part file.
        util::writeFileAtomically(final, [&](std::ostream& out) { ar.save_to(out); });
    };
    // A run resumed into another checkpoint folder takes the best.pt of its best epoch along:
    // the file itself when it still holds that epoch (the old run may have gone on to a better
    // one), else one written from the best weights the checkpoint carries.
    if (best.step >= 0 && !cfg.checkpointDir.empty()) {
        const fs::path target = fs::path(cfg.checkpointDir) / "best.pt";
        std::error_code ec;
        bool have = best.path == target.string() && fs::is_regular_file(target, ec);
        if (!have && !best.path.empty() && fs::is_regular_file(best.path, ec)) {
            try {
                auto old = openArchive(best.path, torch::kCPU, &control());
                if (readHeader(old, best.path, &control()).step == best.step) {
                    fs::create_directories(target.parent_path());
                    have = fs::copy_file(best.path, target, fs::copy_options::overwrite_existing);
                }
            } catch (const std::exception&) {
                have = false; // unreadable: written anew below
            }
        }
        if (!have) {
            std::ostringstream now;
            {
                torch::serialize::OutputArchive out;
                enc->save(out);
                out.save_to(now);
            }
            auto load = [&](const std::string& bytes) {
                std::istringstream in(bytes);
                torch::serialize::InputArchive ar;
                ar.load_from(in, device);
                // The best weights may come from the checkpoint this run resumed from.
                loadChecked(*enc, ar, cfg.resumeFrom.empty() ? target.string() : cfg.resumeFrom,
                            "the best epoch's weights of model " + cfg.model);
            };
            load(best.weights);
            writeCheckpoint(best.step, target);
            load(now.str());
            reportMessage("best.pt of epoch " + std::to_string(best.epoch) + " written to " + target.string() +
                          " from the checkpoint's best weights (its optimizer state is that of step " +
                          std::to_string(step) + ")");
        }
        best.path = target.string();
    }
    auto saveCheckpoint = [&](std::int64_t atStep) {
        if (cfg.checkpointDir.empty() || atStep == lastSaved || !opt)
            return;
        lastSaved = atStep;
        char name[64];
        std::snprintf(name, sizeof name, "step-%09lld.pt", static_cast<long long>(atStep));
        const fs::path final = fs::path(cfg.checkpointDir) / name;
        try {
            writeCheckpoint(atStep, final);
        } catch (const std::exception& e) {
            // The run stops: going on without checkpoints would risk hours of work unnoticed.
            // The checkpoints written before are intact (docs/RELIABILITY.md "Faults").
            std::string previous;
            {
                std::lock_guard lock(m_mutex);
                previous = m_lastCheckpoint.empty() ? cfg.resumeFrom : m_lastCheckpoint;
            }
            throw std::runtime_error("cannot save the checkpoint of step " + std::to_string(atStep) + ": " + e.what() +
                                     (previous.empty() ? std::string("; no checkpoint of this run was written before")
                                                       : "; the last good checkpoint is " + previous +
                                                             " (resume from it)"));
        }
        {
            std::lock_guard lock(m_mutex);
            m_lastCheckpoint = final.string();
        }
        if (m_trainingSink)
            m_trainingSink->checkpointWritten(atStep, final.string());
    };

    const std::vector<std::int64_t> snapItems = snapshotSubset(ds, labels, cfg.snapshotItems, cfg.seed);
    double lastLoss = 0.0;
    auto epochOf = [&](std::int64_t atStep) {
        // Epochs count across stages: the epochs of the stages before plus this stage's.
        std::int64_t e = 0;
        for (const StageRun& st : stages) {
            if (atStep >= st.firstStep + st.steps) {
                e += st.plan->epochs;
                continue;
            }
            if (atStep > st.firstStep)
                e += (atStep - st.firstStep) / st.perEpoch;
            break;
        }
        return e;
    };
    // A copy of the current weights as a Torch-free handle, for views and retrieval during the
    // run. Building the copy must not draw from the default generator the run's dropout uses.
    auto publishModel = [&](std::int64_t atStep) {
        auto impl = std::make_unique<ModelHandle::Impl>();
        {
            std::lock_guard lock(initMutex());
            auto gen = at::detail::getDefaultCPUGenerator();
            const at::Tensor state = gen.get_state();
            impl->encoder = plan.encoder->create(encoderSpec(m_registry, cfg, ds.dim()));
            gen.set_state(state);
        }
        std::stringstream buf;
        {
            torch::serialize::OutputArchive out;
            enc->save(out);
            out.save_to(buf);
        }
        torch::serialize::InputArchive in;
        in.load_from(buf, device);
        impl->encoder->load(in);
        impl->encoder->to(device);
        impl->encoder->eval();
        impl->projection = loss ? metricProjection(*loss, enc->outputDim()) : torch::Tensor(); // none before stage 1
        impl->device = device;
        impl->config = cfg;
        impl->step = atStep;
        impl->inputDim = ds.dim();
        impl->datasetHash = ds.contentHash();
        auto handle = std::make_shared<const ModelHandle>(std::move(impl));
        std::lock_guard lock(m_mutex);
        m_model = std::move(handle);
    };
    // Declared after the objects its thread reads (ds, snapItems, m_snapshots live longer).
    SnapshotEmbedder embedder(ds, snapItems, m_snapshots);
    auto publishSnapshot = [&](std::int64_t atStep) {
        publishModel(atStep); // the weights, copied: the embedder works on this copy
        auto s = std::make_shared<job::EmbeddingSnapshot>();
        s->step = atStep;
        s->epoch = static_cast<int>(epochOf(atStep));
        s->loss = lastLoss;
        s->items = snapItems;
        s->dim = currentModel()->dim();
        embedder.submit(currentModel(), std::move(s), control());
    };

    double stepEmdSeconds = 0.0;
    double epochAllreduceSeconds = 0.0;
    // Where an epoch's steps spend their time (docs/BENCHMARKS.md "step profile"): wall seconds
    // of each phase, summed over the epoch's steps. On a GPU the phases are timed as the host
    // issues them (kernels run asynchronously), so only their sum is exact there.
    struct PhaseSeconds {
        double augment = 0, collate = 0, forward = 0, loss = 0, backward = 0, optimizer = 0, steps = 0;
    } epochPhases;
    const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    double epochEmdSeconds = 0.0;
    std::int64_t epochEmdSolved = 0, epochEmdCached = 0;
    std::int64_t epochRealSlots = 0, epochSlots = 0;

    auto validationKnn = [&](const std::vector<float>& all, int dim) {
        std::vector<std::int64_t> refs;
        for (std::int64_t i : pool)
            if (labels[static_cast<std::size_t>(i)] >= 0)
                refs.push_back(i);
        const eval::MatrixView allView{all.data(), static_cast<std::int64_t>(ds.size()), dim};
        const std::vector<float> r = eval::gatherRows(allView, refs), q = eval::gatherRows(allView, validation);
        std::vector<std::int32_t> rl, ql;
        for (std::int64_t i : refs)
            rl.push_back(labels[static_cast<std::size_t>(i)]);
        for (std::int64_t i : validation)
            ql.push_back(labels[static_cast<std::size_t>(i)]);
        return eval::knnClassify({r.data(), static_cast<std::int64_t>(refs.size()), dim}, rl,
                                 {q.data(), static_cast<std::int64_t>(validation.size()), dim}, ql, 10, false, &control())
            .accuracy;
    };

    // `extra`: the stage's metrics besides the standard ones (sdk::RecipeStage::metrics).
    // `scored`: whether this row is evaluated (evaluate_every; a stage's last epoch always is).
    auto evaluateEpoch = [&](int epoch, double meanLoss, const std::string& stageName, bool finalStage,
                             const std::vector<std::string>& extra, bool scored) {
        EpochMetrics m;
        m.epoch = epoch;
        m.step = step;
        m.meanLoss = meanLoss;
        m.stage = stageName;
        const bool bestRow = !finalStage && stageName.rfind("best", 0) == 0;
        if (cfg.evaluateEachEpoch && ls && scored) {
            reportProgress(step, total, "evaluating epoch " + std::to_string(epoch));
            int dim = static_cast<int>(enc->outputDim());
            // The space the loss measures: z L for seed 004's metric, else z.
            const std::vector<float> all =
                projectRows(embedItems(*enc, ds, allItems(ds), device, &control()), dim,
                            loss ? metricProjection(*loss, enc->outputDim()) : torch::Tensor());
            // kNN accuracy, both Recall@K (the papers' share of the class, seed 000 Table II /
            // seed 001 Table 9, and "at least one") and precision@K, by their registry names.
            // spread: how bunched the map is (a start semi-hard mining cannot leave, docs/LOSSES.md).
            eval::MetricRequest standard = eval::standardMetrics();
            standard.metrics.push_back("spread");
            for (const eval::MetricValue& v : eval::evaluateMetrics(ds, all.data(), dim, cfg.labelSet, standard, &control()))
                m.values.emplace_back(v.name, v.value);
            if (!extra.empty()) {
                eval::MetricRequest request;
                request.metrics = extra;
                for (const eval::MetricValue& v : eval::evaluateMetrics(ds, all.data(), dim, cfg.labelSet, request, &control()))
                    m.values.emplace_back(v.name, v.value);
            }
            if (!validation.empty()) {
                const double v = validationKnn(all, dim);
                m.values.emplace_back("validation-knn", v);
                // The best validation epoch of the last stage is the run's model.
                if (finalStage && v > best.validation) {
                    best.validation = v;
                    best.step = step;
                    best.epoch = epoch;
                    std::ostringstream weights;
                    torch::serialize::OutputArchive ar;
                    enc->save(ar);
                    ar.save_to(weights);
                    best.weights = weights.str();
                    if (!cfg.checkpointDir.empty()) {
                        best.path = (fs::path(cfg.checkpointDir) / "best.pt").string();
                        writeCheckpoint(step, best.path);
                    }
                }
            }
        }
        if ((epochEmdSolved > 0 || epochEmdCached > 0) && !bestRow) {
            m.values.emplace_back("emd-seconds", epochEmdSeconds);
            m.values.emplace_back("emd-solved", static_cast<double>(epochEmdSolved));
            m.values.emplace_back("emd-cached", static_cast<double>(epochEmdCached));
        }
        if (m_comm && !bestRow)
            m.values.emplace_back("allreduce-seconds", epochAllreduceSeconds);
        if (epochSlots > 0 && !bestRow)
            m.values.emplace_back("padding-share", 1.0 - static_cast<double>(epochRealSlots) / static_cast<double>(epochSlots));
        if (epochPhases.steps > 0 && !bestRow) {
            m.values.emplace_back("step-seconds", epochPhases.steps);
            m.values.emplace_back("augment-seconds", epochPhases.augment);
            m.values.emplace_back("collate-seconds", epochPhases.collate);
            m.values.emplace_back("forward-seconds", epochPhases.forward);
            m.values.emplace_back("loss-seconds", epochPhases.loss);
            m.values.emplace_back("backward-seconds", epochPhases.backward);
            m.values.emplace_back("optimizer-seconds", epochPhases.optimizer);
        }
        m.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        {
            std::lock_guard lock(m_mutex);
            m_history.push_back(m);
        }
        if (m_trainingSink)
            m_trainingSink->epochMetrics(m);
    };

    reportMessage("training " + cfg.model + (cfg.recipe.empty() ? std::string() : " with recipe " + cfg.recipe) + " on '" +
                  ds.name() + "': " + plan.describe() + "; " + std::to_string(total) + " steps, " +
                  (validation.empty() ? std::string("no validation split")
                                      : std::to_string(validation.size()) + " validation items") +
                  ", device " + device.str() + ", " + threads + ", OpenMP waiting " + util::openMpWaitPolicy());
    if (step == 0 && cfg.evaluateEachEpoch) {
        // How bunched the start is: semi-hard mining cannot leave a start whose distances are all
        // ~0 (docs/LOSSES.md, "WSSET: the printed form and the authors' code").
        const std::vector<std::int64_t> probe(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(pool.size(), 256)));
        const int dim = static_cast<int>(enc->outputDim());
        const std::vector<float> z = embedItems(*enc, ds, probe, device, &control());
        double sum = 0.0;
        std::int64_t pairs = 0;
        for (std::size_t a = 0; a < probe.size(); ++a)
            for (std::size_t b = a + 1; b < probe.size(); ++b, ++pairs) {
                double d2 = 0.0;
                for (int k = 0; k < dim; ++k) {
                    const double diff = double(z[a * dim + k]) - double(z[b * dim + k]);
                    d2 += diff * diff;
                }
                sum += std::sqrt(d2);
            }
        reportMessage("initial embedding: mean pairwise distance " + std::to_string(pairs ? sum / double(pairs) : 0.0) +
                      " over the first " + std::to_string(probe.size()) + " training items (spread)");
    }
    if (cfg.snapshotEvery > 0)
        publishSnapshot(step);

    auto lastReport = Clock::now() - std::chrono::seconds(1);
    std::vector<std::vector<std::int64_t>> batches;
    std::int64_t batchesEpoch = -1;
    std::size_t batchesStage = stages.size();
    enc->train();
    while (step < total) {
        const std::size_t k = stageOf(step);
        if (k != current) {
            enterStage(k, false);
        }
        StageRun& st = stages[k];
        const std::int64_t local = step - st.firstStep;
        const std::int64_t epoch = local / st.perEpoch;
        if (epoch != batchesEpoch || k != batchesStage) {
            // A sampler that mines from the model (seed 004) does so at the start of every
            // refreshEvery()-th epoch, and once when a resumed run has no mined batches to restore.
            if (const std::int64_t every = st.sampler->refreshEvery(); every > 0) {
                const bool due = epoch % every == 0 && local % st.perEpoch == 0;
                if (due || !st.mined) {
                    if (!due)
                        reportMessage("the checkpoint holds no mined batches: mining anew at step " + std::to_string(step) +
                                      " (not an exact continuation)");
                    reportProgress(step, total, st.plan->stage.name + ": mining batches for epoch " + std::to_string(epoch + 1));
                    const auto m0 = Clock::now();
                    const sdk::EmbedItems embed = [&](const std::vector<std::int64_t>& its, int& dim) {
                        dim = static_cast<int>(enc->outputDim());
                        return embedItems(*enc, *st.dataset, its, device, &control());
                    };
                    st.sampler->refresh(epoch, embed);
                    st.mined = true;
                    reportMessage(st.plan->stage.name + ": batches of epoch " + std::to_string(epoch + 1) + " mined in " +
                                  std::to_string(std::chrono::duration<double>(Clock::now() - m0).count()) + " s");
                    if (ls && st.plan->stage.sampler == "ssdml-triplets") {
                        // How well the mining guessed, by the full label set (which it did not read
                        // beyond the labelled items): docs/SSDML.md "Why SSDML lowers NMI here".
                        const auto [pos, neg] = tripletClassShares(st.sampler->epochBatches(epoch), labels);
                        if (pos >= 0)
                            reportMessage(st.plan->stage.name + ": mined triplets by the labels of '" + cfg.labelSet +
                                          "': positive of the anchor's class " + std::to_string(pos) + ", negative " +
                                          std::to_string(neg));
                    }
                }
            }
            batches = st.sampler->epochBatches(epoch);
            if (static_cast<std::int64_t>(batches.size()) != st.perEpoch)
                throw std::logic_error("sampler " + st.samplerName + " gave " + std::to_string(batches.size()) +
                                       " batches for epoch " + std::to_string(epoch) + ", announced " +
                                       std::to_string(st.perEpoch));
            if (shards > 1) {
                // Parts of fewer than 2 sets have no pairs: only a short last batch may have them.
                std::size_t largest = 0;
                for (const auto& b : batches)
                    largest = std::max(largest, b.size());
                if (largest < 2 * static_cast<std::size_t>(shards))
                    throw std::invalid_argument("a batch of " + std::to_string(largest) + " sets cut into " +
                                                std::to_string(shards) + " parts leaves fewer than 2 sets in a part: "
                                                "lower --batch-shards or raise the batch size");
            }
            batchesEpoch = epoch;
            batchesStage = k;
        }
        control().checkpoint();
        const std::vector<std::int64_t>& batchItems = batches[static_cast<std::size_t>(local % st.perEpoch)];
        const data::Dataset& sds = *st.dataset;

        // One part of the step's batch through the loss and backward: `offset` is the part's
        // position in the whole batch (augmentation seeds follow the whole batch's positions),
        // `scale` weighs its gradient. Returns the part's loss.
        auto forwardBackward = [&](const std::vector<std::int64_t>& items, std::size_t offset, double scale) -> double {
            // Optimal transport of the batch, when the loss or the augmentation reads it.
            std::unique_ptr<ExactBatchTransport> transport;
            if (needs.transport || (augmentation && augmentation->needsTransport())) {
                BatchTransportOptions topt;
                topt.threads = cfg.threads;
                topt.control = &control();
                topt.cached = cachedEmds(sds);
                transport = std::make_unique<ExactBatchTransport>(sds, items, topt);
            }
            // Augmentations work on the sets, before collation.
            std::vector<sdk::AugmentedSet> views;
            const auto tAugment = Clock::now();
            if (augmentation) {
                const std::vector<sdk::SetRef> refs = nn::setRefs(sds, items);
                const sdk::AugmentationBatch ab{refs, transport.get()};
                views.reserve(items.size());
                for (std::size_t i = 0; i < items.size(); ++i)
                    views.push_back(augmentation->augment(ab, static_cast<std::int64_t>(i),
                                                          mixSeed(cfg.seed, static_cast<std::uint64_t>(step), offset + i)));
            }
            epochPhases.augment += since(tAugment);
            auto viewBatch = [&] {
                std::vector<sdk::SetRef> refs;
                for (const sdk::AugmentedSet& v : views)
                    refs.push_back(v.set.ref());
                return nn::collateSets(refs, sds.dim(), device);
            };
            // An augmentation that the loss does not compare against (nor encodes keys of) replaces the input.
            const bool viewApart = needs.augmentedView || needs.momentumKeys;
            auto tPhase = Clock::now();
            const sdk::SetBatch batch = augmentation && !viewApart ? viewBatch() : nn::collate(sds, items, device);
            epochRealSlots += batch.mask.sum().item<std::int64_t>();
            epochSlots += batch.mask.numel();
            epochPhases.collate += since(tPhase);

            sdk::LossContext lctx;
            tPhase = Clock::now();
            lctx.embeddings = enc->forward(batch);
            epochPhases.forward += since(tPhase);
            lctx.items = torch::tensor(items, torch::kLong).to(device);
            lctx.labels = st.supervised ? nn::collateLabels(st.labels.empty() ? labels : st.labels, items, device)
                                        : torch::full({static_cast<std::int64_t>(items.size())}, -1,
                                                      torch::TensorOptions().dtype(torch::kLong).device(device));
            lctx.sets = &batch;
            lctx.transport = transport.get();
            if (needs.transport) {
                const std::vector<double>& mat = transport->matrix();
                const auto b = static_cast<std::int64_t>(items.size());
                lctx.emd = torch::from_blob(const_cast<double*>(mat.data()), {b, b}, torch::kFloat64).to(torch::kFloat32).to(device);
            }
            if (viewApart) {
                // The keys of a run without augmentation are the sets' own.
                tPhase = Clock::now();
                const sdk::SetBatch vb = augmentation ? viewBatch() : batch;
                epochPhases.collate += since(tPhase);
                tPhase = Clock::now();
                if (needs.augmentedView)
                    lctx.augmented = enc->forward(vb);
                if (needs.momentumKeys) {
                    if (keyEnc) {
                        lctx.keys = keyEnc->keys(vb, *enc);
                    } else if (needs.augmentedView) {
                        lctx.keys = lctx.augmented.detach();
                    } else {
                        torch::NoGradGuard noGrad;
                        lctx.keys = enc->forward(vb);
                    }
                }
                epochPhases.forward += since(tPhase);
            }
            stepEmdSeconds += transport ? transport->seconds() : 0.0;
            epochEmdSeconds += transport ? transport->seconds() : 0.0;
            if (transport) {
                epochEmdSolved += transport->solved();
                epochEmdCached += transport->cached();
            }
            sdk::LossOutput out;
            tPhase = Clock::now();
            if (affinityLoss) {
                std::vector<float> w = affinitySampler->batchAffinity(items);
                const auto b = static_cast<std::int64_t>(items.size());
                out = affinityLoss->forward(lctx, torch::from_blob(w.data(), {b, b}, torch::kFloat32).clone().to(device));
            } else {
                out = loss->forward(lctx);
            }
            epochPhases.loss += since(tPhase);
            tPhase = Clock::now();
            if (scale == 1.0)
                out.loss.backward();
            else
                (out.loss * scale).backward();
            epochPhases.backward += since(tPhase);
            return out.loss.item<double>();
        };

        const auto tStep = Clock::now();
        opt->zero_grad();
        stepEmdSeconds = 0.0;
        double stepLossSum = 0.0;
        if (shards == 1) {
            stepLossSum = forwardBackward(batchItems, 0, 1.0);
        } else {
            // This rank's parts of the batch (docs/DISTRIBUTED.md): consecutive cuts, each with its
            // own generator seed, so dropout draws the same numbers on any number of ranks.
            const std::size_t b = batchItems.size();
            for (int part = rank * shards / world; part < (rank + 1) * shards / world; ++part) {
                const std::size_t p0 = b * static_cast<std::size_t>(part) / static_cast<std::size_t>(shards);
                const std::size_t p1 = b * static_cast<std::size_t>(part + 1) / static_cast<std::size_t>(shards);
                if (p1 - p0 < 2)
                    continue; // the short last batch of an epoch: no pairs in this part, no gradient from it
                const std::vector<std::int64_t> items(batchItems.begin() + static_cast<std::ptrdiff_t>(p0),
                                                      batchItems.begin() + static_cast<std::ptrdiff_t>(p1));
                {
                    std::lock_guard lock(initMutex());
                    torch::manual_seed(mixSeed(cfg.seed ^ 0x5a4d, static_cast<std::uint64_t>(step), static_cast<std::uint64_t>(part)));
                }
                stepLossSum += forwardBackward(items, p0, 1.0 / shards);
            }
        }
        double stepLoss = stepLossSum / shards;
        if (m_comm) {
            const auto a0 = Clock::now();
            stepLoss = allreduceGradients(*m_comm, gradParams, stepLossSum) / shards;
            epochAllreduceSeconds += std::chrono::duration<double>(Clock::now() - a0).count();
        }
        if (cfg.schedule == "cosine") {
            const double f = 0.5 * (1.0 + std::cos(M_PI * static_cast<double>(local) / static_cast<double>(st.steps)));
            for (std::size_t g = 0; g < opt->param_groups().size(); ++g)
                opt->param_groups()[g].options().set_lr(baseLr[g] * f);
        }
        const auto tOptimizer = Clock::now();
        loss->afterBackward(opt->param_groups().front().options().get_lr()); // seed 004: L's Stiefel step
        opt->step();
        epochPhases.optimizer += since(tOptimizer);
        if (keyEnc)
            keyEnc->update(*enc); // θ_k <- m θ_k + (1 - m) θ_q
        epochPhases.steps += since(tStep);
        lastLoss = stepLoss;
        epochLossSum += lastLoss;
        ++epochLossCount;
        ++step;

        const std::int64_t globalEpoch = epochOf(step);
        mutableCounters().lastLoss = lastLoss;
        mutableCounters().epoch = static_cast<int>(globalEpoch);
        mutableCounters().done = step;
        mutableCounters().total = total;
        const auto now = Clock::now();
        if (now - lastReport >= std::chrono::milliseconds(50) || step == total) {
            lastReport = now;
            if (m_trainingSink) {
                m_trainingSink->stepLoss(step, lastLoss);
                m_trainingSink->progress(step, total,
                                         st.plan->stage.name + " epoch " + std::to_string(epoch + 1) + "/" +
                                             std::to_string(st.plan->epochs) +
                                             (stepEmdSeconds > 0 ? ", EMD " + std::to_string(static_cast<int>(stepEmdSeconds * 1000)) + " ms"
                                                        : std::string()));
            }
        }
        const bool epochEnd = (step - st.firstStep) % st.perEpoch == 0;
        if (cfg.snapshotEvery > 0 && (step % cfg.snapshotEvery == 0 || epochEnd || step == total))
            publishSnapshot(step);
        if (epochEnd || step == total) {
            const double mean = epochLossCount ? epochLossSum / static_cast<double>(epochLossCount) : 0.0;
            epochLossSum = 0.0;
            epochLossCount = 0;
            const bool stageEnd = step == total || step >= st.firstStep + st.steps;
            evaluateEpoch(static_cast<int>(globalEpoch), mean, st.plan->stage.name, k + 1 == stages.size(),
                          st.plan->stage.metrics, stageEnd || (epoch + 1) % cfg.evaluateEvery == 0);
            // The EMD and padding figures of a row are its epoch's.
            epochEmdSeconds = 0.0;
            epochAllreduceSeconds = 0.0;
            epochEmdSolved = epochEmdCached = 0;
            epochRealSlots = epochSlots = 0;
            epochPhases = {};
        }
        if ((cfg.checkpointEvery > 0 && step % cfg.checkpointEvery == 0) || (cfg.checkpointEvery == 0 && epochEnd) ||
            step == total)
            saveCheckpoint(step);
    }
    if (best.step >= 0 && best.step != step) {
        // The run's model is the best validation epoch's: score it as the final row.
        torch::serialize::InputArchive ar;
        std::istringstream in(best.weights);
        ar.load_from(in, device);
        loadChecked(*enc, ar, cfg.resumeFrom.empty() ? best.path : cfg.resumeFrom,
                    "the best epoch's weights of model " + cfg.model);
        reportMessage("best validation kNN " + std::to_string(best.validation) + " at epoch " + std::to_string(best.epoch) +
                      (best.path.empty() ? std::string() : " (" + best.path + ")"));
        evaluateEpoch(best.epoch, 0.0, "best (epoch " + std::to_string(best.epoch) + ")", false,
                      stages.back().plan->stage.metrics, true);
    }
    if (!best.path.empty()) {
        std::lock_guard lock(m_mutex);
        m_bestCheckpoint = best.path;
    }
    embedder.finish(); // every requested snapshot is published before the run reports its end
    publishModel(step);
    reportMessage("finished after " + std::to_string(step) + " steps");
}

std::shared_ptr<const ModelHandle> TrainingJob::currentModel() const
{
    std::lock_guard lock(m_mutex);
    return m_model;
}


ModelHandle::ModelHandle(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}
ModelHandle::~ModelHandle() = default;

int ModelHandle::dim() const
{
    return static_cast<int>(m_impl->projection.defined() ? m_impl->projection.size(1) : m_impl->encoder->outputDim());
}
std::int64_t ModelHandle::inputDim() const { return m_impl->inputDim; }
const TrainerConfig& ModelHandle::config() const { return m_impl->config; }
std::int64_t ModelHandle::step() const { return m_impl->step; }
const std::string& ModelHandle::datasetHash() const { return m_impl->datasetHash; }

std::shared_ptr<const ModelHandle> ModelHandle::fromCheckpoint(const std::string& path, const plugin::Registry& registry,
                                                               job::JobControl* control)
{
    auto ar = openArchive(path, torch::kCPU, control);
    const CheckpointHeader h = readHeader(ar, path, control);
    auto impl = std::make_unique<Impl>();
    impl->device = torch::Device(resolveDevice(h.config.device == "auto" ? "auto" : "cpu"));
    impl->encoder = registry.requireEncoder(h.config.model).create(encoderSpec(registry, h.config, h.inputDim));
    torch::serialize::InputArchive m;
    ar.read("model", m);
    try {
        loadChecked(*impl->encoder, m, path, "the checkpoint's weights do not fit model " + h.config.model);
    } catch (const c10::Error& e) {
        throw sdk::InputError(path, "", "the checkpoint's weights do not fit model " + h.config.model + ": " +
                                            std::string(e.what_without_backtrace()));
    }
    impl->encoder->to(impl->device);
    impl->encoder->eval();
    if (torch::Tensor p; ar.try_read("embedding_projection", p, /*is_buffer=*/true)) {
        if (p.dim() != 2 || p.size(0) != impl->encoder->outputDim() || p.size(1) < 1)
            throw sdk::InputError(path, "embedding_projection", "a " + std::to_string(p.dim()) + "-d tensor where a " +
                                                                    std::to_string(impl->encoder->outputDim()) +
                                                                    " x l matrix is expected");
        impl->projection = p.to(torch::kCPU, torch::kFloat32).contiguous();
    }
    impl->config = h.config;
    impl->step = h.step;
    impl->inputDim = h.inputDim;
    impl->datasetHash = h.datasetHash;
    return std::make_shared<const ModelHandle>(std::move(impl));
}

std::vector<float> ModelHandle::embed(std::span<const sdk::SetRef> sets) const
{
    for (const sdk::SetRef& s : sets)
        if (s.dim != m_impl->inputDim)
            throw std::invalid_argument("the model expects " + std::to_string(m_impl->inputDim) + "-d elements, a set has " +
                                        std::to_string(s.dim) + "-d");
    std::lock_guard lock(m_mutex);
    int d = static_cast<int>(m_impl->encoder->outputDim());
    return projectRows(embedSets(*m_impl->encoder, sets, m_impl->inputDim, m_impl->device, nullptr), d,
                       m_impl->projection);
}

std::vector<float> ModelHandle::embed(const data::Dataset& ds, const std::vector<std::int64_t>& items,
                                      job::JobControl* control) const
{
    if (ds.dim() != m_impl->inputDim)
        throw std::invalid_argument("the model expects " + std::to_string(m_impl->inputDim) + "-d elements, dataset '" +
                                    ds.name() + "' has " + std::to_string(ds.dim()) + "-d");
    std::lock_guard lock(m_mutex);
    int d = static_cast<int>(m_impl->encoder->outputDim());
    return projectRows(embedItems(*m_impl->encoder, ds, items.empty() ? allItems(ds) : items, m_impl->device, control),
                       d, m_impl->projection);
}

Embeddings embedWithCheckpoint(const std::string& checkpoint, const data::Dataset& ds, const plugin::Registry& registry,
                               job::JobControl* control)
{
    const std::shared_ptr<const ModelHandle> model = ModelHandle::fromCheckpoint(checkpoint, registry, control);
    if (model->inputDim() != ds.dim())
        throw std::runtime_error("checkpoint " + checkpoint + " expects " + std::to_string(model->inputDim()) +
                                 "-d input, dataset '" + ds.name() + "' is " + std::to_string(ds.dim()) + "-d");
    Embeddings e;
    e.dim = model->dim();
    e.data = model->embed(ds, {}, control);
    e.config = model->config().toJson().dump();
    return e;
}

} // namespace setscope::train
