// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/TrainingJob.h"

#include "core/data/Dataset.h"
#include "core/eval/Evaluate.h"
#include "core/nn/Collate.h"
#include "core/plugin/Registry.h"
#include "core/train/BatchSampler.h"
#include "core/train/SnapshotSubset.h"

#include <setscope/sdk/Errors.h>
#include <setscope/sdk/Model.h>

#include <nlohmann/json.hpp>
#include <torch/torch.h>
#if AT_PARALLEL_OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>

namespace fs = std::filesystem;

namespace setscope::train {

namespace {

constexpr const char* kCheckpointFormat = "setscope-checkpoint-1";
using Clock = std::chrono::steady_clock;

nlohmann::json metricsToJson(const EpochMetrics& m)
{
    return {{"epoch", m.epoch},          {"step", m.step},          {"mean_loss", m.meanLoss},
            {"knn_accuracy", m.knnAccuracy}, {"recall_k", m.recallK}, {"recall", m.recallAtK},
            {"seconds", m.seconds}};
}

EpochMetrics metricsFromJson(const nlohmann::json& j)
{
    EpochMetrics m;
    m.epoch = j.at("epoch").get<int>();
    m.step = j.at("step").get<std::int64_t>();
    m.meanLoss = j.at("mean_loss").get<double>();
    m.knnAccuracy = j.at("knn_accuracy").get<double>();
    m.recallK = j.at("recall_k").get<std::vector<int>>();
    m.recallAtK = j.at("recall").get<std::vector<double>>();
    m.seconds = j.at("seconds").get<double>();
    return m;
}

sdk::EncoderSpec encoderSpec(const TrainerConfig& c, std::int64_t inputDim)
{
    sdk::EncoderSpec s;
    s.inputDim = inputDim;
    s.outputDim = c.embeddingDim;
    s.options = c.modelOptions;
    return s;
}

/// Embeds `items` in batches (eval mode, no grad); returns items.size() x dim on the CPU.
std::vector<float> embedItems(sdk::SetEncoder& enc, const data::Dataset& ds, const std::vector<std::int64_t>& items,
                              const torch::Device& device, job::JobControl* control)
{
    torch::NoGradGuard noGrad;
    const bool wasTraining = enc.is_training();
    enc.eval();
    const std::int64_t dim = enc.outputDim();
    std::vector<float> out(items.size() * static_cast<std::size_t>(dim));
    constexpr std::size_t kBatch = 2048;
    for (std::size_t b0 = 0; b0 < items.size(); b0 += kBatch) {
        if (control)
            control->checkpoint();
        const std::vector<std::int64_t> chunk(items.begin() + static_cast<std::ptrdiff_t>(b0),
                                              items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), b0 + kBatch)));
        const torch::Tensor e = enc.forward(nn::collate(ds, chunk, device)).to(torch::kCPU).contiguous();
        std::copy(e.data_ptr<float>(), e.data_ptr<float>() + e.numel(), out.begin() + static_cast<std::ptrdiff_t>(b0 * dim));
    }
    if (wasTraining)
        enc.train();
    return out;
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

struct CheckpointHeader {
    TrainerConfig config;
    std::int64_t step = 0;
    std::int64_t inputDim = 0;
    std::string datasetHash;
    double epochLossSum = 0.0;
    std::int64_t epochLossCount = 0;
    std::vector<EpochMetrics> history;
};

CheckpointHeader readHeader(torch::serialize::InputArchive& ar, const std::string& path)
{
    if (readValue(ar, "format", path).toStringRef() != kCheckpointFormat)
        throw sdk::InputError(path, "", "unsupported checkpoint format");
    CheckpointHeader h;
    h.config = TrainerConfig::fromJson(nlohmann::json::parse(readValue(ar, "config", path).toStringRef()));
    h.step = readValue(ar, "step", path).toInt();
    h.inputDim = readValue(ar, "input_dim", path).toInt();
    h.datasetHash = readValue(ar, "dataset_hash", path).toStringRef();
    h.epochLossSum = readValue(ar, "epoch_loss_sum", path).toDouble();
    h.epochLossCount = readValue(ar, "epoch_loss_count", path).toInt();
    for (const auto& m : nlohmann::json::parse(readValue(ar, "history", path).toStringRef()))
        h.history.push_back(metricsFromJson(m));
    return h;
}

