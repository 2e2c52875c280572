// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/EmbeddingSnapshot.h"
#include "core/layout/LayoutJob.h"
#include "core/train/TrainerConfig.h"
#include "core/train/TrainingSink.h"
#include "core/workspace/Workspace.h"
#include "gui/session/JobSlot.h"
#include "gui/session/ProcessRun.h"

#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
class LoadJob;
}
namespace setscope::plugin {
class Registry;
}
namespace setscope::project {
class ProjectStore;
}
namespace setscope::job {
class Job;
}
namespace setscope::model {
class ModelHandle;
}
namespace setscope::train {
class TrainingJob;
}
namespace setscope::workspace {
class RunLaunchJob;
}

namespace setscope::gui {

/// What the user is working on: the open dataset and the jobs that work on it (loading,
/// training, the 2-D map, the raw-vector baseline). Not a widget; the main window wires
/// its signals to the views and panels. The state itself (project, dataset as loaded and as
/// shown, its id in the project, the external dataset of pre-training runs) and its rules are
/// core's workspace::Workspace, which the session holds and delegates to; the session adds
/// the Qt signals, the jobs (JobSlots) and the poll timer.
///
/// Threads: every method runs on the GUI thread and returns at once. Jobs run on their own
/// worker threads and report through Qt sinks (gui/bridge: queued signals). A 30 Hz timer,
/// active while something is going on, reads the jobs' lock-free mailboxes: a new training
/// snapshot is handed to the layout job, a new layout is announced with layoutChanged().
///
/// Ownership: the Session owns every job and its sink. A job that is replaced or cancelled
/// is asked to stop and kept ("retired") until its thread has ended, so the GUI thread
/// never blocks on a worker; only the destructor waits (jobs stop within about a second,
/// except a dataset load, which finishes reading its files first).
class Session final : public QObject {
    Q_OBJECT
public:
    enum class TrainingState { Idle, Running, Paused, Stopping };
    Q_ENUM(TrainingState)

    /// `registry` must outlive the session (jobs read it on their threads).
    explicit Session(const plugin::Registry& registry, QObject* parent = nullptr);
    /// Cancels every job and waits for their threads.
    ~Session() override;

    const plugin::Registry& registry() const { return m_registry; }
    /// The open dataset (nullptr before the first successful load).
    std::shared_ptr<const data::Dataset> dataset() const { return m_workspace.dataset(); }
    /// The spec it was opened with ("fashion-mnist", "synthetic:...", a path).
    QString datasetSpec() const { return QString::fromStdString(m_workspace.spec()); }
    /// The state behind dataset(), project() and projectDatasetId(). GUI thread only.
    const workspace::Workspace& workspace() const { return m_workspace; }
    /// True from load() (or a setDataset() that goes through the project) until the dataset
    /// is open or the load failed, i.e. between loadingChanged(true) and loadingChanged(false).
    /// State of the GUI thread: it changes only when that thread handles the job's end, never
    /// behind the caller's back.
    bool isLoading() const { return m_loading; }
    /// True from fetch() until fetchFinished() (same contract as isLoading()).
    bool isFetching() const { return m_fetching; }

    TrainingState trainingState() const { return m_trainingState; }
    /// The current (or last) training job, for lock-free per-frame reads of its counters;
    /// nullptr before the first run and while a run's external dataset is being opened (the
    /// run's first phase). Owned by the session; valid until the next startTraining(), load()
    /// or the session's destruction.
    const train::TrainingJob* trainingJob() const;
    /// Epoch metrics of the current (or last) run.
    std::vector<train::EpochMetrics> history() const;
    /// The weights of the current (or last) run to go on from: its best.pt when it has one, else
    /// its newest checkpoint; for a multi-process run the newest checkpoint it reported. "" when none.
    std::string currentCheckpoint() const;

