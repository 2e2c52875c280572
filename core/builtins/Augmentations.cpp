// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The built-in set augmentations; each entry lives with its sdk adapter in core/augment.
#include "core/builtins/Builtins.h"

#include "core/augment/SetAugmentations.h"

namespace setscope::builtins {

void registerAugmentations(sdk::Registrar& r)
{
    r.addAugmentation(augment::pointSwapInfo());
    r.addAugmentation(augment::pointDropInfo());
    r.addAugmentation(augment::pointMixupInfo());
}

} // namespace setscope::builtins