torch::serialize::InputArchive openArchive(const std::string& path, const torch::Device& device)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw sdk::InputError(path, "", "checkpoint file not found");
    torch::serialize::InputArchive ar;
    try {
        ar.load_from(path, device);
    } catch (const c10::Error& e) {
        throw sdk::InputError(path, "", "cannot read checkpoint (truncated or not a checkpoint): " +
                                            std::string(e.what_without_backtrace()));
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

} // namespace

std::string checkResume(const TrainerConfig& config, const data::Dataset& dataset)
{
    if (config.resumeFrom.empty())
        return {};
    auto ar = openArchive(config.resumeFrom, torch::kCPU);
    return checkResumeHeader(readHeader(ar, config.resumeFrom), config, dataset);
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

// ---------------------------------------------------------------------------------------

TrainingJob::TrainingJob(std::shared_ptr<const data::Dataset> dataset, TrainerConfig config,
                         const plugin::Registry& registry)
    : m_dataset(std::move(dataset))
    , m_config(std::move(config))
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

void TrainingJob::run()
{
    const auto t0 = Clock::now();
    const data::Dataset& ds = *m_dataset;
    const TrainerConfig& cfg = m_config;
    const torch::Device device(resolveDevice(cfg.device));
    const std::string threads = setThreadsHere(cfg.threads);

    const data::LabelSet& ls = ds.requireLabelSet(cfg.labelSet);
    std::vector<std::int64_t> trainItems;
    std::vector<std::int32_t> trainLabels;
    for (std::int64_t i : ds.indices(data::Split::Train))
        if (ls.labels[static_cast<std::size_t>(i)] >= 0) {
            trainItems.push_back(i);
            trainLabels.push_back(ls.labels[static_cast<std::size_t>(i)]);
        }
    if (trainItems.empty())
        throw std::invalid_argument("dataset '" + ds.name() + "' has no labelled items in its train split for label set '" +
                                    cfg.labelSet + "'");
    const BatchSampler sampler(trainItems, trainLabels, cfg.batchClasses, cfg.batchPerClass, cfg.seed);

    // Check a resume before building anything: a checkpoint that does not fit is refused
    // with every difference named, not late in a Torch error.
    std::optional<torch::serialize::InputArchive> resumeArchive;
    std::string overridden;
    if (!cfg.resumeFrom.empty()) {
        resumeArchive.emplace(openArchive(cfg.resumeFrom, device));
        overridden = checkResumeHeader(readHeader(*resumeArchive, cfg.resumeFrom), cfg, ds);
    }

    std::shared_ptr<sdk::SetEncoder> enc;
    std::shared_ptr<sdk::MetricLoss> loss;
    const sdk::LossInfo& lossInfo = m_registry.requireLoss(cfg.loss);
    {
        std::lock_guard lock(initMutex());
        torch::manual_seed(cfg.seed);
        enc = m_registry.requireEncoder(cfg.model).create(encoderSpec(cfg, ds.dim()));
        std::map<std::string, std::string> given;
        if (cfg.margin >= 0)
            given["margin"] = sdk::detail::formatReal(cfg.margin);
        sdk::LossSpec lspec;
        lspec.options = sdk::OptionValues::resolve(lossInfo.options, given, "loss " + cfg.loss);
        lspec.embeddingDim = cfg.embeddingDim;
        lspec.numClasses = ls.numClasses();
        lspec.datasetSize = static_cast<std::int64_t>(ds.size());
        loss = lossInfo.create(lspec);
    }
    enc->to(device);
    loss->to(device);
    std::vector<torch::Tensor> trainable = enc->parameters();
    for (const torch::Tensor& p : loss->parameters())
        trainable.push_back(p);
    torch::optim::Adam opt(trainable, torch::optim::AdamOptions(cfg.learningRate)
                                                  .betas({0.9, 0.999})
                                                  .eps(1e-7)
                                                  .weight_decay(cfg.weightDecay));

    const std::int64_t perEpoch = sampler.batchesPerEpoch();
    std::int64_t total = perEpoch * cfg.epochs;
    if (cfg.maxSteps > 0)
        total = std::min(total, cfg.maxSteps);
    m_totalSteps = total;

    std::int64_t step = 0;
    double epochLossSum = 0.0;
    std::int64_t epochLossCount = 0;
    if (resumeArchive) {
        auto& ar = *resumeArchive;
        const CheckpointHeader h = readHeader(ar, cfg.resumeFrom);
        torch::serialize::InputArchive m, o;
        ar.read("model", m);
        ar.read("optimizer", o);
        enc->load(m);
        opt.load(o);
        step = h.step;
        epochLossSum = h.epochLossSum;
        epochLossCount = h.epochLossCount;
        std::lock_guard lock(m_mutex);
        m_history = h.history;
        reportMessage("resumed from " + cfg.resumeFrom + " at step " + std::to_string(step) +
                      (overridden.empty() ? std::string(" (an exact continuation)")
                                          : " with " + overridden + " (overridden: not an exact continuation)"));
        if (step >= total)
            reportMessage("the checkpoint is at step " + std::to_string(step) + " and this run ends at step " +
                          std::to_string(total) + ": nothing to train (raise --epochs to extend it)");
    }

    std::int64_t lastSaved = -1;
    auto saveCheckpoint = [&](std::int64_t atStep) {
        if (cfg.checkpointDir.empty() || atStep == lastSaved)
            return;
        lastSaved = atStep;
        fs::create_directories(cfg.checkpointDir);
        torch::serialize::OutputArchive ar;
        ar.write("format", c10::IValue(std::string(kCheckpointFormat)));
        TrainerConfig stored = cfg;
        stored.resumeFrom.clear();
        stored.resumeOverrides.clear();
        ar.write("config", c10::IValue(stored.toJson().dump()));
        ar.write("step", c10::IValue(atStep));
        ar.write("input_dim", c10::IValue(static_cast<std::int64_t>(ds.dim())));
        ar.write("dataset_hash", c10::IValue(ds.contentHash()));
        ar.write("epoch_loss_sum", c10::IValue(epochLossSum));
        ar.write("epoch_loss_count", c10::IValue(epochLossCount));
        nlohmann::json hist = nlohmann::json::array();
        for (const auto& m : history())
            hist.push_back(metricsToJson(m));
        ar.write("history", c10::IValue(hist.dump()));
        torch::serialize::OutputArchive m, o;
        enc->save(m);
        opt.save(o);
        ar.write("model", m);
        ar.write("optimizer", o);
        char name[64];
        std::snprintf(name, sizeof name, "step-%09lld.pt", static_cast<long long>(atStep));
        const fs::path final = fs::path(cfg.checkpointDir) / name;
        const fs::path tmp = fs::path(cfg.checkpointDir) / (std::string(name) + ".partial");
        ar.save_to(tmp.string());
        fs::rename(tmp, final); // atomic on POSIX: a reader sees the old file set or the new one
        {
            std::lock_guard lock(m_mutex);
            m_lastCheckpoint = final.string();
        }
        if (m_trainingSink)
            m_trainingSink->checkpointWritten(atStep, final.string());
    };

    const std::vector<std::int64_t> snapItems = snapshotSubset(ds, ls.labels, cfg.snapshotItems, cfg.seed);
    double lastLoss = 0.0;
    auto publishSnapshot = [&](std::int64_t atStep) {
        auto s = std::make_shared<job::EmbeddingSnapshot>();
        s->step = atStep;
        s->epoch = static_cast<int>(atStep / perEpoch);
        s->loss = lastLoss;
        s->items = snapItems;
        s->dim = static_cast<int>(enc->outputDim());
        s->vectors = embedItems(*enc, ds, snapItems, device, &control());
        m_snapshots.publish(std::move(s));
    };

    auto evaluateEpoch = [&](int epoch, double meanLoss) {
        EpochMetrics m;
        m.epoch = epoch;
        m.step = step;
        m.meanLoss = meanLoss;
        if (cfg.evaluateEachEpoch) {
            reportProgress(step, total, "evaluating epoch " + std::to_string(epoch));
            const std::vector<float> all = embedItems(*enc, ds, allItems(ds), device, &control());
            const eval::Evaluation ev = eval::evaluateEmbedding(ds, all.data(), static_cast<int>(enc->outputDim()),
                                                                cfg.labelSet, &control());
            m.knnAccuracy = ev.knnAccuracy;
            m.recallK = ev.ks;
            m.recallAtK = ev.recallAtK;
        }
        m.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        {
            std::lock_guard lock(m_mutex);
            m_history.push_back(m);
        }
        if (m_trainingSink)
            m_trainingSink->epochMetrics(m);
    };

    reportMessage("training " + cfg.model + " with " + cfg.loss + " loss on '" + ds.name() + "': " +
                  std::to_string(trainItems.size()) + " labelled train items, " + std::to_string(perEpoch) +
                  " steps/epoch of " + std::to_string(sampler.batchSize()) + " (" +
                  std::to_string(std::min(cfg.batchClasses, sampler.usableClasses())) + " classes x " +
                  std::to_string(cfg.batchPerClass) + "), device " + device.str() + ", " + threads);
    if (cfg.snapshotEvery > 0)
        publishSnapshot(step);

    auto lastReport = Clock::now() - std::chrono::seconds(1);
    std::vector<std::vector<std::int64_t>> batches;
    std::int64_t batchesEpoch = -1;
    enc->train();
    while (step < total) {
        const std::int64_t epoch = step / perEpoch;
        if (epoch != batchesEpoch) {
            batches = sampler.epochBatches(epoch);
            batchesEpoch = epoch;
        }
        control().checkpoint();
        const auto& items = batches[static_cast<std::size_t>(step % perEpoch)];
        const sdk::SetBatch batch = nn::collate(ds, items, device);
        const torch::Tensor labels = nn::collateLabels(ls.labels, items, device);
        opt.zero_grad();
        sdk::LossContext lctx;
        lctx.embeddings = enc->forward(batch);
        lctx.labels = labels;
        lctx.items = torch::tensor(items, torch::kLong).to(device);
        lctx.sets = &batch;
        const sdk::LossOutput out = loss->forward(lctx);
        out.loss.backward();
        opt.step();
        lastLoss = out.loss.item<double>();
        epochLossSum += lastLoss;
        ++epochLossCount;
        ++step;

        mutableCounters().lastLoss = lastLoss;
        mutableCounters().epoch = static_cast<int>(step / perEpoch);
        mutableCounters().done = step;
        mutableCounters().total = total;
        const auto now = Clock::now();
        if (now - lastReport >= std::chrono::milliseconds(50) || step == total) {
            lastReport = now;
            if (m_trainingSink) {
                m_trainingSink->stepLoss(step, lastLoss);
                m_trainingSink->progress(step, total,
                                 "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(cfg.epochs));
            }
        }
        const bool epochEnd = step % perEpoch == 0;
        if (cfg.snapshotEvery > 0 && (step % cfg.snapshotEvery == 0 || epochEnd || step == total))
            publishSnapshot(step);
        if (epochEnd) {
            const double mean = epochLossCount ? epochLossSum / static_cast<double>(epochLossCount) : 0.0;
            epochLossSum = 0.0;
            epochLossCount = 0;
            evaluateEpoch(static_cast<int>(step / perEpoch), mean);
        }
        if ((cfg.checkpointEvery > 0 && step % cfg.checkpointEvery == 0) || (cfg.checkpointEvery == 0 && epochEnd) ||
            step == total)
            saveCheckpoint(step);
    }
    reportMessage("finished after " + std::to_string(step) + " steps");
}

Embeddings embedWithCheckpoint(const std::string& checkpoint, const data::Dataset& ds, const plugin::Registry& registry,
                               job::JobControl* control)
{
    auto ar = openArchive(checkpoint, torch::kCPU);
    const CheckpointHeader h = readHeader(ar, checkpoint);
    if (h.inputDim != ds.dim())
        throw std::runtime_error("checkpoint " + checkpoint + " expects " + std::to_string(h.inputDim) +
                                 "-d input, dataset '" + ds.name() + "' is " + std::to_string(ds.dim()) + "-d");
    const torch::Device device(resolveDevice(h.config.device == "auto" ? "auto" : "cpu"));
    std::shared_ptr<sdk::SetEncoder> enc = registry.requireEncoder(h.config.model).create(encoderSpec(h.config, h.inputDim));
    torch::serialize::InputArchive m;
    ar.read("model", m);
    enc->load(m);
    enc->to(device);
    Embeddings e;
    e.dim = static_cast<int>(enc->outputDim());
    e.data = embedItems(*enc, ds, allItems(ds), device, control);
    e.config = h.config.toJson().dump();
    return e;
}

} // namespace setscope::train
