// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/session/Session.h"

#include "core/catalog/LoadJob.h"
#include "core/data/Dataset.h"
#include "core/fetch/FetchJob.h"
#include "core/job/TaskJob.h"
#include "core/job/WorkerPriority.h"
#include "core/model/ModelHandle.h"
#include "core/project/AttachJob.h"
#include "core/project/ProjectStore.h"
#include "core/project/RunRecorder.h"
#include "core/train/RunPlan.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/ItemText.h"
#include "core/workspace/Models.h"
#include "core/workspace/RunLaunch.h"
#include "core/workspace/WorkspaceJobs.h"
#include "gui/bridge/QtTrainingSink.h"

#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

namespace setscope::gui {

namespace {

constexpr int kPollMs = 33; // ~30 Hz
/// Niceness of background job threads under the GUI (job::setWorkerNiceness): CPU shares of
/// about 3 : 1 in the GUI thread's favour when both want the CPU.
constexpr int kWorkerNiceness = 5;

job::JobStatus toStatus(int s) { return static_cast<job::JobStatus>(s); }

} // namespace

Session::Session(const plugin::Registry& registry, QObject* parent)
    : QObject(parent)
    , m_registry(registry)
    , m_workspace(registry)
{
    QtTrainingSink::registerMetaTypes();
    // Background jobs (training, layout, fetch, and whatever the views start) run a little below
    // the GUI thread, so that a frame or a click does not queue behind them on a busy machine
    // (issue 12, "Load"; tests/gui/app/tst_Responsiveness). Alone on the machine they lose nothing.
    job::setWorkerNiceness(kWorkerNiceness);
    m_timer.setInterval(kPollMs);
    connect(&m_timer, &QTimer::timeout, this, &Session::poll);
    m_retired.onAdded([this] { updatePolling(); }); // the timer reaps them
}

Session::~Session()
{
    m_timer.stop();
    // Ask everyone to stop first, so the joins (the members' destructors) overlap instead of
    // adding up.
    for (JobSlot* s : {&m_open, &m_run, &m_layoutJob, &m_baseline, &m_fetch})
        if (s->job())
            s->job()->cancel();
    m_retired.cancelAll();
}

const workspace::RunLaunchJob* Session::launchJob() const
{
    return dynamic_cast<const workspace::RunLaunchJob*>(m_run.job());
}

const train::TrainingJob* Session::trainingJob() const
{
    const workspace::RunLaunchJob* launch = launchJob();
    return launch ? launch->training() : nullptr;
}

std::shared_ptr<const model::ModelHandle> Session::currentModel() const
{
    if (m_processRun)
        return m_processModel;
    const train::TrainingJob* job = trainingJob();
    return job ? job->currentModel() : nullptr;
}

std::vector<train::EpochMetrics> Session::history() const
{
    if (m_processRun)
        return m_processRun->history();
    const train::TrainingJob* job = trainingJob();
    return job ? job->history() : std::vector<train::EpochMetrics>{};
}

std::string Session::currentCheckpoint() const
{
    if (m_processRun)
        return m_processRun->lastCheckpoint().toStdString();
    const train::TrainingJob* job = trainingJob();
    if (!job)
        return {};
    const std::string best = job->bestCheckpoint();
    return best.empty() ? job->lastCheckpoint() : best;
}

bool Session::openProject(const QString& path)
{
    if (m_trainingState != TrainingState::Idle) {
        Q_EMIT error(tr("Cancel the training run before switching projects."));
        return false;
    }
    try {
        // Creates the missing folders; the dataset is no longer in a project until the
        // attach below has opened it in the new one.
        m_workspace.openProject(QFileInfo(path).absoluteFilePath().toStdString());
        // A run of the old project that is still stopping holds its store through its
        // RunRecorder, so letting go of it cannot pull it from under that thread.
        m_run.retire();
    } catch (const std::exception& e) {
        Q_EMIT error(tr("Cannot open project: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    Q_EMIT message(tr("Project %1").arg(projectPath()));
    Q_EMIT projectChanged(projectPath());
    // Re-open the dataset through the new project: the one being opened in the old project if
    // that is still going on, else the open one as loaded. A load still running will attach
    // to the new project by itself when it finishes.
    if (dynamic_cast<project::AttachJob*>(m_open.job())) {
        const QString spec = m_attachSpec; // setDataset() overwrites the member
        setDataset(m_attachSource, spec);
    } else if (m_workspace.sourceDataset() && !dynamic_cast<catalog::LoadJob*>(m_open.job())) {
        setDataset(m_workspace.sourceDataset(), datasetSpec());
    }
    return true;
}

QString Session::projectPath() const
{
    return QString::fromStdString(m_workspace.projectPath());
}

void Session::setTrainingState(TrainingState s)
{
    if (s == m_trainingState)
        return;
    m_trainingState = s;
    Q_EMIT trainingStateChanged(s);
}

void Session::setLoading(bool loading)
{
    if (loading == m_loading)
        return;
    m_loading = loading;
    Q_EMIT loadingChanged(loading);
}

// --- loading -------------------------------------------------------------------------

void Session::load(const QString& spec)
{
    // Retires what the slot holds: a load still running, or a dataset still being opened in the
    // project (abandoned too).
    m_loadingSpec = spec;
    QtJobSink* sink = m_open.prepare();
    connect(sink, &QtJobSink::messageReported, this, &Session::message);
    m_open.on(&QtJobSink::jobFinished, this,
              [this](int status, const QString& detail) { onLoadFinished(status, detail); });
    m_open.start(std::make_unique<catalog::LoadJob>(spec.toStdString(), m_registry));
    Q_EMIT message(tr("Loading %1…").arg(spec));
    setLoading(true);
    updatePolling();
}

// --- fetching ------------------------------------------------------------------------

bool Session::fetch(const QString& name)
{
    if (isFetching()) {
        Q_EMIT error(tr("%1 is still being fetched; cancel it first").arg(m_fetchName));
        return false;
    }
    m_fetchName = name;
    QtJobSink* sink = m_fetch.prepare();
    connect(sink, &QtJobSink::messageReported, this, &Session::message);
    m_fetch.on(&QtJobSink::progressReported, this,
               [this](qint64 d, qint64 t, const QString& w) { Q_EMIT fetchProgress(d, t, w); });
    m_fetch.on(&QtJobSink::jobFinished, this, [this](int status, const QString& detail) {
        const QString fetched = m_fetchName;
        m_fetch.retire();
        m_fetching = false;
        Q_EMIT fetchingChanged(false, fetched);
        Q_EMIT fetchFinished(fetched, status, detail);
        updatePolling();
    });
    m_fetch.start(std::make_unique<fetch::FetchJob>(name.toStdString()));
    m_fetching = true;
    Q_EMIT message(tr("Fetching %1…").arg(name));
    Q_EMIT fetchingChanged(true, name);
    updatePolling();
    return true;
}

void Session::cancelFetch()
{
    if (m_fetch.job())
        m_fetch.job()->cancel();
}

void Session::onLoadFinished(int status, const QString& detail)
{
    auto* job = m_open.jobAs<catalog::LoadJob>();
    std::shared_ptr<const data::Dataset> ds = job ? job->result() : nullptr;
    const QString spec = m_loadingSpec;
    m_open.retire();
    if (toStatus(status) == job::JobStatus::Finished && ds) {
        setDataset(std::move(ds), spec); // ends the loading state, at once or after the project's part
        return;
    }
    setLoading(false);
    if (toStatus(status) == job::JobStatus::Failed) {
        Q_EMIT loadFailed(spec, detail);
        Q_EMIT message(tr("Could not open %1").arg(spec));
    }
}

void Session::setDataset(std::shared_ptr<const data::Dataset> dataset, const QString& spec)
{
    // The previous dataset's jobs stop in the background; their late signals are ignored.
    m_open.retire(); // the newest request wins over a load (or an attach) still running
    m_run.retire();
    // A multi-process run of the previous dataset is cancelled too (issue 29 §5: it went on
    // training with Cancel disabled, and its checkpoints were mapped onto this dataset).
    retireProcessRun();
    m_layoutJob.retire();
    m_baseline.retire();
    setTrainingState(TrainingState::Idle);
    if (m_baselineRunning) {
        m_baselineRunning = false;
        Q_EMIT baselineRunningChanged(false);
    }

    if (!dataset || !m_workspace.project()) {
        m_workspace.adoptDataset(std::move(dataset), spec.toStdString());
        showDataset();
        return;
    }
    // Registering the dataset and reading the project's labels write with fsync and copy the
    // dataset: a worker's business. The dataset opens when that is done.
    m_attachSource = dataset;
    m_attachSpec = spec;
    m_open.prepare();
    m_open.on(&QtJobSink::jobFinished, this,
              [this](int status, const QString& detail) { onAttachFinished(status, detail); });
    m_open.start(std::make_unique<project::AttachJob>(m_workspace.project(), std::move(dataset), spec.toStdString()));
    setLoading(true);
    updatePolling();
}

void Session::onAttachFinished(int status, const QString& detail)
{
    auto* job = m_open.jobAs<project::AttachJob>();
    project::AttachedDataset attached = job ? job->result() : project::AttachedDataset{};
    std::shared_ptr<const data::Dataset> source = std::move(m_attachSource);
    const QString spec = m_attachSpec;
    m_open.retire();
    if (toStatus(status) == job::JobStatus::Finished && attached.dataset) {
        m_workspace.adoptAttached(std::move(source), std::move(attached), spec.toStdString());
        showDataset();
        return;
    }
    // A project error must not cost the user the dataset: open it without the project.
    Q_EMIT error(tr("Project %1: %2 (the dataset is open without the project)").arg(projectPath(), detail));
    m_workspace.adoptDataset(std::move(source), spec.toStdString());
    showDataset();
}

void Session::showDataset()
{
    m_snapshot.reset();
    m_layout.reset();
    m_seenSnapshotSeq = 0;
    m_seenLayoutSeq = 0;
    if (const auto ds = m_workspace.dataset()) {
        startLayout();
        Q_EMIT message(tr("Opened %1: %2 items, %3-d")
                           .arg(QString::fromStdString(ds->name()))
                           .arg(ds->size())
                           .arg(ds->dim()));
    }
    setLoading(false);
    Q_EMIT datasetChanged();
    updatePolling();
}

bool Session::refreshLabels(const std::string& labelSet)
{
    if (!m_workspace.inProject()) {
        Q_EMIT error(tr("Labels are kept in a project: open or create one first (File ▸ Open or create project)"));
        return false;
    }
    try {
        m_workspace.reloadLabelSet(labelSet); // the message names the project and the label set
    } catch (const std::exception& e) {
        Q_EMIT error(QString::fromUtf8(e.what()));
        return false;
    }
    Q_EMIT labelsChanged(QString::fromStdString(labelSet));
    return true;
}

// --- the map ---------------------------------------------------------------------------

void Session::startLayout()
{
    QtJobSink* sink = m_layoutJob.prepare();
    auto job = std::make_unique<layout::LayoutJob>(m_layoutOptions);
    connect(sink, &QtJobSink::messageReported, this, &Session::message);
    m_layoutJob.on(&QtJobSink::jobFinished, this, [this](int status, const QString& detail) {
        if (toStatus(status) == job::JobStatus::Failed)
            Q_EMIT error(tr("The map could not be computed: %1").arg(detail));
    });
    // The weighted means of every item (70 000 x 784 for Fashion-MNIST: ~0.1 s); the layout
    // work happens on the job's thread.
    const std::string labelSet = workspace::primaryLabelSet(*m_workspace.dataset());
    job->submit(m_workspace.rawSnapshot(m_workspace.mapItems(labelSet, m_mapItemLimit)));
    m_submittedStep = 0;
    m_layoutPending = true;
    m_layoutJob.start(std::move(job));
}

// --- training --------------------------------------------------------------------------

bool Session::startTraining(const train::TrainerConfig& config, int processes)
{
    if (!m_workspace.dataset()) {
        Q_EMIT error(tr("Open a dataset before training."));
        return false;
    }
    if (m_trainingState != TrainingState::Idle) {
        Q_EMIT error(tr("A training run is still active; cancel it first."));
        return false;
    }
    // The run's snapshots hold exactly the map's items, so each new map warm-starts from it.
    train::TrainerConfig cfg = config;
    cfg.snapshotItems = m_mapItemLimit;
    std::unique_ptr<workspace::RunLaunchJob> launch;
    try {
        if (processes > 1)
            (void)train::planRun(cfg, m_registry); // setscope-cli plans it again; a bad setting fails here, at once
        else
            launch = std::make_unique<workspace::RunLaunchJob>(workspace::RunLaunch::from(m_workspace, cfg), m_registry);
    } catch (const std::exception& e) {
        Q_EMIT error(tr("Cannot start training: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    if (processes > 1)
        return launchProcessRun(cfg, processes);

    // The last multi-process run's history and model give way to this run's (its folder stays: a
    // fine-tuning run may start from one of its checkpoints).
    retireProcessRun();
    m_run.prepare<QtTrainingSink>(); // retires the previous run; the run reports losses and epoch rows too
    m_run.on(&QtJobSink::progressReported, this,
             [this](qint64 d, qint64 t, const QString& w) { Q_EMIT trainingProgress(d, t, w); });
    m_run.on(&QtTrainingSink::stepLossReported, this, [this](qint64 step, double loss) { Q_EMIT stepLoss(step, loss); });
    m_run.on(&QtTrainingSink::epochMetricsReported, this, [this](const train::EpochMetrics& m) { Q_EMIT epochMetrics(m); });
    m_run.on(&QtJobSink::messageReported, this, [this](const QString& text) { Q_EMIT message(text); });
    m_run.on(&QtJobSink::jobFinished, this, [this](int status, const QString& detail) { onTrainingFinished(status, detail); });
    m_seenSnapshotSeq = 0;
    m_run.start(std::move(launch));
    setTrainingState(TrainingState::Running);
    updatePolling();
    return true;
}

bool Session::launchProcessRun(const train::TrainerConfig& config, int processes)
{
    const QString spec = datasetSpec();
    if (spec.isEmpty()) {
        Q_EMIT error(tr("A multi-process run opens the dataset in every process: open it by name or path first "
                        "(this one was built in memory)."));
        return false;
    }
    const QString cli = ProcessRun::cliExecutable();
    if (cli.isEmpty()) {
        Q_EMIT error(tr("A multi-process run needs setscope-cli (next to this program, on PATH, or named by "
                        "SETSCOPE_CLI); it was not found."));
        return false;
    }
    train::TrainerConfig cfg = config;
    auto dir = std::make_unique<QTemporaryDir>();
    // The processes take no snapshots: the map follows checkpoints written as often instead
    // (into the project's folder, else into this run's temporary folder).
    if (cfg.snapshotEvery > 0) {
        cfg.checkpointEvery = cfg.snapshotEvery;
        if (cfg.checkpointDir.empty() && !project())
            cfg.checkpointDir = dir->filePath(QStringLiteral("checkpoints")).toStdString();
    }
    cfg.snapshotEvery = 0;
    const QString file = dir->filePath(QStringLiteral("config.json"));
    {
        QFile f(file);
        const std::string text = cfg.toJson().dump(2);
        if (!dir->isValid() || !f.open(QIODevice::WriteOnly) ||
            f.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) {
            Q_EMIT error(tr("Cannot write the run's configuration to %1").arg(file));
            return false;
        }
    }
    QStringList args{QStringLiteral("train"), QStringLiteral("--dataset"), spec, QStringLiteral("--config"), file,
                     QStringLiteral("--events"), QStringLiteral("--no-baseline"), QStringLiteral("--nproc"),
                     QString::number(processes)};
    if (project())
        args << QStringLiteral("--project") << projectPath();
    m_run.retire(); // the previous in-process run
    auto run = std::make_unique<ProcessRun>();
    connect(run.get(), &ProcessRun::progress, this, [this](qint64 d, qint64 t, const QString& w) { Q_EMIT trainingProgress(d, t, w); });
    connect(run.get(), &ProcessRun::stepLoss, this, [this](qint64 step, double loss) { Q_EMIT stepLoss(step, loss); });
    connect(run.get(), &ProcessRun::epochMetrics, this, [this](const train::EpochMetrics& m) { Q_EMIT epochMetrics(m); });
    connect(run.get(), &ProcessRun::message, this, [this](const QString& text) { Q_EMIT message(text); });
    connect(run.get(), &ProcessRun::finished, this, [this](int status, const QString& detail) { onTrainingFinished(status, detail); });
    connect(run.get(), &ProcessRun::checkpointWritten, this, [this](qint64, const QString& path) { mapProcessCheckpoint(path); });
    QString why;
    // TMPDIR: the ranks' store folder goes with this run's folder, whatever becomes of them.
    if (!run->start(cli, args, &why, dir->path())) {
        Q_EMIT error(tr("Cannot start training: %1").arg(why));
        return false;
    }
    retireProcessRun(); // the previous run (ended: startTraining() refuses while one runs)
    m_processLabelSet = cfg.labelSet;
    m_processRun = std::move(run);
    m_processDir = std::move(dir);
    Q_EMIT message(tr("Training in %1 processes: %2 %3").arg(processes).arg(cli, args.join(QLatin1Char(' '))));
    setTrainingState(TrainingState::Running);
    updatePolling();
    return true;
}

void Session::retireProcessRun()
{
    if (!launchJob())
        m_run.retire(); // a checkpoint being mapped: its late result is void
    m_processMapNext.clear();
    m_processModel.reset();
    if (!m_processRun)
        return;
    disconnect(m_processRun.get(), nullptr, this, nullptr);
    if (!m_processRun->running()) {
        m_processRun.reset(); // its folder stays until the next multi-process run
        return;
    }
    ProcessRun* run = m_processRun.get();
    // Removed once its launcher has ended; queued, so that the run is not deleted inside its own
    // signal.
    connect(run, &ProcessRun::finished, this, [this, run] {
        QMetaObject::invokeMethod(
            this,
            [this, run] {
                std::erase_if(m_retiredProcesses, [run](const RetiredProcess& r) { return r.run.get() == run; });
            },
            Qt::QueuedConnection);
    });
    run->stop();
    Q_EMIT message(tr("The multi-process run was cancelled: another dataset was opened"));
    m_retiredProcesses.push_back({std::move(m_processRun), std::move(m_processDir)});
}

void Session::mapProcessCheckpoint(const QString& path)
{
    if (m_run.running()) {
        m_processMapNext = path; // the newest waits; older ones are passed over
        return;
    }
    const auto ds = m_workspace.dataset();
    if (!ds)
        return;
    struct Mapped {
        std::shared_ptr<const model::ModelHandle> model;
        std::shared_ptr<const job::EmbeddingSnapshot> snapshot;
    };
    const std::vector<std::int64_t> items = m_workspace.mapItems(m_processLabelSet, m_mapItemLimit);
    const plugin::Registry& registry = m_registry;
    auto job = std::make_unique<job::TaskJob<Mapped>>(
        "mapping " + path.toStdString(), [ds, items, registry = &registry, file = path.toStdString()](job::JobControl& control, const auto&) {
            Mapped out;
            out.model = workspace::openModel(file, *registry, &control);
            auto snap = std::make_shared<job::EmbeddingSnapshot>();
            snap->step = out.model->step();
            snap->items = items;
            snap->dim = out.model->dim();
            snap->vectors = out.model->embed(*ds, items, &control);
            out.snapshot = std::move(snap);
            return out;
        });
    m_run.prepare();
    // The dataset as loaded: a label edit replaces dataset() by a copy with the same items, opening
    // another dataset replaces this one.
    const auto source = m_workspace.sourceDataset();
    m_run.on(&QtJobSink::jobFinished, this, [this, source](int status, const QString& detail) {
        auto* j = m_run.jobAs<job::TaskJob<Mapped>>();
        const auto out = j ? j->result() : nullptr;
        if (m_workspace.sourceDataset() != source) {
            // Another dataset was opened meanwhile: this map is not its map.
        } else if (toStatus(status) == job::JobStatus::Finished && out) {
            m_processModel = out->model;
            m_snapshot = out->snapshot;
            ++m_snapshotUpdates;
            if (auto* layoutJob = m_layoutJob.jobAs<layout::LayoutJob>()) {
                m_submittedStep = out->snapshot->step;
                m_layoutPending = true;
                layoutJob->submit(out->snapshot);
            }
            Q_EMIT snapshotChanged();
        } else if (toStatus(status) == job::JobStatus::Failed) {
            Q_EMIT message(tr("The map could not follow the run's checkpoint: %1").arg(detail));
        }
        m_run.retire();
        if (!m_processMapNext.isEmpty()) {
            const QString next = std::exchange(m_processMapNext, QString());
            mapProcessCheckpoint(next);
        }
        updatePolling();
    });
    m_run.start(std::move(job));
}

void Session::pauseTraining()
{
    if (m_processRun && m_processRun->running()) {
        Q_EMIT message(tr("A multi-process run cannot pause: the other ranks would wait on it until their timeout. "
                          "Cancel it and resume from its last checkpoint later."));
        return;
    }
    const workspace::RunLaunchJob* launch = launchJob();
    if (m_trainingState != TrainingState::Running || !launch)
        return;
    if (!launch->training()) {
        Q_EMIT message(tr("The external dataset is still being opened; training has not started"));
        return;
    }
    m_run.job()->pause();
    setTrainingState(TrainingState::Paused);
    Q_EMIT message(tr("Training paused"));
}

void Session::resumeTraining()
{
    if (m_trainingState != TrainingState::Paused || !launchJob())
        return;
    m_run.job()->resume();
    setTrainingState(TrainingState::Running);
    Q_EMIT message(tr("Training resumed"));
}

void Session::cancelTraining()
{
    if (m_processRun && m_processRun->running()) {
        if (m_trainingState == TrainingState::Running) {
            m_processRun->stop(); // every rank cancels at its next step; killed if it does not
            setTrainingState(TrainingState::Stopping);
            Q_EMIT message(tr("Cancelling training…"));
        }
        return;
    }
    if ((m_trainingState != TrainingState::Running && m_trainingState != TrainingState::Paused) || !launchJob())
        return;
    m_run.job()->cancel(); // also wakes a paused job, and stops the opening of an external dataset
    setTrainingState(TrainingState::Stopping);
    Q_EMIT message(tr("Cancelling training…"));
}

void Session::onTrainingFinished(int status, const QString& detail)
{
    // An external dataset the run opened is kept for later runs with the same name.
    if (const workspace::RunLaunchJob* launch = launchJob(); launch && launch->opensExternal() && launch->external())
        m_workspace.rememberExternal(launch->config().externalDataset, launch->external());
    poll(); // the last snapshot was published before the job reported its end
    setTrainingState(TrainingState::Idle);
    switch (toStatus(status)) {
    case job::JobStatus::Finished: Q_EMIT message(tr("Training finished")); break;
    case job::JobStatus::Cancelled: Q_EMIT message(tr("Training cancelled")); break;
    case job::JobStatus::Failed: Q_EMIT error(tr("Training failed: %1").arg(detail)); break;
    default: break;
    }
    Q_EMIT trainingFinished(status, detail);
    updatePolling();
}

// --- baseline --------------------------------------------------------------------------

bool Session::computeBaseline(const QString& labelSet)
{
    const auto ds = m_workspace.dataset();
    if (!ds || !ds->isVectorDataset() || !ds->labelSet(labelSet.toStdString()))
        return false;
    const bool wasRunning = m_baselineRunning;
    m_baseline.prepare();
    m_baseline.on(&QtJobSink::jobFinished, this,
                  [this](int status, const QString& detail) { onBaselineFinished(status, detail); });
    m_baseline.start(workspace::makeBaselineJob(ds, labelSet.toStdString()));
    m_baselineRunning = true;
    if (!wasRunning)
        Q_EMIT baselineRunningChanged(true);
    Q_EMIT message(tr("Scoring the raw vectors (%1)…").arg(labelSet));
    updatePolling();
    return true;
}

void Session::onBaselineFinished(int status, const QString& detail)
{
    auto* job = m_baseline.jobAs<job::TaskJob<std::vector<eval::MetricValue>>>();
    if (job && job->result() && toStatus(status) == job::JobStatus::Finished) {
        train::EpochMetrics m;
        m.epoch = 0;
        for (const eval::MetricValue& v : *job->result())
            m.values.emplace_back(v.name, v.value);
        Q_EMIT baselineReady(m);
        Q_EMIT message(tr("Raw-vector baseline: kNN accuracy %1").arg(m.value("knn-accuracy").value_or(-1.0), 0, 'f', 4));
    } else if (toStatus(status) == job::JobStatus::Failed) {
        Q_EMIT error(tr("Baseline failed: %1").arg(detail));
    }
    m_baseline.retire();
    m_baselineRunning = false;
    Q_EMIT baselineRunningChanged(false);
}

// --- polling ---------------------------------------------------------------------------

void Session::poll()
{
    if (const train::TrainingJob* job = trainingJob()) {
        const std::uint64_t seq = job->snapshots().sequence();
        if (seq != m_seenSnapshotSeq) {
            m_seenSnapshotSeq = seq;
            if (auto s = job->snapshots().latest()) {
                m_snapshot = s;
                ++m_snapshotUpdates;
                if (auto* layoutJob = m_layoutJob.jobAs<layout::LayoutJob>()) {
                    m_submittedStep = s->step;
                    m_layoutPending = true;
                    layoutJob->submit(std::move(s));
                }
                Q_EMIT snapshotChanged();
            }
        }
    }
    if (auto* layoutJob = m_layoutJob.jobAs<const layout::LayoutJob>()) {
        const std::uint64_t seq = layoutJob->layouts().sequence();
        if (seq != m_seenLayoutSeq) {
            m_seenLayoutSeq = seq;
            if (auto l = layoutJob->layouts().latest()) {
                m_layout = std::move(l);
                ++m_layoutUpdates;
                if (m_layout->converged && m_layout->sourceStep == m_submittedStep)
                    m_layoutPending = false;
                Q_EMIT layoutChanged();
            }
        }
    }
    m_retired.reap();
    updatePolling();
}

void Session::updatePolling()
{
    const bool trainingActive = launchJob() && m_run.running();
    // The layout job idles once the map of the last snapshot it was given has converged.
    const bool layoutActive = layoutBusy();
    const bool busy = trainingActive || layoutActive || !m_retired.empty() || m_loading || m_baselineRunning ||
                      m_fetching;
    if (busy && !m_timer.isActive())
        m_timer.start();
    else if (!busy && m_timer.isActive())
        m_timer.stop();
}

} // namespace setscope::gui
