// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/model/ModelHandle.h"

#include <memory>
#include <string>

namespace setscope::job {
class JobControl;
}
namespace setscope::plugin {
class Registry;
}

namespace setscope::workspace {

/// Opens a checkpoint written by a training run (best.pt or step-*.pt) as a model: what the
/// front ends and this folder's services ask for instead of reaching into core/train. Throws
/// sdk::InputError naming the file when it is unreadable or not a setscope checkpoint, or its
/// weights do not fit its model; job::Cancelled through `control` (may be null), which is polled
/// while the file is checked.
std::shared_ptr<const model::ModelHandle> openModel(const std::string& checkpoint, const plugin::Registry& registry,
                                                    job::JobControl* control = nullptr);

} // namespace setscope::workspace
