// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/LabelMapping.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <cstddef>
#include <string>
#include <vector>

namespace setscope::gui {

/// The table of the mapping editor: one row per class of the source label set (its name,
/// its item count, the target class it goes to). The target column is editable; targets are
/// free text, so typing a new name creates a new coarse class. Starts as the identity
/// (data::identityMapping) or from a stored mapping. GUI thread only.
class MappingModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SourceColumn, CountColumn, TargetColumn, ColumnCount };

    explicit MappingModel(QObject* parent = nullptr);

    /// Rows for the classes of `source`, each its own target (the identity).
    void setSource(const data::LabelSet& source);
    /// Takes the targets of `mapping` for the source classes it places (others keep theirs).
    /// Returns the source classes of the mapping the source set lacks (ignored).
    QStringList loadMapping(const data::LabelMapping& mapping);

    QString sourceName() const { return m_sourceName; }
    QString sourceClass(int row) const;
    QString target(int row) const;
    /// Sets a row's target (trimmed); false for a bad row.
    bool setTarget(int row, const QString& target);
    /// The distinct targets, in the order they first appear (row order).
    QStringList targets() const;

    /// "" when mapping() would give a valid mapping named `name`; else why not (an empty
    /// target, no name, the name of the source set).
    QString problem(const QString& name) const;
    /// The mapping the table describes: target classes in targets() order, each with its
    /// source classes in row order. Call problem() first (LabelMapping's rules apply).
    data::LabelMapping mapping(const QString& name) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString m_sourceName;
    QStringList m_classes;
    std::vector<std::size_t> m_counts;
    QStringList m_targets;
};

} // namespace setscope::gui
