// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <vector>

namespace setscope::data {
class Dataset;
}

namespace setscope::train {

/// The items a training run shows on its map: every item of the dataset when `maxItems` is 0
/// (the default of TrainerConfig::snapshotItems); else at most `maxItems` of the test split
/// (all items when the test split is empty), stratified by `labels` (one per dataset item, -1
/// counts as a class of its own), ascending. Depends only on its arguments, so the GUI can
/// draw the map of the raw vectors of exactly the items the first snapshot will hold.
std::vector<std::int64_t> snapshotSubset(const data::Dataset& dataset, const std::vector<std::int32_t>& labels,
                                         int maxItems, std::uint64_t seed);

} // namespace setscope::train