    /// The newest map of the open dataset (nullptr until the layout job published one).
    std::shared_ptr<const layout::Layout> layout() const { return m_layout; }
    /// The newest training snapshot handed to the layout job (nullptr before training).
    std::shared_ptr<const job::EmbeddingSnapshot> snapshot() const { return m_snapshot; }
    /// How many layouts / snapshots this session has seen (for tests and status lines).
    std::uint64_t layoutUpdates() const { return m_layoutUpdates; }
    std::uint64_t snapshotUpdates() const { return m_snapshotUpdates; }
    /// True while the layout job works towards a map it has not yet converged (the first map of
    /// a dataset, or the map of the newest snapshot); false once it idles.
    bool layoutBusy() const { return m_layoutJob.running() && m_layoutPending; }
    /// The weights at the newest snapshot of the current (or last) run, for the views that
    /// embed sets (retrieval); null before the first snapshot.
    std::shared_ptr<const model::ModelHandle> currentModel() const;
    /// The session's list of retired jobs: views give it to their JobSlots, so the jobs they
    /// replace are reaped by the session's timer and joined before the session ends.
    RetiredJobs& retiredJobs() { return m_retired; }
    /// True from computeBaseline() until baselineRunningChanged(false).
    bool baselineRunning() const { return m_baselineRunning; }

    /// Opens (or creates) a project file. From then on every dataset opened is registered
    /// in it, trained with the project's labels (user edits included) and every training
    /// run is recorded there (config, per-epoch metrics, checkpoints in the project's
    /// checkpoint folder, final status), from the training thread. The open dataset is
    /// re-opened through the new project (see setDataset()). False (and error()) when the
    /// file is not a usable project or a training run is active. A run of the previous
    /// project that is still stopping keeps that project's store until it has recorded its end.
    bool openProject(const QString& path);
    /// The open project's file ("" when none).
    QString projectPath() const;
    /// The project store (nullptr when none). GUI thread only.
    project::ProjectStore* project() const { return m_workspace.project().get(); }
    /// The open dataset's id in the project (0 when none, and from openProject() until the
    /// dataset is open in the new project).
    std::int64_t projectDatasetId() const { return m_workspace.projectDatasetId(); }

    /// How many items the map shows: 0 (the default) = every item of the dataset; else a
    /// stratified subset of that size, test split first (train::snapshotSubset). Training
    /// runs started from the session snapshot exactly these items (TrainerConfig::
    /// snapshotItems is set to it), so each map warm-starts from the previous one item by
    /// item. Applies from the next dataset or run.
    void setMapItemLimit(int items) { m_mapItemLimit = std::max(0, items); }
    int mapItemLimit() const { return m_mapItemLimit; }

    /// Options of the layout job started for the next dataset (default: t-SNE).
    void setLayoutOptions(const layout::LayoutJob::Options& options) { m_layoutOptions = options; }
    const layout::LayoutJob::Options& layoutOptions() const { return m_layoutOptions; }

    /// Makes `dataset` the open dataset (what load() does when its job finishes): stops the
    /// jobs of the previous one (and a load still running), starts the initial map. For
    /// datasets built in memory. Without a project the dataset is open when this returns.
    /// With a project, registering it and reading the project's labels (SQLite writes,
    /// a copy of the dataset) happen on a worker thread: isLoading() is true meanwhile and
    /// datasetChanged() says when it is open; if the project fails, the dataset opens
    /// without it and error() says why.
    void setDataset(std::shared_ptr<const data::Dataset> dataset, const QString& spec);

