// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// The built-ins, registered through the plugin SDK's Registrar like any outside plugin. One
// file per kind lists its items, one line each; an item's name, doc, schema and factory live
// with the item (docs/ARCHITECTURE.md, "Adding a loss / a view / a loader / a CLI command").

#include <setscope/sdk/Registrar.h>

namespace setscope::builtins {

/// Registers every built-in item of every kind. Call once at start-up, on the main thread.
void registerBuiltins(sdk::Registrar& registrar);

/// One kind each (the files of the same name in core/builtins/).
void registerLoaders(sdk::Registrar& registrar);
void registerEncoders(sdk::Registrar& registrar);
void registerLosses(sdk::Registrar& registrar);
void registerAugmentations(sdk::Registrar& registrar);
void registerSamplers(sdk::Registrar& registrar);
void registerOptimizers(sdk::Registrar& registrar);
void registerRecipes(sdk::Registrar& registrar);

} // namespace setscope::builtins
