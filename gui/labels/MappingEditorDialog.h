// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QDialog>

#include <memory>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace setscope::data {
class Dataset;
}

namespace setscope::gui {

class LabelController;
class MappingModel;

/// Labels ▸ Derive label set…: pick a source label set, give each of its classes a target
/// class (a combo of the targets so far, or a new name typed in), name the derived set. A
/// set derived before is re-opened with its stored mapping. OK derives it through
/// LabelController::derive() (created, or re-derived as one undoable edit); an error keeps
/// the dialog open with the reason. GUI thread only.
class MappingEditorDialog final : public QDialog {
    Q_OBJECT
public:
    /// `dataset`: the session's dataset (its label sets and counts); `name`: preselected
    /// derived set ("" = "coarse").
    MappingEditorDialog(LabelController& labels, std::shared_ptr<const data::Dataset> dataset, const QString& name = {},
                        QWidget* parent = nullptr);

    MappingModel* model() const { return m_model; }
    void setSource(const QString& labelSet);
    QString source() const;
    void setDerivedName(const QString& name);
    QString derivedName() const;
    /// The mapping as JSON (what OK derives), or "" while problem() is not empty.
    QString mappingJson() const;
    /// Why OK is disabled ("" when it is not).
    QString problem() const;

    void accept() override;

private:
    /// Resets the table to the source's classes, then takes a stored mapping of the derived
    /// name when it maps from this source.
    void reload();
    void updateState();

    LabelController& m_labels;
    std::shared_ptr<const data::Dataset> m_dataset;
    MappingModel* m_model = nullptr;
    QComboBox* m_source = nullptr;
    QLineEdit* m_name = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_status = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace setscope::gui
