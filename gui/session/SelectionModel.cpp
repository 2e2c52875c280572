// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/session/SelectionModel.h"

#include <algorithm>
#include <iterator>

namespace setscope::gui {

SelectionModel::SelectionModel(QObject* parent)
    : QObject(parent)
{
}

bool SelectionModel::contains(std::int64_t item) const
{
    return std::binary_search(m_items.begin(), m_items.end(), item);
}

void SelectionModel::setCurrent(std::int64_t item)
{
    item = std::max<std::int64_t>(item, -1);
    if (item == m_current)
        return;
    m_current = item;
    Q_EMIT currentChanged(item);
}

void SelectionModel::reset()
{
    clear();
    setCurrent(-1);
}

void SelectionModel::select(std::vector<std::int64_t> items, Mode mode)
{
    std::erase_if(items, [](std::int64_t i) { return i < 0; });
    const std::int64_t single = items.size() == 1 ? items.front() : -1;
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
    std::vector<std::int64_t> next;
    switch (mode) {
    case Mode::Replace: next = std::move(items); break;
    case Mode::Add:
        std::set_union(m_items.begin(), m_items.end(), items.begin(), items.end(), std::back_inserter(next));
        break;
    case Mode::Remove:
        std::set_difference(m_items.begin(), m_items.end(), items.begin(), items.end(), std::back_inserter(next));
        break;
    case Mode::Toggle:
        std::set_symmetric_difference(m_items.begin(), m_items.end(), items.begin(), items.end(),
                                      std::back_inserter(next));
        break;
    }
    // A click that leaves its item selected makes it current: the per-item views follow it.
    // Both updated before either signal, so an observer of changed() sees the new current item.
    const bool currentMoves = single >= 0 && single != m_current && std::binary_search(next.begin(), next.end(), single);
    const bool itemsChange = next != m_items;
    if (itemsChange)
        m_items = std::move(next);
    if (currentMoves)
        m_current = single;
    if (itemsChange)
        Q_EMIT changed();
    if (currentMoves)
        Q_EMIT currentChanged(single);
}

} // namespace setscope::gui
