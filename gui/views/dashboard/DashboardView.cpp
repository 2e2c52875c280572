// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/dashboard/DashboardView.h"

#include "core/project/ProjectStore.h"
#include "core/train/TrainingSink.h"
#include "core/workspace/Export.h"
#include "gui/session/Session.h"
#include "gui/views/Palette.h"
#include "gui/views/dashboard/LineChart.h"
#include "gui/views/export/Svg.h"

#include <nlohmann/json.hpp>

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>
#include <set>

namespace setscope::gui {

namespace {

/// "ours" from the run's configuration JSON ("?" when it has none).
QString recipeOf(const std::string& configJson)
{
    try {
        const auto j = nlohmann::json::parse(configJson);
        for (const char* key : {"recipe", "loss"})
            if (j.contains(key) && j[key].is_string() && !j[key].get<std::string>().empty())
                return QString::fromStdString(j[key].get<std::string>());
    } catch (const std::exception&) {
    }
    return QStringLiteral("?");
}

} // namespace

DashboardView::DashboardView(Session* session, SelectionModel* selection, QWidget* parent)
    : ExplorerView(session, selection, parent)
{
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("runs"));
    m_metric = new QComboBox;
    m_metric->setObjectName(QStringLiteral("metric"));
    m_xAxis = new QComboBox;
    m_xAxis->addItem(tr("by epoch"));
    m_xAxis->addItem(tr("by step"));
    m_export = new QPushButton(tr("Export CSV…"));
    m_chart = new LineChart;
    m_chart->setObjectName(QStringLiteral("chart"));
    auto* left = new QWidget;
    auto* leftLay = new QVBoxLayout(left);
    leftLay->setContentsMargins(0, 0, 0, 0);
    leftLay->addWidget(new QLabel(tr("Runs")));
    leftLay->addWidget(m_list, 1);
    leftLay->addWidget(m_export);
    auto* right = new QWidget;
    auto* rightLay = new QVBoxLayout(right);
    rightLay->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_metric, 1);
    controls->addWidget(m_xAxis);
    rightLay->addLayout(controls);
    rightLay->addWidget(m_chart, 1);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 3);
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(split, 1);
    lay->addWidget(statusLabel());

    connect(m_list, &QListWidget::itemChanged, this, [this] {
        if (!m_filling)
            redraw();
    });
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling)
            redraw();
    });
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export runs as CSV"), QStringLiteral("runs.csv"),
                                                          tr("CSV (*.csv)"));
        if (path.isEmpty())
            return;
        try {
            setStatus(tr("Wrote %1 values to %2").arg(exportCsv(path)).arg(path));
        } catch (const std::exception& e) {
            setStatus(tr("Export failed: %1").arg(QString::fromUtf8(e.what())));
        }
    });
    connect(session, &Session::epochMetrics, this, [this] { refresh(); });
    connect(session, &Session::trainingFinished, this, [this] { refresh(); });
    connect(session, &Session::projectChanged, this, [this] { refresh(); });
    refresh();
}

DashboardView::~DashboardView() = default;

void DashboardView::refresh()
{
    // Keep the user's choices across a refresh: the checked runs (by id) and the metric.
    std::set<std::int64_t> unchecked;
    for (int r = 0; r < m_list->count() && r < static_cast<int>(m_runs.size()); ++r)
        if (m_list->item(r)->checkState() != Qt::Checked)
            unchecked.insert(m_runs[static_cast<std::size_t>(r)].id);
    const QString metricWas = metric();

    m_runs.clear();
    project::ProjectStore* store = session() ? session()->project() : nullptr;
    if (store) {
        try {
            std::map<std::int64_t, std::string> names;
            for (const project::DatasetRecord& d : store->datasets())
                names[d.id] = d.name;
            for (const project::RunRecord& rec : store->runs()) {
                Run run;
                run.id = rec.id;
                run.title = tr("run %1 · %2 · %3 · %4")
                                .arg(rec.id)
                                .arg(recipeOf(rec.configJson))
                                .arg(QString::fromStdString(names.count(rec.datasetId) ? names[rec.datasetId] : "?"))
                                .arg(QString::fromStdString(rec.status));
                for (const project::MetricRecord& m : store->metrics(rec.id))
                    run.metrics[m.name].push_back({m.epoch, m.step, m.value});
                m_runs.push_back(std::move(run));
            }
        } catch (const std::exception& e) {
            setStatus(tr("Cannot read the project's runs: %1").arg(QString::fromUtf8(e.what())));
        }
    } else if (session()) {
        const std::vector<train::EpochMetrics> history = session()->history();
        if (!history.empty()) {
            Run run;
            run.title = tr("current run (no project)");
            for (const train::EpochMetrics& e : history) {
                run.metrics["mean-loss"].push_back({e.epoch, e.step, e.meanLoss});
                run.metrics["seconds"].push_back({e.epoch, e.step, e.seconds});
                for (const auto& [name, v] : e.values)
                    run.metrics[name].push_back({e.epoch, e.step, v});
            }
            m_runs.push_back(std::move(run));
        }
    }

    m_filling = true;
    m_list->clear();
    for (std::size_t i = 0; i < m_runs.size(); ++i) {
        auto* it = new QListWidgetItem(m_runs[i].title, m_list);
        it->setFlags(it->flags() | Qt::ItemIsUserCheckable);
        it->setCheckState(unchecked.count(m_runs[i].id) ? Qt::Unchecked : Qt::Checked);
        QPixmap swatch(12, 12);
        swatch.fill(Palette::color(static_cast<int>(i)));
        it->setIcon(QIcon(swatch));
    }
    m_metric->clear();
    m_metric->addItems(metricNames());
    const int idx = m_metric->findText(metricWas.isEmpty() ? QStringLiteral("mean-loss") : metricWas);
    m_metric->setCurrentIndex(idx >= 0 ? idx : 0);
    m_filling = false;
    m_export->setEnabled(!m_runs.empty());
    if (m_runs.empty())
        setStatus(store ? tr("No runs in this project yet.") : tr("No run yet. Open a project to see its recorded runs."));
    else
        setStatus({});
    redraw();
}

