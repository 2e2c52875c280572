// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/labels/MappingEditorDialog.h"

#include "core/data/Dataset.h"
#include "core/data/LabelMapping.h"
#include "gui/labels/LabelController.h"
#include "gui/labels/MappingModel.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include <exception>

namespace setscope::gui {

namespace {

/// The target column's editor: an editable combo of the targets so far.
class TargetDelegate final : public QStyledItemDelegate {
public:
    TargetDelegate(const MappingModel* model, QObject* parent)
        : QStyledItemDelegate(parent)
        , m_model(model)
    {
    }
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const override
    {
        auto* combo = new QComboBox(parent);
        combo->setEditable(true);
        combo->setInsertPolicy(QComboBox::NoInsert);
        combo->addItems(m_model->targets());
        return combo;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        static_cast<QComboBox*>(editor)->setEditText(index.data(Qt::EditRole).toString());
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override
    {
        model->setData(index, static_cast<QComboBox*>(editor)->currentText(), Qt::EditRole);
    }

private:
    const MappingModel* m_model;
};

} // namespace

MappingEditorDialog::MappingEditorDialog(LabelController& labels, std::shared_ptr<const data::Dataset> dataset,
                                         const QString& name, QWidget* parent)
    : QDialog(parent)
    , m_labels(labels)
    , m_dataset(std::move(dataset))
    , m_model(new MappingModel(this))
{
    setWindowTitle(tr("Derive a label set"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Merge the classes of a label set into coarser ones: give each class the class it goes "
                                "to (pick one, or type a new name). Re-deriving an existing set is one undoable edit."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    m_source = new QComboBox;
    m_source->setObjectName(QStringLiteral("sourceCombo"));
    if (m_dataset)
        for (const data::LabelSet& ls : m_dataset->labelSets())
            m_source->addItem(QString::fromStdString(ls.name));
    m_name = new QLineEdit(name.isEmpty() ? QStringLiteral("coarse") : name);
    m_name->setObjectName(QStringLiteral("nameEdit"));
    form->addRow(tr("From label set:"), m_source);
    form->addRow(tr("Derived set:"), m_name);
    layout->addLayout(form);
    m_table = new QTableView;
    m_table->setModel(m_model);
    m_table->setItemDelegateForColumn(MappingModel::TargetColumn, new TargetDelegate(m_model, m_table));
    m_table->horizontalHeader()->setSectionResizeMode(MappingModel::SourceColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(MappingModel::TargetColumn, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::AllEditTriggers);
    layout->addWidget(m_table, 1);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("status"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Derive"));
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &MappingEditorDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_source, &QComboBox::currentTextChanged, this, &MappingEditorDialog::reload);
    connect(m_name, &QLineEdit::editingFinished, this, &MappingEditorDialog::reload);
    connect(m_name, &QLineEdit::textChanged, this, &MappingEditorDialog::updateState);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &MappingEditorDialog::updateState);

    // Re-editing a derived set: start from the source it was derived from.
    const QString stored = m_labels.storedMapping(m_name->text());
    if (!stored.isEmpty()) {
        try {
            setSource(QString::fromStdString(data::LabelMapping::fromJson(stored.toStdString()).source));
        } catch (const std::exception&) {
        }
    } else if (m_source->findText(QStringLiteral("fine")) >= 0) {
        setSource(QStringLiteral("fine"));
    }
    reload();
    resize(520, 480);
}

void MappingEditorDialog::setSource(const QString& labelSet)
{
    const int i = m_source->findText(labelSet);
    if (i >= 0)
        m_source->setCurrentIndex(i); // reload() through the signal when it changed
}

QString MappingEditorDialog::source() const { return m_source->currentText(); }

void MappingEditorDialog::setDerivedName(const QString& name)
{
    m_name->setText(name);
    reload();
}

QString MappingEditorDialog::derivedName() const { return m_name->text().trimmed(); }

void MappingEditorDialog::reload()
{
    const data::LabelSet* ls = m_dataset ? m_dataset->labelSet(source().toStdString()) : nullptr;
    if (!ls) {
        updateState();
        return;
    }
    m_model->setSource(*ls);
    QString note;
    const QString stored = m_labels.storedMapping(derivedName());
    if (!stored.isEmpty()) {
        try {
            const data::LabelMapping m = data::LabelMapping::fromJson(stored.toStdString());
            if (QString::fromStdString(m.source) == source()) {
                const QStringList unknown = m_model->loadMapping(m);
                note = tr("Loaded the stored mapping of '%1'.").arg(derivedName());
                if (!unknown.isEmpty())
                    note += tr(" It names classes '%1' no longer has: %2").arg(source(), unknown.join(QStringLiteral(", ")));
            }
        } catch (const std::exception& e) {
            note = tr("The stored mapping of '%1' cannot be read (%2); starting from the identity")
                       .arg(derivedName(), QString::fromUtf8(e.what()));
        }
    }
    m_table->resizeColumnToContents(MappingModel::CountColumn);
    m_status->setProperty("note", note);
    updateState();
}

QString MappingEditorDialog::problem() const { return m_model->problem(derivedName()); }

QString MappingEditorDialog::mappingJson() const
{
    return problem().isEmpty() ? QString::fromStdString(m_model->mapping(derivedName()).toJson()) : QString();
}

void MappingEditorDialog::updateState()
{
    const QString p = problem();
    const QString note = m_status->property("note").toString();
    m_status->setText(!p.isEmpty() ? p
                                   : tr("%1 classes → %2 classes in '%3'. %4")
                                         .arg(m_model->rowCount())
                                         .arg(m_model->targets().size())
                                         .arg(derivedName(), note));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(p.isEmpty());
}

void MappingEditorDialog::accept()
{
    if (!problem().isEmpty())
        return;
    QString error;
    if (!m_labels.derive(m_model->mapping(derivedName()), &error)) {
        m_status->setText(tr("Not derived: %1").arg(error));
        return;
    }
    QDialog::accept();
}

} // namespace setscope::gui
