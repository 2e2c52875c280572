// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Registrar.h>

namespace setscope::builtin {

/// Registers setscope's own features: loaders idx, npy, csv, tudataset, sdf; encoder mlp; losses
/// triplet and contrastive. Call once at start-up, on the main thread.
void registerBuiltins(sdk::Registrar& registrar);

} // namespace setscope::builtin
