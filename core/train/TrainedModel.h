// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/model/ModelHandle.h"
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

/// A model of this layer's making behind the Torch-free model::ModelHandle: a copy of a live
/// run's weights (run::Publisher) or a checkpoint (fromCheckpoint). The encoder lives on the CPU
/// (or the device the checkpoint's config asks for, when available); embed() calls are
/// serialised. What only uses a model holds a model::ModelHandle and opens checkpoints with
/// workspace::openModel; the training layer and its tests use this class for config().
class TrainedModel final : public model::ModelHandle {
public:
    ~TrainedModel() override;

    /// Loads a checkpoint written by TrainingJob (best.pt or step-*.pt). Throws
    /// sdk::InputError naming the file when it is unreadable or not a setscope checkpoint.
    /// `control` (may be null) is polled while the file is checked (job::Cancelled on cancel);
    /// the check itself is bounded in time and memory whatever the file (ArchiveCheck.h).
    static std::shared_ptr<const TrainedModel> fromCheckpoint(const std::string& path, const plugin::Registry& registry,
                                                              job::JobControl* control = nullptr);

    int dim() const override;
    std::int64_t inputDim() const override;
    std::int64_t step() const override;
    const std::string& datasetHash() const override;
    const std::string& labelSet() const override;
    /// The configuration it was trained with.
    const TrainerConfig& config() const;

    struct Impl;
    explicit TrainedModel(std::unique_ptr<Impl> impl);

private:
    std::vector<float> embedSets(std::span<const sdk::SetRef> sets) const override;
    std::vector<float> embedItems(const data::Dataset& dataset, const std::vector<std::int64_t>& items,
                                  job::JobControl* control) const override;

    std::unique_ptr<Impl> m_impl;
    mutable std::mutex m_mutex;
};

} // namespace setscope::train
