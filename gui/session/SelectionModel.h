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
///
/// Besides the set, one *current* item: the item the per-item views (retrieval, PointSwap,
/// EMD flow) show. A selection of exactly one item (a click) makes it current; a view can
/// also make an item current without selecting (a row of the retrieval list). clear() and a
/// selection that drops the current item do not unset it: the views keep showing it until
/// another item becomes current or reset() (a new dataset).
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
    /// only when the selection changed, then currentChanged() when it made another item
    /// current; both are updated before either signal.
    void select(std::vector<std::int64_t> items, Mode mode = Mode::Replace);
    void clear() { select({}, Mode::Replace); }

    /// Makes `item` current (-1: none); emits currentChanged() when it changed.
    void setCurrent(std::int64_t item);
    std::int64_t current() const { return m_current; }
    /// Clears the selection and the current item (a new dataset: the indices are stale).
    void reset();

    const std::vector<std::int64_t>& items() const { return m_items; }
    std::size_t size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    bool contains(std::int64_t item) const;

Q_SIGNALS:
    void changed();
    void currentChanged(qint64 item);

private:
    std::vector<std::int64_t> m_items;
    std::int64_t m_current = -1;
};

} // namespace setscope::gui
