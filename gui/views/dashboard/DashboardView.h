// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "gui/views/ExplorerView.h"

#include <QStringList>

#include <map>
#include <string>
#include <vector>

class QComboBox;
class QListWidget;
class QPushButton;

namespace setscope::gui {

class LineChart;

/// Metrics dashboard (issue 10 §4): the loss and every named metric over epochs or steps for
/// every run of the open project (or, without a project, the session's current run),
/// selectable and overlaid. Refreshes as the live run reports epochs. "Export CSV…" writes the
/// checked runs' values (workspace::writeRunsCsv).
class DashboardView final : public ExplorerView {
    Q_OBJECT
public:
    /// One recorded value.
    struct Point {
        int epoch = 0;
        std::int64_t step = 0;
        double value = 0.0;
    };
    /// A run as the dashboard shows it.
    struct Run {
        std::int64_t id = 0; ///< project run id; 0 = the session's run without a project
        QString title;       ///< "run 3 · ours · fashion-mnist · finished"
        std::map<std::string, std::vector<Point>> metrics;
    };

    DashboardView(Session* session, SelectionModel* selection, QWidget* parent = nullptr);
    ~DashboardView() override;

    /// Re-reads the runs (project store or live history) and redraws.
    void refresh();
    const std::vector<Run>& runs() const { return m_runs; }
    /// Every metric name of any run, "mean-loss" first.
    QStringList metricNames() const;
    void setMetric(const QString& name);
    QString metric() const;
    /// Checks the runs by index into runs() (unchecked ones are not drawn).
    void setChecked(const std::vector<int>& rows);
    void setXAxisSteps(bool steps);
    LineChart* chart() const { return m_chart; }
    QListWidget* runList() const { return m_list; }
    /// Writes the checked runs' values as CSV (project runs through the store; the live run
    /// from its history). Returns the rows written; throws std::runtime_error naming the file.
    std::size_t exportCsv(const QString& path) const;
    QString toSvg() const override;

protected:
    void onDatasetChanged() override { refresh(); }

private:
    void redraw();
    std::vector<int> checkedRows() const;

    std::vector<Run> m_runs;
    QListWidget* m_list = nullptr;
    QComboBox* m_metric = nullptr;
    QComboBox* m_xAxis = nullptr;
    QPushButton* m_export = nullptr;
    LineChart* m_chart = nullptr;
    bool m_filling = false;
};

} // namespace setscope::gui
