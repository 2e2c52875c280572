// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/project/ProjectStore.h"

#include <cstdint>
#include <vector>

/// The label edits of the kill test, known to both the child that applies them and the test
/// that checks them (which replays them on a plain vector, independently of the store).
namespace setscope::project::childedits {

constexpr std::int64_t kItems = 997; // prime: the item pattern below never repeats an item
constexpr int kClasses = 5;
constexpr int kChangesPerEdit = 64;

inline std::vector<std::int32_t> initialLabels()
{
    std::vector<std::int32_t> labels(kItems);
    for (std::int64_t i = 0; i < kItems; ++i)
        labels[i] = static_cast<std::int32_t>(i % kClasses);
    return labels;
}

/// Edit k (k >= 1): 64 distinct items, each getting a label in [-1, kClasses).
inline std::vector<LabelChange> edit(std::int64_t k)
{
    std::vector<LabelChange> changes;
    for (std::int64_t j = 0; j < kChangesPerEdit; ++j)
        changes.push_back({(k * 31 + j * 61) % kItems, static_cast<std::int32_t>((k + j) % (kClasses + 1)) - 1});
    return changes;
}

inline void applyTo(std::vector<std::int32_t>& labels, std::int64_t k)
{
    for (const LabelChange& c : edit(k))
        labels[static_cast<std::size_t>(c.item)] = c.label;
}

} // namespace setscope::project::childedits
