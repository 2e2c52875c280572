// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/CheckpointFile.h"

#include "core/data/Dataset.h"
#include "core/job/Job.h"
#include "core/train/ArchiveCheck.h"
#include "core/train/TrainingJob.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace setscope::train {

namespace run {

nlohmann::json metricsToJson(const EpochMetrics& m)
{
    nlohmann::json values = nlohmann::json::array();
    for (const auto& [k, v] : m.values)
        values.push_back({k, v});
    return {{"epoch", m.epoch}, {"step", m.step},     {"mean_loss", m.meanLoss},
            {"seconds", m.seconds}, {"stage", m.stage}, {"values", values}};
}

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

namespace {

c10::IValue readValue(torch::serialize::InputArchive& ar, const std::string& key, const std::string& path)
{
    c10::IValue v;
    if (!ar.try_read(key, v))
        throw sdk::InputError(path, "", "not a setscope checkpoint (missing '" + key + "')");
    return v;
}

/// What the archive check polls while it runs: the job's cancel (none when `control` is null).
ArchiveCheckOptions checkOptions(job::JobControl* control)
{
    ArchiveCheckOptions o;
    if (control)
        o.poll = [control] { control->checkpoint(); };
    return o;
}

/// The archive stored under `key` as a byte string, checked like the file before LibTorch reads
/// it (an archive inside the archive); nullopt when absent. `malformed` names what is wrong
/// when it is there but not a byte string.
std::optional<std::string> readNestedArchive(torch::serialize::InputArchive& ar, const std::string& key,
                                             const std::string& path, const std::string& malformed,
                                             job::JobControl* control)
{
    torch::Tensor bytes;
    if (!ar.try_read(key, bytes, /*is_buffer=*/true))
        return std::nullopt;
    if (bytes.scalar_type() != torch::kUInt8 || bytes.dim() != 1)
        throw sdk::InputError(path, "", "not a setscope checkpoint (" + malformed + ")");
    bytes = bytes.contiguous();
    std::string out(reinterpret_cast<const char*>(bytes.data_ptr<std::uint8_t>()), static_cast<std::size_t>(bytes.numel()));
    checkTorchArchive(out, path + " [" + key + "]", checkOptions(control));
    return out;
}

} // namespace

CheckpointHeader readHeader(torch::serialize::InputArchive& ar, const std::string& path,
                            job::JobControl* control)
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
        const char* noModel = "best_step without best_model";
        std::optional<std::string> weights = readNestedArchive(ar, "best_model", path, noModel, control);
        if (!weights)
            throw sdk::InputError(path, "", std::string("not a setscope checkpoint (") + noModel + ")");
        h.best.weights = std::move(*weights);
        // Absent before the loss's state was kept.
        if (std::optional<std::string> loss =
                readNestedArchive(ar, "best_loss", path, "best_loss is not a byte string", control))
            h.best.loss = std::move(*loss);
    }
    return h;
}

torch::serialize::InputArchive openArchive(const std::string& path, const torch::Device& device,
                                           job::JobControl* control)
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

} // namespace run

using run::checkInitHeader;
using run::checkResumeHeader;
using run::openArchive;
using run::readHeader;

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

} // namespace setscope::train
