// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/MainWindow.h"

#include "core/data/Dataset.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/train/TrainingJob.h"
#include "core/util/BuildInfo.h"
#include "gui/labels/AssignLabelDialog.h"
#include "gui/labels/LabelController.h"
#include "gui/labels/MappingEditorDialog.h"
#include "gui/panels/DatasetPanel.h"
#include "gui/panels/LogPanel.h"
#include "gui/panels/MetricsPanel.h"
#include "gui/panels/TrainingPanel.h"
#include "gui/session/Session.h"
#include "gui/session/SelectionModel.h"
#include "gui/views/map/EmbeddingView.h"
#include "gui/views/ExplorerView.h"
#include "gui/views/ViewList.h"
#include "gui/views/compare/CompareView.h"
#include "gui/views/export/ExportActions.h"

#include <imgui.h>

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QOpenGLWindow>
#include <QStandardPaths>
#include <QStatusBar>

namespace setscope::gui {

MainWindow::MainWindow(const plugin::Registry& registry, QWidget* parent)
    : MainWindow(registry, explorerViews(), parent)
{
}

MainWindow::MainWindow(const plugin::Registry& registry, std::vector<ViewSpec> views, QWidget* parent)
    : QMainWindow(parent)
    , m_registry(registry)
    , m_session(new Session(registry, this))
    , m_viewSpecs(std::move(views))
{
    setWindowTitle(QStringLiteral("setscope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/setscope.png")));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    createWidgets();
    createMenus();
    wireDataset();
    wireLabels();
    wireTraining();
    wireMetricsAndMessages();
    resize(1500, 920);
    showMessage(tr("Open a dataset: File ▸ Open demo, or pick one in the Dataset panel"), 0);
}

