// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/Models.h"

#include "core/train/TrainedModel.h"

namespace setscope::workspace {

std::shared_ptr<const model::ModelHandle> openModel(const std::string& checkpoint, const plugin::Registry& registry,
                                                    job::JobControl* control)
{
    return train::TrainedModel::fromCheckpoint(checkpoint, registry, control);
}

} // namespace setscope::workspace
