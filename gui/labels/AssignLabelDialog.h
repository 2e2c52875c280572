// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;

namespace setscope::gui {

class LabelController;

/// "Assign to class…": asks for the label set (an existing one or a new name) and the class
/// (an existing one of that set or a new name) for the selected items. Only asks: the caller
/// hands the answer to LabelController::assign(). GUI thread only.
class AssignLabelDialog final : public QDialog {
    Q_OBJECT
public:
    /// `items`: how many items are selected (for the text). `labelSet`: preselected.
    AssignLabelDialog(const LabelController& labels, std::size_t items, const QString& labelSet, QWidget* parent = nullptr);

    QString labelSet() const;
    QString className() const;
    void setLabelSet(const QString& name);
    void setClassName(const QString& name);
    /// Whether OK is enabled (both names given).
    bool acceptable() const;
    /// "new label set" / "new class" hints shown under the fields.
    QString hint() const;

private:
    void fillClasses();
    void updateState();

    const LabelController& m_labels;
    QComboBox* m_set = nullptr;
    QComboBox* m_class = nullptr;
    QLabel* m_hint = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace setscope::gui
