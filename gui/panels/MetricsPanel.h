// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QWidget>

#include <cstddef>
#include <memory>

class QLabel;
class QPushButton;
class QTableWidget;

namespace setscope::data {
class Dataset;
}
namespace setscope::train {
struct EpochMetrics;
}

namespace setscope::gui {

/// Scores of the current run, one row per epoch: epoch, mean loss, kNN accuracy (k = 10,
/// distance-weighted, test queries against train references), Recall@1/2/4/8 and the wall
/// time. A first row holds the raw-vector baseline of a vector dataset: computed
/// automatically (on a worker, by the Session) for datasets of at most
/// kAutoBaselineMaxItems items, on request ("Score raw vectors") for larger ones.
class MetricsPanel final : public QWidget {
    Q_OBJECT
public:
    static constexpr std::size_t kAutoBaselineMaxItems = 20000;
    enum Column { Epoch, MeanLoss, Knn, R1, R2, R4, R8, Time, ColumnCount };

    explicit MetricsPanel(QWidget* parent = nullptr);

    /// Clears everything; offers the baseline for a vector dataset and requests it at once
    /// (baselineRequested()) when the dataset is small enough.
    void setDataset(const data::Dataset* dataset);
    QTableWidget* table() const { return m_table; }
    QPushButton* baselineButton() const { return m_baselineButton; }
    /// Row of the baseline (-1 when there is none).
    int baselineRow() const { return m_hasBaseline ? 0 : -1; }

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

    QTableWidget* m_table = nullptr;
    QPushButton* m_baselineButton = nullptr;
    QLabel* m_note = nullptr;
    bool m_vectorDataset = false;
    bool m_hasBaseline = false;
};

} // namespace setscope::gui
