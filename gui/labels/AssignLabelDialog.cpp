// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/labels/AssignLabelDialog.h"

#include "gui/labels/LabelController.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace setscope::gui {

AssignLabelDialog::AssignLabelDialog(const LabelController& labels, std::size_t items, const QString& labelSet,
                                     QWidget* parent)
    : QDialog(parent)
    , m_labels(labels)
{
    setWindowTitle(tr("Assign to class"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Assign the %n selected item(s) to a class. The edit is saved in the project at once; "
                                    "Edit ▸ Undo takes it back.", "", static_cast<int>(items))));
    auto* form = new QFormLayout;
    m_set = new QComboBox;
    m_set->setObjectName(QStringLiteral("labelSetCombo"));
    m_set->setEditable(true);
    m_set->setInsertPolicy(QComboBox::NoInsert);
    m_set->addItems(labels.labelSets());
    m_class = new QComboBox;
    m_class->setObjectName(QStringLiteral("classCombo"));
    m_class->setEditable(true);
    m_class->setInsertPolicy(QComboBox::NoInsert);
    form->addRow(tr("Label set:"), m_set);
    form->addRow(tr("Class:"), m_class);
    layout->addLayout(form);
    m_hint = new QLabel;
    m_hint->setObjectName(QStringLiteral("hint"));
    layout->addWidget(m_hint);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Assign"));
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_set, &QComboBox::currentTextChanged, this, [this] {
        fillClasses();
        updateState();
    });
    connect(m_class, &QComboBox::currentTextChanged, this, &AssignLabelDialog::updateState);
    setLabelSet(labelSet);
    fillClasses();
    updateState();
}

QString AssignLabelDialog::labelSet() const { return m_set->currentText().trimmed(); }
QString AssignLabelDialog::className() const { return m_class->currentText().trimmed(); }

void AssignLabelDialog::setLabelSet(const QString& name)
{
    const int i = m_set->findText(name);
    if (i >= 0)
        m_set->setCurrentIndex(i);
    else
        m_set->setEditText(name);
}

void AssignLabelDialog::setClassName(const QString& name)
{
    const int i = m_class->findText(name);
    if (i >= 0)
        m_class->setCurrentIndex(i);
    else
        m_class->setEditText(name);
}

bool AssignLabelDialog::acceptable() const { return m_buttons->button(QDialogButtonBox::Ok)->isEnabled(); }
QString AssignLabelDialog::hint() const { return m_hint->text(); }

void AssignLabelDialog::fillClasses()
{
    const QString typed = m_class->currentText();
    m_class->clear();
    m_class->addItems(m_labels.classes(labelSet()));
    m_class->setEditText(typed);
}

void AssignLabelDialog::updateState()
{
    const bool newSet = !labelSet().isEmpty() && !m_labels.labelSets().contains(labelSet());
    const bool newClass = !className().isEmpty() && !m_labels.classes(labelSet()).contains(className());
    QStringList notes;
    if (newSet)
        notes << tr("a new label set '%1' (every other item unlabelled)").arg(labelSet());
    if (newClass)
        notes << tr("a new class '%1'").arg(className());
    m_hint->setText(notes.isEmpty() ? QString() : tr("Creates %1.").arg(notes.join(tr(" with "))));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!labelSet().isEmpty() && !className().isEmpty());
}

} // namespace setscope::gui
