// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// Building an encoder from a run's configuration and embedding sets with it (eval mode, no
// gradients, in batches). Internal to core/train (includes Torch).

#include "core/train/TrainerConfig.h"

#include <setscope/sdk/Model.h>

#include <torch/torch.h>

#include <cstdint>
#include <span>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
}
namespace setscope::plugin {
class Registry;
}

namespace setscope::train::run {

/// The encoder a configuration builds for `inputDim`-d elements.
sdk::EncoderSpec encoderSpec(const plugin::Registry& registry, const TrainerConfig& c, std::int64_t inputDim);

/// Embeds `sets` (each `inputDim`-d) in batches (eval mode, no grad); returns sets.size() x dim
/// on the CPU. `control` (may be null) is polled between batches.
std::vector<float> embedSets(sdk::SetEncoder& enc, std::span<const sdk::SetRef> sets, std::int64_t inputDim,
                             const torch::Device& device, job::JobControl* control);

/// The same for items of a dataset.
std::vector<float> embedItems(sdk::SetEncoder& enc, const data::Dataset& ds, const std::vector<std::int64_t>& items,
                              const torch::Device& device, job::JobControl* control);

/// 0 .. ds.size() - 1.
std::vector<std::int64_t> allItems(const data::Dataset& ds);

/// The loss's metric projection as a CPU float d x l copy, or undefined when it has none.
/// Throws std::logic_error when it is not d x l for the encoder's width d.
torch::Tensor metricProjection(const sdk::MetricLoss& loss, std::int64_t encoderDim);

/// rows (n x d, row-major) -> rows P (n x l) when `projection` is defined; `dim` becomes l.
std::vector<float> projectRows(std::vector<float> rows, int& dim, const torch::Tensor& projection);

} // namespace setscope::train::run
