// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainerConfig.h"

#include <setscope/sdk/Sets.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
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

namespace setscope::train {

/// A trained encoder as views and retrieval use it: sets in, vectors out. This header is
/// Torch-free (the GUI and the CLI's retrieval hold one); the model lives behind it on the
/// CPU (or the device the checkpoint's config asks for, when available). Immutable weights:
/// a handle from a live run is a copy taken at that step, so it does not change while the
/// run goes on. embed() may be called from any thread (calls are serialised).
class ModelHandle {
public:
    ~ModelHandle();

    /// Loads a checkpoint written by TrainingJob (best.pt or step-*.pt). Throws
    /// sdk::InputError naming the file when it is unreadable or not a setscope checkpoint.
    /// `control` (may be null) is polled while the file is checked (job::Cancelled on cancel);
    /// the check itself is bounded in time and memory whatever the file (ArchiveCheck.h).
    static std::shared_ptr<const ModelHandle> fromCheckpoint(const std::string& path, const plugin::Registry& registry,
                                                             job::JobControl* control = nullptr);

    /// Output dimension and the element dimension the model expects.
    int dim() const;
    std::int64_t inputDim() const;
    /// The configuration it was trained with, and the step of the weights.
    const TrainerConfig& config() const;
    std::int64_t step() const;
    /// Content hash of the dataset it was trained on ("" when unknown).
    const std::string& datasetHash() const;

    /// Embeds sets given as views (each of inputDim()-d elements): sets.size() x dim(),
    /// row-major. Eval mode, no gradients, in batches. Throws std::invalid_argument for a set of
    /// another dimension.
    std::vector<float> embed(std::span<const sdk::SetRef> sets) const;
    /// Embeds the items `items` of `dataset` (all items when empty); `control` (may be null) is
    /// polled between batches for cancel. Throws std::invalid_argument when the dataset's
    /// elements are not inputDim()-d.
    std::vector<float> embed(const data::Dataset& dataset, const std::vector<std::int64_t>& items = {},
                             job::JobControl* control = nullptr) const;

    struct Impl;
    explicit ModelHandle(std::unique_ptr<Impl> impl);

private:
    std::unique_ptr<Impl> m_impl;
    mutable std::mutex m_mutex;
};

} // namespace setscope::train