void MainWindow::createWidgets()
{
    m_selection = new SelectionModel(this);
    m_labels = new LabelController(m_session, this);
    m_view = new EmbeddingView;
    m_view->setObjectName(QStringLiteral("embeddingView"));
    m_view->setSelectionModel(m_selection);
    setCentralWidget(m_view);
    m_datasetPanel = new DatasetPanel(m_registry);
    m_trainingPanel = new TrainingPanel(m_registry);
    m_metricsPanel = new MetricsPanel;
    m_logPanel = new LogPanel;
    addPanel(m_datasetPanel, tr("Dataset"), QStringLiteral("datasetDock"), Qt::LeftDockWidgetArea);
    QDockWidget* training = addPanel(m_trainingPanel, tr("Training"), QStringLiteral("trainingDock"), Qt::RightDockWidgetArea);
    QDockWidget* metrics = addPanel(m_metricsPanel, tr("Metrics"), QStringLiteral("metricsDock"), Qt::BottomDockWidgetArea);
    addExplorerViews({{Qt::RightDockWidgetArea, training}, {Qt::BottomDockWidgetArea, metrics}});
    QDockWidget* log = addPanel(m_logPanel, tr("Log"), QStringLiteral("logDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(metrics, log);
    training->raise();
    metrics->raise();
    resizeDocks({metrics}, {190}, Qt::Vertical);

    m_statusProject = new QLabel;
    statusBar()->addPermanentWidget(m_statusProject);
    m_statusRight = new QLabel;
    statusBar()->addPermanentWidget(m_statusRight);
}

void MainWindow::wireDataset()
{
    Session* s = m_session;
    connect(m_datasetPanel, &DatasetPanel::loadRequested, this, &MainWindow::openDataset);
    connect(m_datasetPanel, &DatasetPanel::labelSetChanged, m_view, &EmbeddingView::setColorBy);
    if (auto* compare = qobject_cast<CompareView*>(explorerView(QStringLiteral("compare"))))
        connect(m_datasetPanel, &DatasetPanel::labelSetChanged, compare->map(), &EmbeddingView::setColorBy);
    connect(s, &Session::loadingChanged, m_datasetPanel, &DatasetPanel::setLoading);
    connect(s, &Session::loadFailed, m_datasetPanel, &DatasetPanel::showLoadError);
    connect(m_datasetPanel, &DatasetPanel::fetchRequested, s, &Session::fetch);
    connect(m_datasetPanel, &DatasetPanel::cancelFetchRequested, s, &Session::cancelFetch);
    connect(s, &Session::fetchingChanged, m_datasetPanel, &DatasetPanel::setFetching);
    connect(s, &Session::fetchProgress, m_datasetPanel, &DatasetPanel::showFetchProgress);
    connect(s, &Session::fetchFinished, this, [this](const QString& name, int status, const QString& detail) {
        m_datasetPanel->refreshBuiltins();
        switch (static_cast<job::JobStatus>(status)) {
        case job::JobStatus::Finished:
            m_logPanel->appendMessage(tr("fetched %1").arg(name));
            openDataset(name);
            break;
        case job::JobStatus::Cancelled:
            showMessage(tr("Fetch of %1 cancelled; nothing was changed").arg(name));
            break;
        default:
            showError(tr("Could not fetch %1: %2").arg(name, detail));
            break;
        }
    });
    connect(s, &Session::loadFailed, this, [this](const QString& spec, const QString& msg) {
        m_logPanel->appendError(tr("%1: %2").arg(spec, msg));
    });
    connect(s, &Session::datasetChanged, this, [this] {
        const auto ds = m_session->dataset();
        m_selection->reset(); // indices of the previous dataset
        m_view->setDataset(ds);
        if (m_pinned)
            m_pinned->setDataset(ds);
        m_view->setTrainingInfo(-1);
        m_trainingPanel->setDataset(ds.get());
        m_datasetPanel->setDataset(ds, m_session->datasetSpec());
        m_view->setColorBy(m_datasetPanel->currentLabelSet());
        if (auto* compare = qobject_cast<CompareView*>(explorerView(QStringLiteral("compare"))))
            compare->map()->setColorBy(m_datasetPanel->currentLabelSet());
        m_metricsPanel->setDataset(ds.get());
        if (ds)
            for (const std::string& note : ds->notes())
                m_logPanel->appendMessage(tr("note: %1").arg(QString::fromStdString(note)));
        updateDatasetStatus();
    });
    connect(m_selection, &SelectionModel::changed, this, &MainWindow::updateDatasetStatus);
}

/// Labels: an edit recolours the map and refreshes the label-set choices, keeping the map; the
/// undo actions and the project's name follow the project.
void MainWindow::wireLabels()
{
    Session* s = m_session;
    connect(s, &Session::labelsChanged, this, [this](const QString& labelSet) {
        const auto ds = m_session->dataset();
        m_view->updateLabels(ds);
        if (m_pinned)
            m_pinned->updateLabels(ds);
        m_trainingPanel->refreshLabelSets(ds.get());
        m_datasetPanel->setDataset(ds, m_session->datasetSpec());
        m_datasetPanel->setCurrentLabelSet(labelSet); // colours the map by the edited set
        m_view->setColorBy(labelSet);
    });
    connect(m_labels, &LabelController::historyChanged, this, &MainWindow::updateUndoActions);
    connect(s, &Session::projectChanged, this, &MainWindow::updateUndoActions);
    connect(m_selection, &SelectionModel::changed, this, [this] { m_assign->setEnabled(!m_selection->empty()); });
    connect(s, &Session::projectChanged, this, [this](const QString& path) {
        m_statusProject->setText(path.isEmpty() ? tr("no project") : tr("project: %1").arg(QFileInfo(path).fileName()));
        m_statusProject->setToolTip(path);
    });
}

/// The map follows the layouts; the training panel and the map's stats line follow the run.
void MainWindow::wireTraining()
{
    Session* s = m_session;
    connect(s, &Session::layoutChanged, this, [this] { m_view->setLayout(m_session->layout()); });
    connect(m_trainingPanel, &TrainingPanel::startRequested, this, &MainWindow::startTraining);
    connect(m_trainingPanel, &TrainingPanel::pauseRequested, s, &Session::pauseTraining);
    connect(m_trainingPanel, &TrainingPanel::resumeRequested, s, &Session::resumeTraining);
    connect(m_trainingPanel, &TrainingPanel::cancelRequested, s, &Session::cancelTraining);
    connect(s, &Session::trainingStateChanged, m_trainingPanel, &TrainingPanel::setTrainingState);
    connect(s, &Session::trainingProgress, m_trainingPanel, &TrainingPanel::showProgress);
    connect(s, &Session::trainingProgress, m_view, [this](qint64 done, qint64, const QString& what) {
        m_view->setTrainingInfo(done, what);
    });
    connect(s, &Session::stepLoss, m_trainingPanel, &TrainingPanel::addStepLoss);
    connect(s, &Session::epochMetrics, m_trainingPanel, &TrainingPanel::addEpochMetrics);
    connect(s, &Session::trainingFinished, m_trainingPanel, &TrainingPanel::showFinished);
    connect(s, &Session::trainingFinished, m_view, [this](int status) {
        if (const train::TrainingJob* job = m_session->trainingJob())
            m_view->setTrainingInfo(job->counters().done.load(),
                                    QString::fromLatin1(job::statusName(static_cast<job::JobStatus>(status))));
        m_view->surface()->update(); // the stats line
    });
    connect(s, &Session::epochMetrics, m_metricsPanel, &MetricsPanel::addEpoch);
}

void MainWindow::wireMetricsAndMessages()
{
    Session* s = m_session;
    connect(m_metricsPanel, &MetricsPanel::baselineRequested, this, [this] {
        const QString labelSet = m_datasetPanel->currentLabelSet();
        m_session->computeBaseline(labelSet.isEmpty() ? QStringLiteral("fine") : labelSet);
    });
    connect(s, &Session::baselineReady, m_metricsPanel, &MetricsPanel::setBaseline);
    connect(s, &Session::baselineRunningChanged, m_metricsPanel, &MetricsPanel::setBaselineRunning);
    // Messages.
    connect(s, &Session::message, this, [this](const QString& t) { showMessage(t); });
    connect(s, &Session::error, this, &MainWindow::showError);

}

MainWindow::~MainWindow()
{
    // The views' job slots hand retired jobs to the session: they go first.
    for (QDockWidget* d : std::as_const(m_viewDocks))
        delete d;
    m_views.clear();
}

void MainWindow::addExplorerViews(const QMap<Qt::DockWidgetArea, QDockWidget*>& anchors)
{
    QMap<Qt::DockWidgetArea, QDockWidget*> last = anchors;
    for (const ViewSpec& spec : m_viewSpecs) {
        ExplorerView* view = spec.make(m_session, m_selection);
        view->setObjectName(spec.id + QStringLiteral("View"));
        QDockWidget* dock = addPanel(view, spec.title, spec.id + QStringLiteral("Dock"), spec.area);
        if (QDockWidget* prev = last.value(spec.area))
            tabifyDockWidget(prev, dock);
        last[spec.area] = dock;
        m_views.insert(spec.id, view);
        m_viewDocks.insert(spec.id, dock);
    }
}

void MainWindow::showView(const QString& id)
{
    if (QDockWidget* d = m_viewDocks.value(id)) {
        d->show();
        d->raise();
    }
}

void MainWindow::updateDatasetStatus()
{
    const auto ds = m_session->dataset();
    QString text = ds ? tr("%1 · %2 items").arg(QString::fromStdString(ds->name())).arg(ds->size()) : QString();
    if (ds && !m_selection->empty())
        text += tr(" · %1 selected").arg(m_selection->size());
    m_statusRight->setText(text);
}

QDockWidget* MainWindow::addPanel(QWidget* panel, const QString& title, const QString& name, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(panel);
    addDockWidget(area, dock);
    m_docks << dock;
    return dock;
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open dataset…"));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, m_datasetPanel, &DatasetPanel::openFile);
    QAction* demo = file->addAction(tr("Open &demo"));
    connect(demo, &QAction::triggered, this, &MainWindow::openDemo);
    file->addSeparator();
    QAction* project = file->addAction(tr("Open or create &project…"));
    connect(project, &QAction::triggered, this, &MainWindow::chooseProject);
    file->addSeparator();
    createExportMenu(file);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    createLabelMenus();

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : m_docks)
        view->addAction(d->toggleViewAction());
    view->addSeparator();
    QAction* fit = view->addAction(tr("&Fit map"));
    fit->setShortcut(QKeySequence(Qt::Key_F));
    connect(fit, &QAction::triggered, m_view, &EmbeddingView::fitAll);
    QAction* pin = view->addAction(tr("&Pin map beside"));
    pin->setObjectName(QStringLiteral("pinMapAction"));
    connect(pin, &QAction::triggered, this, &MainWindow::pinMap);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    connect(help->addAction(tr("&About setscope")), &QAction::triggered, this, &MainWindow::about);
}

void MainWindow::createLabelMenus()
{
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    m_undo = edit->addAction(tr("&Undo"));
    m_undo->setObjectName(QStringLiteral("undoLabelsAction"));
    m_undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    connect(m_undo, &QAction::triggered, m_labels, &LabelController::undo);
    m_redo = edit->addAction(tr("&Redo"));
    m_redo->setObjectName(QStringLiteral("redoLabelsAction"));
    m_redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    connect(m_redo, &QAction::triggered, m_labels, &LabelController::redo);

    QMenu* labels = menuBar()->addMenu(tr("&Labels"));
    m_assign = labels->addAction(tr("&Assign selection to class…"));
    m_assign->setObjectName(QStringLiteral("assignLabelsAction"));
    m_assign->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    m_assign->setEnabled(false); // until something is selected
    connect(m_assign, &QAction::triggered, this, &MainWindow::assignSelection);
    m_derive = labels->addAction(tr("&Derive label set…"));
    m_derive->setObjectName(QStringLiteral("deriveLabelsAction"));
    connect(m_derive, &QAction::triggered, this, &MainWindow::deriveLabelSet);
    labels->addSeparator();
    m_retrain = labels->addAction(tr("&Retrain with these labels"));
    m_retrain->setObjectName(QStringLiteral("retrainAction"));
    m_retrain->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(m_retrain, &QAction::triggered, this, &MainWindow::retrain);

    // The map's context menu: the same actions where the selection is made.
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* sep = new QAction(m_view);
    sep->setSeparator(true);
    m_view->addActions({m_assign, m_undo, m_redo, sep, m_retrain});
    updateUndoActions();
}

void MainWindow::updateUndoActions()
{
    const QString undo = m_labels->undoText(), redo = m_labels->redoText();
    m_undo->setText(undo.isEmpty() ? tr("&Undo") : tr("&Undo %1").arg(undo));
    m_redo->setText(redo.isEmpty() ? tr("&Redo") : tr("&Redo %1").arg(redo));
    m_undo->setEnabled(m_labels->canUndo());
    m_redo->setEnabled(m_labels->canRedo());
    const QString set = retrainLabelSet();
    m_retrain->setText(set.isEmpty() ? tr("&Retrain with these labels") : tr("&Retrain with '%1'").arg(set));
}

QString MainWindow::retrainLabelSet() const
{
    const QString edited = m_labels->editedLabelSet();
    return edited.isEmpty() ? m_datasetPanel->currentLabelSet() : edited;
}

void MainWindow::assignSelection()
{
    if (m_selection->empty()) {
        showMessage(tr("Select items on the map first: click, Shift-drag a box or Alt-drag a lasso"));
        return;
    }
    if (!m_session->project() && m_session->dataset()) {
        const auto answer = QMessageBox::question(
            this, tr("Labels need a project"),
            tr("Labels you assign are kept in a project file, written at once with their undo history. "
               "Open or create a project now? (The dataset is re-opened in it; then assign again.)"));
        if (answer == QMessageBox::Yes)
            chooseProject();
        return;
    }
    if (!m_labels->canEdit()) {
        showError(m_labels->whyNot());
        return;
    }
    AssignLabelDialog dialog(*m_labels, m_selection->size(), retrainLabelSet(), this);
    if (dialog.exec() == QDialog::Accepted)
        assignSelectionTo(dialog.labelSet(), dialog.className());
}

bool MainWindow::assignSelectionTo(const QString& labelSet, const QString& className)
{
    QString error;
    if (!m_labels->assign(m_selection->items(), labelSet, className, &error)) {
        showError(tr("Labels not assigned: %1").arg(error));
        return false;
    }
    showMessage(tr("%1 in '%2' (saved in the project; Edit ▸ Undo takes it back)").arg(m_labels->undoText(), labelSet));
    return true;
}

void MainWindow::deriveLabelSet()
{
    if (!m_labels->canEdit()) {
        showError(m_labels->whyNot());
        return;
    }
    const QString edited = m_labels->editedLabelSet();
    MappingEditorDialog dialog(*m_labels, m_session->dataset(),
                               !edited.isEmpty() && !m_labels->storedMapping(edited).isEmpty() ? edited : QString(), this);
    dialog.exec();
}

bool MainWindow::retrain()
{
    const QString set = retrainLabelSet();
    if (set.isEmpty()) {
        showError(tr("Nothing to retrain with: open a dataset with labels, or assign some"));
        return false;
    }
    m_trainingPanel->resetRun();
    m_metricsPanel->clearRun();
    m_view->setTrainingInfo(0);
    m_trainingPanel->selectLabelSet(set); // the panel shows the labels the retrain uses
    return m_labels->retrain(m_trainingPanel->config(), set);
}

void MainWindow::createExportMenu(QMenu* file)
{
    QMenu* menu = file->addMenu(tr("&Export"));
    menu->setObjectName(QStringLiteral("exportMenu"));
    QList<QPair<QString, QString>> views{{QStringLiteral("map"), tr("Map")}};
    for (const ViewSpec& spec : m_viewSpecs)
        views.append({spec.id, spec.title});
    for (const char* format : {"png", "svg"}) {
        QMenu* sub = menu->addMenu(QString::fromLatin1(format) == QLatin1String("png") ? tr("View as &PNG") : tr("View as &SVG"));
        for (const auto& [id, title] : views) {
            const QString fmt = QString::fromLatin1(format);
            connect(sub->addAction(title), &QAction::triggered, this, [this, fmt, id = id] { exportTo(fmt, id); });
        }
    }
    menu->addSeparator();
    connect(menu->addAction(tr("Embeddings as .&npy…")), &QAction::triggered, this, [this] { exportTo(QStringLiteral("npy")); });
    connect(menu->addAction(tr("Embeddings as &TSV…")), &QAction::triggered, this, [this] { exportTo(QStringLiteral("tsv")); });
    connect(menu->addAction(tr("Runs as &CSV…")), &QAction::triggered, this, [this] { exportTo(QStringLiteral("runs")); });
}

QString MainWindow::exportTo(const QString& what, const QString& viewId, const QString& givenPath)
{
    QString path = givenPath;
    if (path.isEmpty()) {
        if (what == QLatin1String("tsv"))
            path = QFileDialog::getExistingDirectory(this, tr("Folder for vectors.tsv and metadata.tsv"));
        else {
            const QString name = what == QLatin1String("runs") ? QStringLiteral("runs.csv")
                                 : what == QLatin1String("npy") ? QStringLiteral("embeddings.npy")
                                                                : viewId + QLatin1Char('.') + what;
            path = QFileDialog::getSaveFileName(this, tr("Export"), name);
        }
        if (path.isEmpty())
            return tr("cancelled");
    }
    QString error;
    if (what == QLatin1String("png")) {
        error = exporting::savePng(viewId == QLatin1String("map") ? static_cast<QWidget*>(m_view) : explorerView(viewId), path);
    } else if (what == QLatin1String("svg")) {
        if (viewId == QLatin1String("map"))
            error = exporting::saveSvg(m_view->toSvg(), path);
        else if (ExplorerView* v = explorerView(viewId))
            error = exporting::saveSvg(v->toSvg(), path);
        else
            error = tr("No view named %1").arg(viewId);
    } else if (what == QLatin1String("npy") || what == QLatin1String("tsv")) {
        error = exporting::saveEmbeddings(*m_session, path, what == QLatin1String("tsv"));
    } else if (what == QLatin1String("runs")) {
        error = exporting::saveRuns(*m_session, path);
    } else {
        error = tr("Unknown export format %1").arg(what);
    }
    if (error.isEmpty())
        showMessage(tr("Exported %1").arg(path));
    else
        showError(tr("Export failed: %1").arg(error));
    return error;
}

void MainWindow::chooseProject()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Open or create a project"), m_session->projectPath().isEmpty() ? defaultProjectPath() : m_session->projectPath(),
        tr("setscope projects (*.setscope)"), nullptr, QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty())
        m_session->openProject(path.endsWith(QStringLiteral(".setscope")) ? path : path + QStringLiteral(".setscope"));
}

