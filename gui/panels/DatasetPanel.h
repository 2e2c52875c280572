// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace setscope::data {
class Dataset;
}
namespace setscope::plugin {
class Registry;
}

namespace setscope::gui {

/// Chooses and describes the dataset: the built-in datasets (catalog::builtinDatasets(); ones
/// not fetched yet can be fetched from here with progress and cancel, others not installed
/// are greyed out with what to install), a spec line ("synthetic:dim=8,..."),
/// "Open file…" / "Open folder…"; then the open dataset's name, size, dimension, splits,
/// set sizes, a label-set selector (it drives the map's colours) and a table of items per
/// class of the selected label set. Emits requests; the Session does the loading.
class DatasetPanel final : public QWidget {
    Q_OBJECT
public:
    /// `registry` supplies the loaders' file extensions for the file dialog.
    explicit DatasetPanel(const plugin::Registry& registry, QWidget* parent = nullptr);

    /// Shows `dataset` (nullptr: nothing open). Selects the label set "fine" when there is
    /// one, else the first.
    void setDataset(std::shared_ptr<const data::Dataset> dataset, const QString& spec);
    QString currentLabelSet() const;
    void setCurrentLabelSet(const QString& name);
    /// Disables the open controls while a load runs.
    void setLoading(bool loading);
    /// Rebuilds the list of built-in datasets (after a fetch changed what is available).
    void refreshBuiltins();
    /// Shows the fetch progress row (with its Cancel button) while `name` is fetched.
    void setFetching(bool fetching, const QString& name = {});
    void showFetchProgress(qint64 done, qint64 total, const QString& what);
    QListWidget* builtinList() const { return m_builtins; }

    /// Items per class as shown (row order = class id, then "unlabelled" when present).
    QTableWidget* classTable() const { return m_classes; }

public Q_SLOTS:
    /// A non-blocking message box with the loader's message (file, record, what was expected).
    void showLoadError(const QString& spec, const QString& message);
    /// File and folder dialogs (a folder for loaders that read directories, such as IDX).
    void openFile();
    void openFolder();

Q_SIGNALS:
    void loadRequested(const QString& spec);
    /// The user asked to fetch a built-in dataset that is not here yet (Fetch button or a
    /// double-click on it), or to cancel the running fetch.
    void fetchRequested(const QString& name);
    void cancelFetchRequested();
    /// The user chose another label set (also emitted when a new dataset selects one).
    void labelSetChanged(const QString& name);

private:
    void fillClassTable();
    void requestSelectedBuiltin();
    void updateFetchButton();

    const plugin::Registry& m_registry;
    std::shared_ptr<const data::Dataset> m_dataset;
    QListWidget* m_builtins = nullptr;
    QLineEdit* m_spec = nullptr;
    QPushButton* m_open = nullptr;
    QPushButton* m_openFile = nullptr;
    QPushButton* m_openFolder = nullptr;
    QPushButton* m_fetch = nullptr;
    QWidget* m_fetchRow = nullptr;
    QProgressBar* m_fetchProgress = nullptr;
    QPushButton* m_cancelFetch = nullptr;
    bool m_fetching = false;
    QLabel* m_name = nullptr;
    QLabel* m_items = nullptr;
    QLabel* m_dim = nullptr;
    QLabel* m_splits = nullptr;
    QLabel* m_setSizes = nullptr;
    QLabel* m_content = nullptr;
    QComboBox* m_labelSet = nullptr;
    QTableWidget* m_classes = nullptr;
};

} // namespace setscope::gui
