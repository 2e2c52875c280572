// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QStringList>
#include <QWidget>

#include <cstddef>
#include <memory>
#include <string>

class QLabel;
class QPoint;
class QPushButton;
class QTableWidget;

namespace setscope::data {
class Dataset;
}
namespace setscope::train {
struct EpochMetrics;
}

namespace setscope::gui {

/// Scores of the current run, one row per epoch: epoch, stage, mean loss, then one column per
/// named value the run reports (EpochMetrics::values: kNN accuracy, both Recall@K, precision@K,
/// validation kNN, EMD figures, ...), added as values with new names arrive, headed by their
/// short names (eval::shortMetricName) with the metric's description as tooltip, and the wall
/// time last. A first row holds the raw-vector baseline of a vector dataset: computed
/// automatically (on a worker, by the Session) for datasets of at most kAutoBaselineMaxItems
/// items, on request ("Score raw vectors") for larger ones. The header's context menu hides and
/// shows columns (hidden by default: precision@K and the EMD and padding figures).
class MetricsPanel final : public QWidget {
    Q_OBJECT
public:
    static constexpr std::size_t kAutoBaselineMaxItems = 20000;
    /// The fixed columns; the named values sit between MeanLoss and the time column.
    enum Column { Epoch, Stage, MeanLoss, FixedColumns };

    explicit MetricsPanel(QWidget* parent = nullptr);

    /// Clears everything; offers the baseline for a vector dataset and requests it at once
    /// (baselineRequested()) when the dataset is small enough.
    void setDataset(const data::Dataset* dataset);
    QTableWidget* table() const { return m_table; }
    QPushButton* baselineButton() const { return m_baselineButton; }
    /// Row of the baseline (-1 when there is none).
    int baselineRow() const { return m_hasBaseline ? 0 : -1; }
    /// The column of a named value (-1 when no row had it), and of the wall time.
    int columnOf(const QString& name) const;
    int timeColumn() const;

public Q_SLOTS:
    void addEpoch(const setscope::train::EpochMetrics& m);
    void setBaseline(const setscope::train::EpochMetrics& m);
    void setBaselineRunning(bool running);
    /// Removes the epoch rows (a new run); keeps the baseline.
    void clearRun();

Q_SIGNALS:
    void baselineRequested();

private:
    void fillRow(int row, const train::EpochMetrics& m, bool baseline);
    int ensureColumn(const std::string& name);
    void showHeaderMenu(const QPoint& at);

    QTableWidget* m_table = nullptr;
    QPushButton* m_baselineButton = nullptr;
    QLabel* m_note = nullptr;
    QStringList m_valueNames; ///< the named value of each column from FixedColumns on
    bool m_vectorDataset = false;
    bool m_hasBaseline = false;
};

} // namespace setscope::gui
