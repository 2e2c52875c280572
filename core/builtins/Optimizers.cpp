// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The built-in optimizers (core/train/Optimizers.cpp describes them).
#include "core/builtins/Builtins.h"

#include "core/train/Optimizers.h"

namespace setscope::builtins {

void registerOptimizers(sdk::Registrar& r)
{
    r.addOptimizer(train::adamOptimizerInfo());
    r.addOptimizer(train::adamwOptimizerInfo());
    r.addOptimizer(train::sgdOptimizerInfo());
}

} // namespace setscope::builtins
