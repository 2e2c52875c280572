// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// What a TrainedModel holds behind its Torch-free header: built by a run (Publisher) or from a
// checkpoint (TrainedModel::fromCheckpoint). Internal to core/train (includes Torch).

#include "core/train/TrainedModel.h"

#include <setscope/sdk/Model.h>

#include <torch/torch.h>

namespace setscope::train {

struct TrainedModel::Impl {
    std::shared_ptr<sdk::SetEncoder> encoder;
    torch::Tensor projection; ///< the loss's d x l metric projection (CPU float), or undefined
    torch::Device device{torch::kCPU};
    TrainerConfig config;
    std::int64_t step = 0;
    std::int64_t inputDim = 0;
    std::string datasetHash;
};

} // namespace setscope::train
