// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "gui/views/ViewList.h"

#include <QMainWindow>
#include <QMap>
#include <QStringList>

#include <vector>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;

namespace setscope::plugin {
class Registry;
}

namespace setscope::gui {

class DatasetPanel;
class EmbeddingView;
class ExplorerView;
class LabelController;
class LogPanel;
class MetricsPanel;
class SelectionModel;
class Session;
class TrainingPanel;

/// The application window: the embedding map in the centre, the panels in docks (dataset
/// left, training right, metrics and log bottom), menus and a status bar. Wiring only: the
/// Session does the work, the panels and the view show it.
class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    /// `registry` must outlive the window. The window hosts the views of explorerViews().
    explicit MainWindow(const plugin::Registry& registry, QWidget* parent = nullptr);
    /// Hosts `views` instead (in their order: the docks, the View menu and the export menu come
    /// from the list), e.g. explorerViews() and one more.
    MainWindow(const plugin::Registry& registry, std::vector<ViewSpec> views, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// The demo dataset: "fashion-mnist" when installed, else "synthetic" (then `why`, when
    /// given, says what to install for the real one).
    static QString demoSpec(QString* why = nullptr);

    Session* session() const { return m_session; }
    EmbeddingView* view() const { return m_view; }
    DatasetPanel* datasetPanel() const { return m_datasetPanel; }
    TrainingPanel* trainingPanel() const { return m_trainingPanel; }
    MetricsPanel* metricsPanel() const { return m_metricsPanel; }
    LogPanel* logPanel() const { return m_logPanel; }
    /// The selected items, shared by every view of the window (cleared when a dataset opens).
    SelectionModel* selection() const { return m_selection; }
    /// Label edits, undo / redo and retraining (the Labels and Edit menus).
    LabelController* labels() const { return m_labels; }
    /// Edit ▸ Undo / Redo (texts name the edit) and Labels ▸ Assign / Derive / Retrain.
    QAction* undoAction() const { return m_undo; }
    QAction* redoAction() const { return m_redo; }
    QAction* assignAction() const { return m_assign; }
    QAction* deriveAction() const { return m_derive; }
    QAction* retrainAction() const { return m_retrain; }
    /// The explorer's views by id (gui/views/ViewList.h: "retrieval", "pointswap", "flow",
    /// "dashboard"); null for an unknown id.
    ExplorerView* explorerView(const QString& id) const { return m_views.value(id); }
    /// Brings a view's dock to the front.
    void showView(const QString& id);
    /// The dock that hosts a view (null for an unknown id).
    QDockWidget* viewDock(const QString& id) const { return m_viewDocks.value(id); }

public Q_SLOTS:
    void openDataset(const QString& spec);
    void openDemo();
    /// Asks for a project file (existing or new) and opens it in the session.
    void chooseProject();
    /// The per-user demo project: <app data folder>/demo.setscope.
    static QString defaultProjectPath();
    /// Starts a run with the training panel's configuration.
    void startTraining();
    /// A line in the status bar (for `ms` milliseconds, 0 = until replaced) and the log.
    void showMessage(const QString& text, int ms = 8000);
    void showError(const QString& text);
    void about();
    /// File ▸ Export: `what` is "png" or "svg" of the view `viewId` ("map" or an explorer
    /// view's id), or "npy", "tsv" (embeddings), "runs" (CSV). Asks for the file when `path`
    /// is empty. Returns "" on success, else the error (also shown).
    QString exportTo(const QString& what, const QString& viewId = {}, const QString& path = {});
    /// Labels ▸ Assign selection to class…: asks for the label set and class (without a
    /// project: offers to open or create one first), then assigns.
    void assignSelection();
    /// The same without the dialog: assigns the selected items; false (and the reason shown).
    bool assignSelectionTo(const QString& labelSet, const QString& className);
    /// Labels ▸ Derive label set…: the mapping editor.
    void deriveLabelSet();
    /// Labels ▸ Retrain: a run with the training panel's settings, supervised by the label set
    /// last edited (else the one shown), from the current model's weights.
    bool retrain();
    /// Shows the current map in a second map view (a dock) that keeps it while the main map
    /// moves on, sharing the selection: two runs or two moments side by side.
    void pinMap();

private:
    /// The map, the panels, the views' docks and the status bar.
    void createWidgets();
    /// The connections between the session, the panels and the views, by subject.
    void wireDataset();
    void wireLabels();
    void wireTraining();
    void wireMetricsAndMessages();
    void createMenus();
    /// "name · N items · M selected" in the status bar.
    void updateDatasetStatus();
    QDockWidget* addPanel(QWidget* panel, const QString& title, const QString& name, Qt::DockWidgetArea area);
    /// Hosts the window's views in docks, tabbed by area after `anchors` (the dock
    /// each area's views are tabbed with).
    void addExplorerViews(const QMap<Qt::DockWidgetArea, QDockWidget*>& anchors);
    void createExportMenu(QMenu* file);
    void createLabelMenus();
    void updateUndoActions();
    /// The label set a retrain supervises with.
    QString retrainLabelSet() const;

    const plugin::Registry& m_registry;
    Session* m_session = nullptr;
    SelectionModel* m_selection = nullptr;
    LabelController* m_labels = nullptr;
    QAction* m_undo = nullptr;
    QAction* m_redo = nullptr;
    QAction* m_assign = nullptr;
    QAction* m_derive = nullptr;
    QAction* m_retrain = nullptr;
    EmbeddingView* m_view = nullptr;
    EmbeddingView* m_pinned = nullptr; ///< created by pinMap()
    DatasetPanel* m_datasetPanel = nullptr;
    TrainingPanel* m_trainingPanel = nullptr;
    MetricsPanel* m_metricsPanel = nullptr;
    LogPanel* m_logPanel = nullptr;
    std::vector<ViewSpec> m_viewSpecs;
    QMap<QString, ExplorerView*> m_views;
    QMap<QString, QDockWidget*> m_viewDocks;
    QList<QDockWidget*> m_docks;
    QLabel* m_statusRight = nullptr;
    QLabel* m_statusProject = nullptr;
};

} // namespace setscope::gui
