// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Registrar.h>

namespace setscope::train {

/// The registry's optimizers (core/builtins/Optimizers.cpp registers them). Every one declares
/// "lr"; the trainer's schedule scales it per step.
/// adam: seed 000 §VI-A's β 0.9/0.999, ε 1e-7.
sdk::OptimizerInfo adamOptimizerInfo();
/// adamw: Adam with decoupled weight decay.
sdk::OptimizerInfo adamwOptimizerInfo();
/// sgd: momentum 0.9, optional Nesterov.
sdk::OptimizerInfo sgdOptimizerInfo();

} // namespace setscope::train
