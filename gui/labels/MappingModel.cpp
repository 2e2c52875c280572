// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/labels/MappingModel.h"

#include "core/data/Dataset.h"

#include <QLocale>

namespace setscope::gui {

MappingModel::MappingModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void MappingModel::setSource(const data::LabelSet& source)
{
    beginResetModel();
    m_sourceName = QString::fromStdString(source.name);
    m_classes.clear();
    m_targets.clear();
    m_counts = source.counts();
    for (const std::string& c : source.classNames) {
        m_classes << QString::fromStdString(c);
        m_targets << QString::fromStdString(c);
    }
    m_counts.resize(static_cast<std::size_t>(m_classes.size()), 0);
    endResetModel();
}

QStringList MappingModel::loadMapping(const data::LabelMapping& mapping)
{
    QStringList unknown;
    for (const auto& [target, sources] : mapping.classes)
        for (const std::string& s : sources) {
            const int row = m_classes.indexOf(QString::fromStdString(s));
            if (row < 0)
                unknown << QString::fromStdString(s);
            else
                m_targets[row] = QString::fromStdString(target);
        }
    if (!m_classes.isEmpty())
        Q_EMIT dataChanged(index(0, TargetColumn), index(static_cast<int>(m_classes.size()) - 1, TargetColumn));
    return unknown;
}

QString MappingModel::sourceClass(int row) const { return row >= 0 && row < m_classes.size() ? m_classes[row] : QString(); }
QString MappingModel::target(int row) const { return row >= 0 && row < m_targets.size() ? m_targets[row] : QString(); }

bool MappingModel::setTarget(int row, const QString& target)
{
    if (row < 0 || row >= m_targets.size())
        return false;
    m_targets[row] = target.trimmed();
    const QModelIndex i = index(row, TargetColumn);
    Q_EMIT dataChanged(i, i);
    return true;
}

QStringList MappingModel::targets() const
{
    QStringList out;
    for (const QString& t : m_targets)
        if (!t.isEmpty() && !out.contains(t))
            out << t;
    return out;
}

QString MappingModel::problem(const QString& name) const
{
    if (m_classes.isEmpty())
        return tr("Choose a source label set");
    if (name.trimmed().isEmpty())
        return tr("Name the derived label set");
    if (name.trimmed() == m_sourceName)
        return tr("The derived set cannot replace its source '%1': give it another name").arg(m_sourceName);
    for (int r = 0; r < m_targets.size(); ++r)
        if (m_targets[r].isEmpty())
            return tr("Class '%1' has no target class").arg(m_classes[r]);
    return {};
}

data::LabelMapping MappingModel::mapping(const QString& name) const
{
    data::LabelMapping m;
    m.name = name.trimmed().toStdString();
    m.source = m_sourceName.toStdString();
    for (const QString& t : targets()) {
        std::vector<std::string> sources;
        for (int r = 0; r < m_targets.size(); ++r)
            if (m_targets[r] == t)
                sources.push_back(m_classes[r].toStdString());
        m.classes.emplace_back(t.toStdString(), std::move(sources));
    }
    return m;
}

int MappingModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_classes.size()); }
int MappingModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant MappingModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_classes.size())
        return {};
    const int r = index.row();
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case SourceColumn: return m_classes[r];
        case CountColumn: return role == Qt::DisplayRole ? QVariant(QLocale().toString(static_cast<qulonglong>(m_counts[static_cast<std::size_t>(r)])))
                                                          : QVariant(static_cast<qulonglong>(m_counts[static_cast<std::size_t>(r)]));
        case TargetColumn: return m_targets[r];
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() == CountColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

bool MappingModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !index.isValid() || index.column() != TargetColumn)
        return false;
    return setTarget(index.row(), value.toString());
}

Qt::ItemFlags MappingModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == TargetColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant MappingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case SourceColumn: return tr("Class");
    case CountColumn: return tr("Items");
    case TargetColumn: return tr("Goes to");
    default: return {};
    }
}

} // namespace setscope::gui
