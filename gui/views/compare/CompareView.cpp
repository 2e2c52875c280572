// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/compare/CompareView.h"

#include "core/data/Dataset.h"
#include "core/job/TaskJob.h"
#include "core/model/ModelHandle.h"
#include "core/project/ProjectStore.h"
#include "core/workspace/ItemText.h"
#include "core/workspace/ModelMap.h"
#include "core/workspace/Models.h"
#include "core/workspace/Workspace.h"
#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"
#include "gui/views/map/EmbeddingView.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace setscope::gui {

CompareView::CompareView(Session* session, SelectionModel* selection, QWidget* parent)
    : ExplorerView(session, selection, parent)
{
    m_runs = new QComboBox;
    m_runs->setObjectName(QStringLiteral("runs"));
    m_runs->setToolTip(tr("A run of the project with a checkpoint, or the live run"));
    m_mapRun = new QPushButton(tr("Map it"));
    auto* file = new QPushButton(tr("Checkpoint…"));
    m_title = new QLabel(tr("Pick a run to map its model beside the main map."));
    m_title->setWordWrap(true);
    m_map = new EmbeddingView;
    m_map->setObjectName(QStringLiteral("compareMap"));
    m_map->setSelectionModel(selection);
    auto* top = new QHBoxLayout;
    top->addWidget(m_runs, 1);
    top->addWidget(m_mapRun);
    top->addWidget(file);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(top);
    lay->addWidget(m_title);
    lay->addWidget(m_map, 1);
    lay->addWidget(statusLabel());

    connect(m_mapRun, &QPushButton::clicked, this, &CompareView::mapSelected);
    connect(file, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Map a checkpoint"), QString(),
                                                          tr("setscope checkpoints (*.pt)"));
        if (!path.isEmpty())
            compareWithCheckpoint(path);
    });
    connect(session, &Session::projectChanged, this, &CompareView::refreshRuns);
    connect(session, &Session::trainingFinished, this, &CompareView::refreshRuns);
    connect(session, &Session::snapshotChanged, this, [this] {
        if (m_runs->findData(QStringLiteral("live")) < 0)
            refreshRuns();
    });
    onDatasetChanged();
}

CompareView::~CompareView() = default;

void CompareView::mapSelected()
{
    const QString data = m_runs->currentData().toString();
    if (data == QLatin1String("live")) {
        const auto live = session()->currentModel();
        compareWith(live, live ? tr("the live run at step %1").arg(live->step()) : QString());
    } else if (!data.isEmpty()) {
        compareWithCheckpoint(data);
    }
}

void CompareView::onDatasetChanged()
{
    m_layout.reset();
    m_what.clear();
    m_map->setDataset(dataset());
    m_map->setTrainingInfo(-1);
    m_title->setText(tr("Pick a run to map its model beside the main map."));
    refreshRuns();
    setStatus({});
}

void CompareView::refreshRuns()
{
    const QString was = m_runs->currentData().toString();
    m_runs->clear();
    if (session() && session()->currentModel())
        m_runs->addItem(tr("live run (frozen at its current step)"), QStringLiteral("live"));
    if (project::ProjectStore* store = session() ? session()->project() : nullptr) {
        try {
            for (const project::RunRecord& run : store->runs()) {
                if (run.datasetId != session()->projectDatasetId())
                    continue; // a model of other data cannot embed this dataset's items
                const auto cps = store->checkpoints(run.id);
                if (cps.empty())
                    continue;
                m_runs->addItem(tr("run %1 · %2 · step %3").arg(run.id).arg(QString::fromStdString(run.status)).arg(cps.back().step),
                                QString::fromStdString(cps.back().path));
            }
        } catch (const std::exception& e) {
            setStatus(tr("Cannot read the project's runs: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    const int idx = m_runs->findData(was);
    if (idx >= 0)
        m_runs->setCurrentIndex(idx);
    m_mapRun->setEnabled(m_runs->count() > 0);
}

bool CompareView::compareWithCheckpoint(const QString& path)
{
    try {
        return compareWith(workspace::openModel(path.toStdString(), session()->registry()),
                           QFileInfo(path).fileName());
    } catch (const std::exception& e) {
        setStatus(tr("Cannot load %1: %2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
}

bool CompareView::compareWith(std::shared_ptr<const model::ModelHandle> model, const QString& what)
{
    const auto ds = dataset();
    if (!ds || !model) {
        setStatus(!ds ? tr("Open a dataset first.") : tr("No model: train a run, or pick a checkpoint."));
        return false;
    }
    // The main map's items and positions: the second map starts where the first one is.
    const auto main = session()->layout();
    std::vector<std::int64_t> items;
    std::shared_ptr<const std::vector<float>> start;
    if (main && !main->items.empty()) {
        items = main->items;
        start = std::make_shared<const std::vector<float>>(main->xy);
    } else {
        items = workspace::mapItems(*ds, workspace::primaryLabelSet(*ds), session()->mapItemLimit());
    }
    auto job = std::make_unique<job::TaskJob<layout::Layout>>(
        "mapping " + what.toStdString(), [ds, model, items, start](job::JobControl& control, const auto& progress) {
            return workspace::mapModel(*ds, *model, items, start.get(), {}, &control, progress);
        });
    m_title->setText(tr("Mapping %1…").arg(what));
    runJob(std::move(job), [this, what](int status, const QString& detail) {
        auto* j = currentJob<job::TaskJob<layout::Layout>>();
        const auto out = j ? j->result() : nullptr;
        if (static_cast<job::JobStatus>(status) == job::JobStatus::Finished && out) {
            m_layout = out;
            m_what = what;
            m_map->setLayout(out);
            m_map->setTrainingInfo(out->sourceStep, tr("compared model"));
            m_title->setText(tr("<b>%1</b> · %2 items · selection shared with the main map").arg(what).arg(out->items.size()));
            setStatus({});
        } else if (static_cast<job::JobStatus>(status) == job::JobStatus::Failed) {
            m_title->setText(tr("Could not map %1").arg(what));
            setStatus(tr("Failed: %1").arg(detail));
        }
    });
    return true;
}

} // namespace setscope::gui
