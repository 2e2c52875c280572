// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/builtins/Builtins.h"

namespace setscope::builtins {

void registerBuiltins(sdk::Registrar& r)
{
    // Loaders first: the first loader whose canLoad() accepts a path opens it, and a pack is
    // recognised by its magic bytes whatever its name.
    registerLoaders(r);
    registerEncoders(r);
    registerLosses(r);
    registerAugmentations(r);
    registerSamplers(r);
    registerOptimizers(r);
    registerRecipes(r);
}

} // namespace setscope::builtins
