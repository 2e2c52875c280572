// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Registrar.h>

#include <vector>

namespace setscope::train {

/// adam (seed 000 §VI-A: β 0.9/0.999, ε 1e-7), adamw and sgd, registered by the builtin
/// plugin. Every one declares "lr"; the trainer's schedule scales it per step.
std::vector<sdk::OptimizerInfo> builtinOptimizers();

} // namespace setscope::train
