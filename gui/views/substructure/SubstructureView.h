// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "gui/views/ExplorerView.h"

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace setscope::workspace {
struct SubstructureReport;
struct WeakMetricRun;
}

namespace setscope::gui {

class EmbeddingView;

/// What a weak-metric run kept of the fine structure (issue 11 §9; seed 003 Figures 3, 4 and
/// 9): the map of the same items before and after training on a coarse label set, side by
/// side and both coloured by the fine labels, with neighbourhood purity, nDCG and the
/// context-sensitive loss (average penalty, total error) w.r.t. the fine labels beside them
/// (before, after, difference). The run menu lists the project's weak-metric runs
/// (workspace::weakMetricRuns: runs trained on a label set that groups another); "before" is
/// the raw input features, or the run's initial network when it was started from a checkpoint
/// (a retrain). The work (embedding, two t-SNE maps, the scores) is one job
/// (workspace::makeSubstructureJob) off the GUI thread, with progress and cancel in the status
/// line. The two maps share the window's selection.
class SubstructureView final : public ExplorerView {
    Q_OBJECT
public:
    SubstructureView(Session* session, SelectionModel* selection, QWidget* parent = nullptr);
    ~SubstructureView() override;

    /// Re-reads the project's weak-metric runs into the run menu.
    void refreshRuns();
    /// The run menu (its data: the run id) and its "Show" action.
    QComboBox* runMenu() const { return m_runs; }
    /// Computes the report of the selected run; false (and why in the status line) when
    /// there is nothing to compute.
    bool showSelected();
    /// Computes the report of a checkpoint of the open dataset (options' label sets; empty =
    /// found from the run's). False when no dataset is open.
    bool showCheckpoint(const QString& path, const QString& what, const QString& fineLabelSet = {});
    /// Stops the running computation.
    void cancel();

    EmbeddingView* beforeMap() const { return m_before; }
    EmbeddingView* afterMap() const { return m_after; }
    /// Rows: purity, nDCG, CSL average, CSL total; columns: before, after, difference.
    QTableWidget* table() const { return m_table; }
    /// The report shown (null before the first one, and after the dataset changed).
    std::shared_ptr<const workspace::SubstructureReport> report() const { return m_report; }

protected:
    void onDatasetChanged() override;

private:
    void showReport(std::shared_ptr<const workspace::SubstructureReport> report, const QString& what);
    void clearReport();

    QComboBox* m_runs = nullptr;
    QSpinBox* m_k = nullptr;
    QSpinBox* m_items = nullptr;
    QPushButton* m_show = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_beforeTitle = nullptr;
    QLabel* m_afterTitle = nullptr;
    QLabel* m_note = nullptr;
    EmbeddingView* m_before = nullptr;
    EmbeddingView* m_after = nullptr;
    QTableWidget* m_table = nullptr;
    std::vector<workspace::WeakMetricRun> m_weakRuns;
    std::shared_ptr<const workspace::SubstructureReport> m_report;
};

} // namespace setscope::gui
