// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QObject>

#include <cstdint>
#include <vector>

namespace setscope::gui {

/// The selected items of the open dataset (dataset indices), shared by every view: a click
/// or a rubber band in one view selects there and in all others. Sorted and unique. GUI
/// thread only.
class SelectionModel final : public QObject {
    Q_OBJECT
public:
    /// How select() combines `items` with the current selection.
    enum class Mode {
        Replace, ///< the selection becomes `items`
        Add,     ///< union
        Remove,  ///< difference
        Toggle,  ///< symmetric difference
    };
    Q_ENUM(Mode)

    explicit SelectionModel(QObject* parent = nullptr);

    /// Applies `items` (any order, duplicates allowed, negatives ignored). Emits changed()
    /// only when the selection changed.
    void select(std::vector<std::int64_t> items, Mode mode = Mode::Replace);
    void clear() { select({}, Mode::Replace); }

    const std::vector<std::int64_t>& items() const { return m_items; }
    std::size_t size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    bool contains(std::int64_t item) const;

Q_SIGNALS:
    void changed();

private:
    std::vector<std::int64_t> m_items;
};

} // namespace setscope::gui
