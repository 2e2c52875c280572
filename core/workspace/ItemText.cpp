// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/ItemText.h"

#include "core/data/Dataset.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace setscope::workspace {

std::size_t requireItem(const data::Dataset& ds, std::int64_t i, std::string_view what)
{
    if (i >= 0 && static_cast<std::size_t>(i) < ds.size())
        return static_cast<std::size_t>(i);
    std::string message(what);
    if (!message.empty())
        message += ' ';
    message += std::to_string(i) + " is not an item of '" + ds.name() + "'";
    message += ds.size() == 0 ? std::string(" (it has no items)") : " (0.." + std::to_string(ds.size() - 1) + ")";
    throw std::invalid_argument(message);
}

std::string primaryLabelSet(const data::Dataset& ds)
{
    if (ds.labelSet("fine") || ds.labelSets().empty())
        return "fine";
    return ds.labelSets().front().name;
}

std::string labelOf(const data::Dataset& ds, std::size_t i, const std::string& labelSet)
{
    const data::LabelSet* ls = ds.labelSet(labelSet);
    if (!ls || i >= ls->labels.size() || ls->labels[i] < 0)
        return "-";
    return ls->classNames[static_cast<std::size_t>(ls->labels[i])];
}

std::string describeElement(const data::Dataset& ds, std::size_t item, std::int64_t e)
{
    const std::size_t global = static_cast<std::size_t>(ds.offsets()[item]) + static_cast<std::size_t>(e);
    if (ds.hasElementText() && !ds.elementText(global).empty())
        return ds.elementText(global);
    std::string s = "(";
    const data::ItemView it = ds.item(item);
    for (int k = 0; k < std::min(ds.dim(), 4); ++k) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", it.element(static_cast<std::size_t>(e))[static_cast<std::size_t>(k)]);
        s += (k ? ", " : "") + std::string(buf);
    }
    return s + (ds.dim() > 4 ? ", ...)" : ")");
}

std::vector<std::int64_t> otherItems(const data::Dataset& ds, std::int64_t self, bool all, std::string* pool)
{
    std::vector<std::int64_t> items = all ? std::vector<std::int64_t>() : ds.indices(data::Split::Train);
    if (pool)
        *pool = items.empty() ? (all ? "dataset" : "dataset (no train split)") : "train split";
    if (items.empty()) {
        items.resize(ds.size());
        std::iota(items.begin(), items.end(), 0);
    }
    items.erase(std::remove(items.begin(), items.end(), self), items.end());
    return items;
}

Vocabulary::Vocabulary(const data::Dataset& ds)
    : m_ds(ds)
{
    std::unordered_map<std::string, std::size_t> seen;
    if (!ds.hasElementText())
        return;
    for (std::size_t e = 0; e < ds.elementCount(); ++e) {
        const std::string& w = ds.elementText(e);
        if (!w.empty() && seen.emplace(w, e).second)
            m_first.push_back(e);
    }
}

std::string Vocabulary::nearest(const float* v) const
{
    if (m_first.empty())
        return {};
    const std::size_t d = static_cast<std::size_t>(m_ds.dim());
    double best = std::numeric_limits<double>::infinity();
    std::size_t arg = m_first.front();
    for (const std::size_t e : m_first) {
        const float* u = m_ds.values().data() + e * d;
        double s = 0;
        for (std::size_t k = 0; k < d && s < best; ++k)
            s += (double(u[k]) - v[k]) * (double(u[k]) - v[k]);
        if (s < best) {
            best = s;
            arg = e;
        }
    }
    return m_ds.elementText(arg);
}

} // namespace setscope::workspace
