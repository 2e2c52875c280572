// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Sets.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
}

namespace setscope::model {

/// A trained encoder as the views, retrieval, maps and reports use it: sets in, vectors out.
/// Torch-free and below the training layer, so that what only uses a model does not depend on
/// how one is trained: core/train makes them (train::TrainedModel: a copy of a live run's weights,
/// or a checkpoint opened with workspace::openModel), everything else holds this interface.
///
/// Contract of every implementation: immutable weights (a model taken from a live run does not
/// change while the run goes on); embed() may be called from any thread.
class ModelHandle {
public:
    virtual ~ModelHandle() = default;

    /// Output dimension and the element dimension the model expects.
    virtual int dim() const = 0;
    virtual std::int64_t inputDim() const = 0;
    /// The training step of the weights.
    virtual std::int64_t step() const = 0;
    /// Content hash of the dataset it was trained on ("" when unknown).
    virtual const std::string& datasetHash() const = 0;
    /// The label set of its configuration (what its supervised stages trained on and its runs
    /// were scored with).
    virtual const std::string& labelSet() const = 0;

    /// Embeds sets given as views (each of inputDim()-d elements): sets.size() x dim(),
    /// row-major. Throws std::invalid_argument for a set of another dimension.
    std::vector<float> embed(std::span<const sdk::SetRef> sets) const { return embedSets(sets); }
    /// Embeds the items `items` of `dataset` (all items when empty); `control` (may be null) is
    /// polled between batches for cancel. Throws std::invalid_argument when the dataset's
    /// elements are not inputDim()-d.
    std::vector<float> embed(const data::Dataset& dataset, const std::vector<std::int64_t>& items = {},
                             job::JobControl* control = nullptr) const
    {
        return embedItems(dataset, items, control);
    }

protected:
    ModelHandle() = default;
    ModelHandle(const ModelHandle&) = default;
    ModelHandle& operator=(const ModelHandle&) = default;

private:
    virtual std::vector<float> embedSets(std::span<const sdk::SetRef> sets) const = 0;
    virtual std::vector<float> embedItems(const data::Dataset& dataset, const std::vector<std::int64_t>& items,
                                          job::JobControl* control) const = 0;
};

} // namespace setscope::model