    /// Replaces label set `labelSet` of the open dataset by the project's current labels of
    /// that name (after an edit, an undo or a derive): a copy of the dataset with the new
    /// labels becomes dataset(), the map and the running jobs are left alone (a run keeps the
    /// labels it started with). Emits labelsChanged(). False (and error()) without a project
    /// dataset or when the store has no such label set (workspace::Workspace::reloadLabelSet).
    /// Blocking (one SQLite read, one copy of the dataset's item table); GUI thread. The map's
    /// items are workspace::mapItems(), its first vectors workspace::rawSnapshot().
    bool refreshLabels(const std::string& labelSet);

public Q_SLOTS:
    /// Opens a dataset on a worker thread (a load still running is abandoned). Ends with
    /// datasetChanged() or loadFailed().
    void load(const QString& spec);
    /// Fetches the built-in dataset `name` (fetch::FetchJob: registry download, progress,
    /// cancel) on a worker thread; ends with fetchFinished(). One fetch at a time: false
    /// (and error()) when one is running.
    bool fetch(const QString& name);
    void cancelFetch();
    /// Starts training on the open dataset. False (and error()) when there is no dataset,
    /// a run is active, or the configuration is invalid. When the run's recipe pre-trains on
    /// config.externalDataset (train::RunPlan::needsExternal), that dataset is opened first
    /// on a worker thread (the state is Running meanwhile, and Cancel stops the opening); if
    /// it cannot be opened, error() and trainingFinished(Failed) report why. An external
    /// dataset once opened is kept for later runs with the same name.
    ///
    /// `processes` > 1: a local multi-process run (docs/DISTRIBUTED.md): `setscope-cli train
    /// --nproc processes --events` with this configuration on the open dataset's spec (and the
    /// open project, which records it as one run). Its progress, losses, epochs and messages
    /// arrive through the same signals. Instead of snapshots the map follows its checkpoints
    /// (written every config.snapshotEvery steps; each is loaded and its embedding of the map's
    /// items sent to the layout, one at a time, the newest waiting) and currentModel() is the
    /// newest mapped one. No pause; Cancel interrupts every rank. False (and error()) when the
    /// dataset has no spec (built in memory) or setscope-cli cannot be found or started.
    bool startTraining(const setscope::train::TrainerConfig& config, int processes = 1);
    void pauseTraining();
    void resumeTraining();
    /// Requests cancel; the state is Stopping until the job's thread reports back (within
    /// about a second), then Idle.
    void cancelTraining();
    /// Scores the raw vectors of the open (vector) dataset with `labelSet` on a worker
    /// thread; ends with baselineReady() or error(). False when not applicable.
    bool computeBaseline(const QString& labelSet);

Q_SIGNALS:
    void loadingChanged(bool loading);
    /// A new dataset is open (the map is reset; layoutChanged() follows when it is ready).
    void datasetChanged();
    /// The open dataset's labels changed (refreshLabels()): same items, same map, new
    /// dataset() object carrying label set `labelSet`.
    void labelsChanged(const QString& labelSet);
    void loadFailed(const QString& spec, const QString& message);
    void fetchingChanged(bool fetching, const QString& name);
    void fetchProgress(qint64 done, qint64 total, const QString& what);
    /// `status` is a job::JobStatus value; `detail` the reason when it failed.
    void fetchFinished(const QString& name, int status, const QString& detail);
    void trainingStateChanged(setscope::gui::Session::TrainingState state);
    void trainingProgress(qint64 done, qint64 total, const QString& what);
    void stepLoss(qint64 step, double loss);
    void epochMetrics(const setscope::train::EpochMetrics& metrics);
    /// `status` is a job::JobStatus value; `detail` the reason when it failed.
    void trainingFinished(int status, const QString& detail);
    void snapshotChanged();
    void layoutChanged();
    /// Raw-vector scores as an EpochMetrics row with epoch 0 (meanLoss unused).
    void baselineReady(const setscope::train::EpochMetrics& metrics);
    void baselineRunningChanged(bool running);
    void projectChanged(const QString& path);
    /// A line for the status bar / log.
    void message(const QString& text);
    /// Something failed that the user should know about.
    void error(const QString& text);

private:
    void poll();
    void updatePolling();
    void setTrainingState(TrainingState s);
    void setLoading(bool loading);
    void startLayout();
    /// Shows the workspace's dataset (just adopted): resets the map and starts its layout.
    void showDataset();
    void onLoadFinished(int status, const QString& detail);
    void onAttachFinished(int status, const QString& detail);
    void onTrainingFinished(int status, const QString& detail);
    /// The run slot's job as the in-process run (null when it holds none, e.g. the embedding of a
    /// multi-process run's checkpoint).
    const workspace::RunLaunchJob* launchJob() const;
    /// Starts a multi-process run through setscope-cli (startTraining with processes > 1).
    bool launchProcessRun(const train::TrainerConfig& cfg, int processes);
    /// Lets go of the multi-process run (another dataset, another run): none of its signals
    /// reach the session any more. One still running is stopped without waiting
    /// (ProcessRun::stop(): its ranks cancel, rank 0 records the run as cancelled) and kept,
    /// with its folder, until its launcher has ended; the GUI thread never waits for it.
    void retireProcessRun();
    /// Embeds the map's items with checkpoint `path` of the multi-process run on a worker (or
    /// queues it while one is embedded); then the map follows it.
    void mapProcessCheckpoint(const QString& path);
    void onBaselineFinished(int status, const QString& detail);