QString MainWindow::defaultProjectPath()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("demo.setscope"));
}

QString MainWindow::demoSpec(QString* why)
{
    for (const catalog::BuiltinDataset& d : catalog::builtinDatasets())
        if (d.name == "fashion-mnist") {
            if (d.available)
                return QStringLiteral("fashion-mnist");
            if (why)
                *why = tr("Fashion-MNIST is not installed (%1); showing synthetic data instead")
                           .arg(QString::fromStdString(d.howToGet));
        }
    return QStringLiteral("synthetic");
}

void MainWindow::openDataset(const QString& spec) { m_session->load(spec); }

void MainWindow::openDemo()
{
    QString why;
    const QString spec = demoSpec(&why);
    if (!why.isEmpty())
        showMessage(why, 0);
    openDataset(spec);
}

void MainWindow::startTraining()
{
    m_trainingPanel->resetRun();
    m_metricsPanel->clearRun();
    m_view->setTrainingInfo(0);
    m_session->startTraining(m_trainingPanel->config(), m_trainingPanel->processes());
}

void MainWindow::showMessage(const QString& text, int ms)
{
    statusBar()->showMessage(text, ms);
    m_logPanel->appendMessage(text);
}

void MainWindow::showError(const QString& text)
{
    statusBar()->showMessage(text, 15000);
    m_logPanel->appendError(text);
}

