// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>

#include <cstdint>
#include <span>
#include <vector>

namespace setscope::data {
class Dataset;
}

namespace setscope::nn {

/// Gathers items into a padded SetBatch on `device`: S = the largest set among `items`,
/// padding has weight 0 and mask false.
sdk::SetBatch collate(const data::Dataset& dataset, const std::vector<std::int64_t>& items, const torch::Device& device);

/// The same for sets given as views (augmented views of a batch), all of dimension `dim`.
sdk::SetBatch collateSets(std::span<const sdk::SetRef> sets, std::int64_t dim, const torch::Device& device);

/// Views of the items `items` of `dataset` (valid while the dataset lives).
std::vector<sdk::SetRef> setRefs(const data::Dataset& dataset, const std::vector<std::int64_t>& items);

/// Labels of `items` in `labels` as an int64 tensor on `device`.
torch::Tensor collateLabels(const std::vector<std::int32_t>& labels, const std::vector<std::int64_t>& items,
                            const torch::Device& device);

} // namespace setscope::nn