QStringList DashboardView::metricNames() const
{
    std::set<std::string> names;
    for (const Run& r : m_runs)
        for (const auto& [name, pts] : r.metrics)
            names.insert(name);
    QStringList out;
    if (names.erase("mean-loss"))
        out << QStringLiteral("mean-loss");
    for (const std::string& n : names)
        out << QString::fromStdString(n);
    return out;
}

void DashboardView::setMetric(const QString& name) { m_metric->setCurrentIndex(m_metric->findText(name)); }

QString DashboardView::metric() const { return m_metric->currentText(); }

void DashboardView::setXAxisSteps(bool steps) { m_xAxis->setCurrentIndex(steps ? 1 : 0); }

void DashboardView::setChecked(const std::vector<int>& rows)
{
    m_filling = true;
    for (int r = 0; r < m_list->count(); ++r)
        m_list->item(r)->setCheckState(std::find(rows.begin(), rows.end(), r) != rows.end() ? Qt::Checked : Qt::Unchecked);
    m_filling = false;
    redraw();
}

std::vector<int> DashboardView::checkedRows() const
{
    std::vector<int> rows;
    for (int r = 0; r < m_list->count(); ++r)
        if (m_list->item(r)->checkState() == Qt::Checked)
            rows.push_back(r);
    return rows;
}

void DashboardView::redraw()
{
    const std::string name = metric().toStdString();
    const bool steps = m_xAxis->currentIndex() == 1;
    std::vector<LineChart::Series> series;
    for (const int r : checkedRows()) {
        const Run& run = m_runs[static_cast<std::size_t>(r)];
        const auto it = run.metrics.find(name);
        if (it == run.metrics.end())
            continue;
        LineChart::Series s{run.title, Palette::color(r), {}};
        for (const Point& p : it->second)
            s.points.emplace_back(steps ? static_cast<double>(p.step) : static_cast<double>(p.epoch), p.value);
        series.push_back(std::move(s));
    }
    m_chart->setSeries(std::move(series), steps ? tr("step") : tr("epoch"), metric());
}

std::size_t DashboardView::exportCsv(const QString& path) const
{
    // Stored runs come from the project (with their dataset, status and start time); the
    // session's run without a project record is run 0 with the values it has reported.
    std::vector<std::int64_t> ids;
    std::vector<workspace::MetricRow> rows;
    const std::vector<int> checked = checkedRows();
    if (checked.empty())
        throw std::runtime_error("no run is checked");
    for (const int r : checked)
        if (m_runs[static_cast<std::size_t>(r)].id > 0)
            ids.push_back(m_runs[static_cast<std::size_t>(r)].id);
    if (project::ProjectStore* store = session() ? session()->project() : nullptr; store && !ids.empty())
        rows = workspace::runMetricRows(*store, ids);
    for (const int r : checked) {
        const Run& run = m_runs[static_cast<std::size_t>(r)];
        if (run.id > 0)
            continue;
        for (const auto& [name, pts] : run.metrics)
            for (const Point& p : pts)
                rows.push_back({0, 0, "", "", p.epoch, p.step, name, p.value});
    }
    return workspace::writeMetricRowsCsv(path.toStdString(), rows);
}

QString DashboardView::toSvg() const
{
    const double w = std::max(520, m_chart->width()), h = std::max(280, m_chart->height());
    SvgWriter svg(w, h);
    m_chart->drawSvg(svg, QRectF(0, 0, w, h));
    return svg.finish();
}

} // namespace setscope::gui