    const plugin::Registry& m_registry;
    /// The project (shared with the RunRecorders of runs still stopping and with an attach in
    /// flight), the open dataset as loaded and as shown, its id, the external dataset.
    workspace::Workspace m_workspace;
    QString m_loadingSpec;
    std::shared_ptr<const data::Dataset> m_attachSource; ///< what the attach in flight opens
    QString m_attachSpec;
    bool m_loading = false;
    bool m_fetching = false;
    bool m_baselineRunning = false;
    layout::LayoutJob::Options m_layoutOptions;
    int m_mapItemLimit = 0;

    /// One slot per service, each holding that service's job on its worker thread. Declared
    /// before the slots: they hand their jobs to it, and are destroyed (joined) first.
    RetiredJobs m_retired;
    /// Opening a dataset: reading it (catalog::LoadJob), then with a project registering it and
    /// reading the project's labels (project::AttachJob); one phase at a time.
    JobSlot m_open{m_retired};
    /// The training run: in this process, the run with its phases (workspace::RunLaunchJob:
    /// external dataset, record, train); for a multi-process run (ProcessRun, below), the
    /// embedding of its newest checkpoint for the map.
    JobSlot m_run{m_retired};
    JobSlot m_layoutJob{m_retired}; ///< the map (layout::LayoutJob)
    JobSlot m_baseline{m_retired};  ///< the raw vectors' scores
    JobSlot m_fetch{m_retired};     ///< a built-in dataset's download
    QString m_fetchName;

    /// The current (or last) multi-process run and the folder of its configuration file.
    std::unique_ptr<QTemporaryDir> m_processDir;
    std::unique_ptr<ProcessRun> m_processRun;
    /// Runs let go of while still running, each with its folder: removed once it has ended (its
    /// late checkpoints belong to another dataset). Destroyed with the session at the latest.
    struct RetiredProcess {
        std::unique_ptr<ProcessRun> run;
        std::unique_ptr<QTemporaryDir> dir;
    };
    std::vector<RetiredProcess> m_retiredProcesses;
    std::string m_processLabelSet;                        ///< its label set (the map's classes)
    QString m_processMapNext;                             ///< a checkpoint waiting for the map job
    std::shared_ptr<const model::ModelHandle> m_processModel; ///< the weights of its newest mapped checkpoint

    TrainingState m_trainingState = TrainingState::Idle;
    std::uint64_t m_seenSnapshotSeq = 0;
    std::uint64_t m_seenLayoutSeq = 0;
    std::int64_t m_submittedStep = 0; ///< step of the snapshot last handed to the layout job
    bool m_layoutPending = false;     ///< its map has not converged yet
    std::shared_ptr<const job::EmbeddingSnapshot> m_snapshot;
    std::shared_ptr<const layout::Layout> m_layout;
    std::uint64_t m_layoutUpdates = 0;
    std::uint64_t m_snapshotUpdates = 0;
    QTimer m_timer;
};

} // namespace setscope::gui