void MainWindow::pinMap()
{
    if (!m_pinned) {
        m_pinned = new EmbeddingView;
        m_pinned->setObjectName(QStringLiteral("pinnedView"));
        m_pinned->setSelectionModel(m_selection);
        addPanel(m_pinned, tr("Pinned map"), QStringLiteral("pinnedMapDock"), Qt::RightDockWidgetArea);
    }
    m_pinned->setDataset(m_session->dataset());
    m_pinned->setColorBy(m_view->colorBy());
    m_pinned->setLayout(m_view->currentLayout());
    if (auto* dock = qobject_cast<QDockWidget*>(m_pinned->parentWidget())) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::about()
{
    const util::BuildInfo info = util::buildInfo();
    const QSurfaceFormat gl = m_view->surface()->format();
    QMessageBox::about(this, tr("About setscope"),
                       tr("<h3>setscope %1</h3>"
                          "<p>Explore learned metrics on sets, documents, graphs and images: train metric-learning "
                          "models in the background and watch the embedding map as they learn.</p>"
                          "<p>Qt %2 · Dear ImGui %3 · OpenGL %4<br>LibTorch %5 (%6) · CUDA device: %7<br>"
                          "%8 build, %9</p>")
                           .arg(QString::fromStdString(info.version), QString::fromLatin1(qVersion()),
                                QString::fromLatin1(IMGUI_VERSION),
                                QStringLiteral("%1.%2").arg(gl.majorVersion()).arg(gl.minorVersion()),
                                QString::fromStdString(info.torchVersion),
                                info.torchCuda ? tr("built with CUDA") : tr("CPU build"),
                                train::cudaAvailable() ? tr("available") : tr("none"),
                                QString::fromStdString(info.buildType), QString::fromStdString(info.compiler)));
}

} // namespace setscope::gui
