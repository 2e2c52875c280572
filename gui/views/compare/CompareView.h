// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "gui/views/ExplorerView.h"

#include <memory>

class QComboBox;
class QLabel;
class QPushButton;

namespace setscope::layout {
struct Layout;
}
namespace setscope::model {
class ModelHandle;
}

namespace setscope::gui {

class EmbeddingView;

/// Two runs side by side (issue 10 §3): a second map of the same items beside the main one,
/// made from another model (a recorded run's checkpoint, a checkpoint file, or the live run
/// frozen at its current step), with the window's selection shared, so a point selected in
/// one map lights up in the other. The second map warm-starts its t-SNE from the main map's
/// positions, so the two are aligned: what moved is what the other model sees differently.
class CompareView final : public ExplorerView {
    Q_OBJECT
public:
    CompareView(Session* session, SelectionModel* selection, QWidget* parent = nullptr);
    ~CompareView() override;

    /// Maps the items of the main map with `model` (described as `what`); false, and why in
    /// the status line, when it cannot.
    bool compareWith(std::shared_ptr<const model::ModelHandle> model, const QString& what);
    /// Loads a checkpoint (a file, or the selected run's) and maps it.
    bool compareWithCheckpoint(const QString& path);
    /// Re-reads the project's runs into the run menu.
    void refreshRuns();
    /// The run menu (its data: "live" or a checkpoint path) and its "Map it" action.
    QComboBox* runMenu() const { return m_runs; }
    void mapSelected();

    EmbeddingView* map() const { return m_map; }
    std::shared_ptr<const layout::Layout> layout() const { return m_layout; }
    /// What the map shows ("run 3, step 468"), "" when empty.
    QString showing() const { return m_what; }

protected:
    void onDatasetChanged() override;

private:
    QComboBox* m_runs = nullptr;
    QPushButton* m_mapRun = nullptr;
    QLabel* m_title = nullptr;
    EmbeddingView* m_map = nullptr;
    std::shared_ptr<const layout::Layout> m_layout;
    QString m_what;
};

} // namespace setscope::gui
