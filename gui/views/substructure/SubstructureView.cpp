// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/substructure/SubstructureView.h"

#include "core/data/Dataset.h"
#include "core/job/TaskJob.h"
#include "core/project/ProjectStore.h"
#include "core/workspace/Substructure.h"
#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"
#include "gui/views/map/EmbeddingView.h"

#include <QComboBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace setscope::gui {

namespace {

QString rowTitle(const std::string& name, int k)
{
    if (name == "neighbourhood-purity")
        return QObject::tr("Purity (k = %1)").arg(k);
    if (name == "ndcg")
        return QObject::tr("nDCG");
    if (name == "csl-average")
        return QObject::tr("CSL average penalty");
    if (name == "csl-total")
        return QObject::tr("CSL total error");
    return QString::fromStdString(name);
}

/// Higher is better for purity and nDCG, lower for the two CSL figures.
bool higherIsBetter(const std::string& name) { return name == "neighbourhood-purity" || name == "ndcg"; }

} // namespace

SubstructureView::SubstructureView(Session* session, SelectionModel* selection, QWidget* parent)
    : ExplorerView(session, selection, parent)
{
    m_runs = new QComboBox;
    m_runs->setObjectName(QStringLiteral("runs"));
    m_runs->setToolTip(tr("Weak-metric runs of the project: trained on a label set that groups another (the fine one)"));
    m_runs->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_k = new QSpinBox;
    m_k->setRange(1, 1000);
    m_k->setValue(10);
    m_k->setPrefix(tr("purity k "));
    m_k->setToolTip(tr("Neighbours of neighbourhood purity (seed 003 §3.3)"));
    m_items = new QSpinBox;
    m_items->setRange(0, 100000);
    m_items->setSingleStep(500);
    m_items->setValue(2000);
    m_items->setPrefix(tr("items "));
    m_items->setSpecialValueText(tr("all items"));
    m_items->setToolTip(tr("Items mapped and scored: a stratified subset of the fine classes, test split first (0 = all)"));
    m_show = new QPushButton(tr("Show"));
    m_show->setObjectName(QStringLiteral("show"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setEnabled(false);
    m_title = new QLabel(tr("Pick a weak-metric run (trained on coarse labels) to see what it kept of the fine ones."));
    m_title->setWordWrap(true);

    auto makeMap = [selection](const QString& name) {
        auto* map = new EmbeddingView;
        map->setObjectName(name);
        map->setSelectionModel(selection);
        map->setMinimumSize(240, 220);
        return map;
    };
    m_before = makeMap(QStringLiteral("beforeMap"));
    m_after = makeMap(QStringLiteral("afterMap"));
    m_beforeTitle = new QLabel(tr("<b>Before</b>"));
    m_afterTitle = new QLabel(tr("<b>After</b>"));
    for (QLabel* l : {m_beforeTitle, m_afterTitle})
        l->setWordWrap(true);

    m_table = new QTableWidget(4, 3);
    m_table->setObjectName(QStringLiteral("metrics"));
    m_table->setHorizontalHeaderLabels({tr("before"), tr("after"), tr("difference")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_note = new QLabel;
    m_note->setWordWrap(true);
    m_note->setObjectName(QStringLiteral("note"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_runs, 1);
    top->addWidget(m_k);
    top->addWidget(m_items);
    top->addWidget(m_show);
    top->addWidget(m_cancel);
    auto* maps = new QGridLayout;
    maps->addWidget(m_beforeTitle, 0, 0);
    maps->addWidget(m_afterTitle, 0, 1);
    maps->addWidget(m_before, 1, 0);
    maps->addWidget(m_after, 1, 1);
    maps->setRowStretch(1, 1);
    auto* side = new QVBoxLayout;
    side->addWidget(new QLabel(tr("<b>W.r.t. the fine labels</b>")));
    side->addWidget(m_table);
    side->addWidget(m_note);
    side->addStretch(1);
    auto* body = new QHBoxLayout;
    body->addLayout(maps, 1);
    body->addLayout(side);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(top);
    lay->addWidget(m_title);
    lay->addLayout(body, 1);
    lay->addWidget(statusLabel());
    clearReport();

    connect(m_show, &QPushButton::clicked, this, &SubstructureView::showSelected);
    connect(m_cancel, &QPushButton::clicked, this, &SubstructureView::cancel);
    connect(session, &Session::projectChanged, this, &SubstructureView::refreshRuns);
    connect(session, &Session::trainingFinished, this, &SubstructureView::refreshRuns);
    connect(session, &Session::labelsChanged, this, [this] {
        // Same items, new labels: recolour, and a new or edited set may make runs weak ones.
        m_before->updateLabels(dataset());
        m_after->updateLabels(dataset());
        refreshRuns();
    });
    onDatasetChanged();
}

SubstructureView::~SubstructureView() = default;

void SubstructureView::onDatasetChanged()
{
    m_report.reset();
    m_before->setDataset(dataset());
    m_after->setDataset(dataset());
    clearReport();
    refreshRuns();
    setStatus({});
}

void SubstructureView::clearReport()
{
    for (int r = 0; r < m_table->rowCount(); ++r) {
        m_table->setVerticalHeaderItem(r, new QTableWidgetItem(rowTitle(workspace::substructureMetricNames()[r], m_k->value())));
        for (int c = 0; c < 3; ++c)
            m_table->setItem(r, c, new QTableWidgetItem(QStringLiteral("–")));
    }
    m_beforeTitle->setText(tr("<b>Before</b>"));
    m_afterTitle->setText(tr("<b>After</b>"));
    m_note->clear();
}

void SubstructureView::refreshRuns()
{
    const QVariant was = m_runs->currentData();
    m_runs->clear();
    m_weakRuns.clear();
    const auto ds = dataset();
    if (project::ProjectStore* store = session() ? session()->project() : nullptr; store && ds) {
        try {
            m_weakRuns = workspace::weakMetricRuns(*store, session()->projectDatasetId(), *ds);
        } catch (const std::exception& e) {
            setStatus(tr("Cannot read the project's runs: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    for (std::size_t i = 0; i < m_weakRuns.size(); ++i) {
        const workspace::WeakMetricRun& w = m_weakRuns[i];
        m_runs->addItem(tr("run %1 · %2 on '%3' (fine: '%4') · step %5%6")
                            .arg(w.runId)
                            .arg(QString::fromStdString(w.recipe.empty() ? std::string("triplet") : w.recipe),
                                 QString::fromStdString(w.coarseLabelSet), QString::fromStdString(w.fineLabelSet))
                            .arg(w.step)
                            .arg(w.fromInitial ? tr(" · retrain") : QString()),
                        QVariant::fromValue<qint64>(w.runId));
    }
    const int idx = m_runs->findData(was);
    if (idx >= 0)
        m_runs->setCurrentIndex(idx);
    m_show->setEnabled(m_runs->count() > 0);
    if (m_runs->count() == 0 && !busy())
        m_title->setText(session() && session()->project()
                             ? tr("No weak-metric run in the project yet: train one on a coarse label set (Labels ▸ "
                                  "Retrain, or setscope-cli train --coarse MAP --project P).")
                             : tr("Open a project to list its weak-metric runs (File ▸ Open or create project…)."));
}

bool SubstructureView::showSelected()
{
    const int i = m_runs->currentIndex();
    if (i < 0 || static_cast<std::size_t>(i) >= m_weakRuns.size()) {
        setStatus(tr("No weak-metric run to show."));
        return false;
    }
    const workspace::WeakMetricRun& w = m_weakRuns[static_cast<std::size_t>(i)];
    return showCheckpoint(QString::fromStdString(w.checkpoint), tr("run %1").arg(w.runId),
                          QString::fromStdString(w.fineLabelSet));
}

bool SubstructureView::showCheckpoint(const QString& path, const QString& what, const QString& fineLabelSet)
{
    const auto ds = dataset();
    if (!ds) {
        setStatus(tr("Open a dataset first."));
        return false;
    }
    workspace::SubstructureOptions o;
    o.fineLabelSet = fineLabelSet.toStdString();
    o.k = m_k->value();
    o.maxItems = m_items->value();
    auto job = workspace::makeSubstructureJob(ds, path.toStdString(), session()->registry(), o);
    m_title->setText(tr("Computing the substructure of %1 (%2)…").arg(what, QFileInfo(path).fileName()));
    m_cancel->setEnabled(true);
    runJob(std::move(job), [this, what](int status, const QString& detail) {
        m_cancel->setEnabled(false);
        auto* j = currentJob<job::TaskJob<workspace::SubstructureReport>>();
        const auto out = j ? j->result() : nullptr;
        const auto s = static_cast<job::JobStatus>(status);
        if (s == job::JobStatus::Finished && out) {
            showReport(out, what);
            setStatus({});
        } else if (s == job::JobStatus::Failed) {
            m_title->setText(tr("Could not compute the substructure of %1").arg(what));
            setStatus(tr("Failed: %1").arg(detail));
        } else if (s == job::JobStatus::Cancelled) {
            m_title->setText(tr("Cancelled."));
            setStatus({});
        }
    });
    return true;
}

void SubstructureView::cancel()
{
    if (!busy())
        return;
    cancelJob();
    m_cancel->setEnabled(false);
    m_title->setText(tr("Cancelled."));
    setStatus({});
}

void SubstructureView::showReport(std::shared_ptr<const workspace::SubstructureReport> report, const QString& what)
{
    m_report = report;
    const QString fine = QString::fromStdString(report->fineLabelSet);
    // Aliasing pointers: the maps keep the report alive, no copy of the layouts.
    m_before->setLayout(std::shared_ptr<const layout::Layout>(report, &report->before.map));
    m_after->setLayout(std::shared_ptr<const layout::Layout>(report, &report->after.map));
    for (EmbeddingView* map : {m_before, m_after}) {
        map->setColorBy(fine);
        map->fitAll();
    }
    m_before->setTrainingInfo(report->before.raw ? -1 : report->before.map.sourceStep, tr("initial network"));
    m_after->setTrainingInfo(report->after.map.sourceStep,
                             tr("trained on '%1'").arg(QString::fromStdString(report->coarseLabelSet)));
    m_beforeTitle->setText(tr("<b>Before</b> · %1").arg(QString::fromStdString(report->before.what).toHtmlEscaped()));
    m_afterTitle->setText(tr("<b>After</b> · %1").arg(QString::fromStdString(report->after.what).toHtmlEscaped()));
    m_title->setText(tr("<b>%1</b>: trained on '%2', coloured by '%3' · %4 items, each scored against the others")
                         .arg(what, QString::fromStdString(report->coarseLabelSet).toHtmlEscaped(), fine.toHtmlEscaped())
                         .arg(report->items.size()));
    const auto& names = workspace::substructureMetricNames();
    for (int r = 0; r < static_cast<int>(names.size()); ++r) {
        const std::string& name = names[static_cast<std::size_t>(r)];
        const double b = report->before.value(name), a = report->after.value(name), d = a - b;
        m_table->setVerticalHeaderItem(r, new QTableWidgetItem(rowTitle(name, report->k)));
        QString doc;
        for (const eval::MetricValue& v : report->after.metrics)
            if (v.name == name)
                doc = QString::fromStdString(v.doc);
        auto cell = [&](double v, bool signedValue) {
            auto* item = new QTableWidgetItem(std::isfinite(v) ? QString::number(v, 'f', 4).prepend(signedValue && v > 0 ? QStringLiteral("+") : QString())
                                                               : QStringLiteral("–"));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setToolTip(doc);
            item->setData(Qt::UserRole, v);
            return item;
        };
        m_table->setItem(r, 0, cell(b, false));
        m_table->setItem(r, 1, cell(a, false));
        QTableWidgetItem* diff = cell(d, true);
        if (std::isfinite(d) && d != 0.0)
            diff->setForeground((d > 0) == higherIsBetter(name) ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
        m_table->setItem(r, 2, diff);
    }
    m_note->setText(report->note.empty() ? tr("Purity and nDCG: higher is better; CSL: lower is better (seed 003 §3.3, §4.4).")
                                         : QString::fromStdString(report->note));
}

} // namespace setscope::gui
