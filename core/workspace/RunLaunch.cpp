// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/RunLaunch.h"

#include "core/catalog/DatasetCatalog.h"
#include "core/data/Dataset.h"
#include "core/project/ProjectStore.h"
#include "core/project/RunRecorder.h"
#include "core/train/RunPlan.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/Workspace.h"

#include <stdexcept>

namespace setscope::workspace {

namespace {

/// Passes every report on to the launch job's sink but the end: the training job's finished()
/// (which the run's recorder has seen) becomes the launch job's own, reported by Job.
class ForwardAllButTheEnd final : public train::TrainingSink {
public:
    explicit ForwardAllButTheEnd(job::ProgressSink* next)
        : m_next(next)
        , m_training(dynamic_cast<train::TrainingSink*>(next))
    {
    }
    void progress(std::int64_t done, std::int64_t total, const std::string& what) override
    {
        if (m_next)
            m_next->progress(done, total, what);
    }
    void message(const std::string& text) override
    {
        if (m_next)
            m_next->message(text);
    }
    void stepLoss(std::int64_t step, double loss) override
    {
        if (m_training)
            m_training->stepLoss(step, loss);
    }
    void epochMetrics(const train::EpochMetrics& m) override
    {
        if (m_training)
            m_training->epochMetrics(m);
    }
    void checkpointWritten(std::int64_t step, const std::string& path) override
    {
        if (m_training)
            m_training->checkpointWritten(step, path);
    }

private:
    job::ProgressSink* m_next;
    train::TrainingSink* m_training;
};

/// The opening of the external dataset as the run's progress: "opening NAME: what".
class OpeningSink final : public job::ProgressSink {
public:
    OpeningSink(job::ProgressSink* next, std::string name)
        : m_next(next)
        , m_name(std::move(name))
    {
    }
    void progress(std::int64_t done, std::int64_t total, const std::string& what) override
    {
        if (m_next)
            m_next->progress(done, total, "opening " + m_name + ": " + what);
    }
    void message(const std::string& text) override
    {
        if (m_next)
            m_next->message(text);
    }

private:
    job::ProgressSink* m_next;
    std::string m_name;
};

} // namespace

RunLaunch RunLaunch::from(const Workspace& ws, train::TrainerConfig config)
{
    if (!ws.dataset())
        throw std::logic_error("no dataset is open");
    RunLaunch l;
    // Recorded only when the dataset is in the open project: a dataset opened without it (the
    // attach failed, or no project) has no id a run could refer to.
    if (ws.inProject()) {
        l.store = ws.project();
        l.datasetId = ws.projectDatasetId();
    }
    l.dataset = ws.dataset();
    l.external = ws.external(config.externalDataset);
    l.config = std::move(config);
    return l;
}

RunLaunchJob::RunLaunchJob(RunLaunch launch, const plugin::Registry& registry)
    : m_launch(std::move(launch))
    , m_registry(registry)
{
    if (!m_launch.dataset)
        throw std::logic_error("no dataset to train on");
    const bool needsExternal = train::planRun(m_launch.config, m_registry).needsExternal;
    if (!needsExternal)
        m_launch.external.reset();
    m_opensExternal = needsExternal && !m_launch.external;
    m_external = m_launch.external;
}

RunLaunchJob::~RunLaunchJob() { stopAndWait(); }

void RunLaunchJob::cancel()
{
    std::lock_guard lock(m_mutex);
    Job::cancel();
    if (m_training)
        m_training->cancel();
}

void RunLaunchJob::pause()
{
    std::lock_guard lock(m_mutex);
    Job::pause();
    if (m_training)
        m_training->pause();
}

void RunLaunchJob::resume()
{
    std::lock_guard lock(m_mutex);
    Job::resume();
    if (m_training)
        m_training->resume();
}

const train::TrainingJob* RunLaunchJob::training() const
{
    std::lock_guard lock(m_mutex);
    return m_training.get();
}

std::shared_ptr<const data::Dataset> RunLaunchJob::external() const
{
    std::lock_guard lock(m_mutex);
    return m_external;
}

std::int64_t RunLaunchJob::runId() const
{
    std::lock_guard lock(m_mutex);
    return m_recorder ? m_recorder->runId() : 0;
}

void RunLaunchJob::run()
{
    // Phase 1: the recipe's external dataset.
    std::shared_ptr<const data::Dataset> external = m_launch.external;
    if (m_opensExternal) {
        const std::string& name = m_launch.config.externalDataset;
        reportMessage("Opening the external dataset " + name + "…");
        reportProgress(0, 0, "opening " + name);
        OpeningSink opening(sink(), name);
        try {
            external = std::make_shared<const data::Dataset>(
                catalog::openDataset(name, m_registry, catalog::OpenContext{&opening, &control()}));
        } catch (const job::Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            throw std::runtime_error("cannot open the external dataset " + name + ": " + e.what());
        }
        control().checkpoint(); // a cancel while opening ends the run here
        std::lock_guard lock(m_mutex);
        m_external = external;
    }

    // Phase 2: the run set up and recorded (one SQLite insert), reporting to this job's sink.
    ForwardAllButTheEnd forward(sink());
    project::TrainingRun run = project::prepareTrainingRun(m_launch.store, m_launch.datasetId, m_launch.dataset,
                                                           m_launch.config, m_registry, external, &forward);
    if (!run.recordError.empty())
        reportMessage("Project " + m_launch.store->path() + ": " + run.recordError + " (this run is not recorded)");
    if (run.recorder)
        reportMessage("Recording run " + std::to_string(run.recorder->runId()) + " in " + m_launch.store->path() +
                      " (checkpoints in " + run.job->config().checkpointDir + ")");
    train::TrainingSink* reportTo = run.sink;
    {
        // From here on cancel, pause and resume reach the training job; what came before is
        // handed on now.
        std::lock_guard lock(m_mutex);
        m_recorder = std::move(run.recorder);
        m_training = std::move(run.job);
        if (control().cancelRequested())
            m_training->cancel();
        else if (control().paused())
            m_training->pause();
    }

    // Phase 3: the training, on this thread.
    switch (m_training->runHere(reportTo)) {
    case job::JobStatus::Finished: return;
    case job::JobStatus::Cancelled: throw job::Cancelled();
    default: throw std::runtime_error(m_training->error());
    }
}

} // namespace setscope::workspace
