// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/project/RunRecorder.h"

#include "core/data/Dataset.h"
#include "core/project/ProjectStore.h"
#include "core/train/TrainerConfig.h"
#include "core/train/TrainingJob.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <set>

#include <unistd.h>

namespace setscope::project {

std::int64_t registerDataset(ProjectStore& store, const data::Dataset& ds, const std::string& path)
{
    std::error_code ec;
    std::string where = path;
    if (std::filesystem::exists(path, ec))
        where = std::filesystem::absolute(path, ec).string();
    const std::int64_t id = store.addDataset(ds.name(), where, ds.contentHash(), static_cast<std::int64_t>(ds.size()));
    for (const auto& ls : ds.labelSets())
        if (!store.findLabelSet(id, ls.name))
            store.createLabelSet(id, ls.name, ls.classNames, ls.labels);
    return id;
}

data::Dataset withProjectLabels(const ProjectStore& store, std::int64_t datasetId, const data::Dataset& ds)
{
    data::Dataset out = ds;
    for (const auto& rec : store.labelSets(datasetId)) {
        data::LabelSet ls;
        ls.name = rec.name;
        ls.classNames = rec.classNames;
        ls.labels = store.labels(rec.id);
        out = std::move(out).withLabelSet(std::move(ls)); // no copy per label set
    }
    return out;
}

AttachedDataset attachDataset(ProjectStore& store, const data::Dataset& dataset, const std::string& path)
{
    AttachedDataset a;
    a.datasetId = registerDataset(store, dataset, path);
    a.dataset = std::make_shared<const data::Dataset>(withProjectLabels(store, a.datasetId, dataset));
    return a;
}

RunRecorder::RunRecorder(std::shared_ptr<ProjectStore> store, std::int64_t datasetId,
                         const train::TrainerConfig& config, train::TrainingSink* next)
    : m_store(std::move(store))
    , m_next(next)
{
    if (!m_store)
        throw std::invalid_argument("RunRecorder: no project store");
    m_runId = m_store->createRun(datasetId, config.toJson().dump());
}

void RunRecorder::storeFailed(const std::exception& e)
{
    if (m_next)
        m_next->message(std::string("warning: could not record in the project: ") + e.what());
}

void RunRecorder::progress(std::int64_t done, std::int64_t total, const std::string& what)
{
    if (m_next)
        m_next->progress(done, total, what);
}

void RunRecorder::message(const std::string& text)
{
    if (m_next)
        m_next->message(text);
}

void RunRecorder::stepLoss(std::int64_t step, double loss)
{
    if (m_next)
        m_next->stepLoss(step, loss);
}

void RunRecorder::epochMetrics(const train::EpochMetrics& m)
{
    try {
        std::vector<std::pair<std::string, double>> values{{"mean-loss", m.meanLoss}, {"seconds", m.seconds}};
        values.insert(values.end(), m.values.begin(), m.values.end());
        m_store->addMetrics(m_runId, m.epoch, m.step, values);
    } catch (const std::exception& e) {
        storeFailed(e);
    }
    if (m_next)
        m_next->epochMetrics(m);
}

void RunRecorder::checkpointWritten(std::int64_t step, const std::string& path)
{
    try {
        m_store->addCheckpoint(m_runId, step, path);
    } catch (const std::exception& e) {
        storeFailed(e);
    }
    if (m_next)
        m_next->checkpointWritten(step, path);
}

void RunRecorder::finished(job::JobStatus status, const std::string& detail)
{
    try {
        const char* s = status == job::JobStatus::Finished    ? "finished"
                        : status == job::JobStatus::Cancelled ? "cancelled"
                                                                : "failed";
        m_store->finishRun(m_runId, s, detail);
    } catch (const std::exception& e) {
        storeFailed(e);
    }
    if (m_next)
        m_next->finished(status, detail);
}

std::string newRunCheckpointDir(const ProjectStore& store)
{
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm utc{};
    gmtime_r(&t, &utc);
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "run-%04d%02d%02d-%02d%02d%02d-%03lld-%lld", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<long long>(ms),
                  static_cast<long long>(::getpid()));
    // Two runs set up within the same millisecond by one process must not share a folder:
    // a name this process handed out already, or one that exists, gets a suffix.
    static std::mutex mutex;
    static std::set<std::string> given;
    std::lock_guard lock(mutex);
    const std::filesystem::path base = std::filesystem::path(store.checkpointDir()) / stamp;
    std::string name = base.string();
    std::error_code ec;
    for (int n = 2; given.count(name) || std::filesystem::exists(name, ec); ++n)
        name = base.string() + "-" + std::to_string(n);
    given.insert(name);
    return name;
}

TrainingRun prepareTrainingRun(std::shared_ptr<ProjectStore> store, std::int64_t datasetId,
                               std::shared_ptr<const data::Dataset> dataset, train::TrainerConfig config,
                               const plugin::Registry& registry, std::shared_ptr<const data::Dataset> external,
                               train::TrainingSink* next)
{
    TrainingRun run;
    if (store && config.checkpointDir.empty())
        config.checkpointDir = newRunCheckpointDir(*store);
    run.job = std::make_unique<train::TrainingJob>(std::move(dataset), std::move(config), registry, std::move(external));
    run.sink = next;
    if (store) {
        try {
            run.recorder = std::make_unique<RunRecorder>(std::move(store), datasetId, run.job->config(), next);
            run.sink = run.recorder.get();
        } catch (const std::exception& e) {
            run.recordError = e.what();
        }
    }
    return run;
}

} // namespace setscope::project
