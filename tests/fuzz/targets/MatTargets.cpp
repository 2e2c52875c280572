// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz target of the MAT-file size-claim walk (see FuzzTargets.h).
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/data/MatV5Check.h"

#include <setscope/sdk/Errors.h>

namespace setscope::fuzz {

void matClaims(const std::uint8_t* data, std::size_t size)
{
    const TempFile f(data, size, ".mat");
    try {
        data::checkMatV5Claims(f.path(), std::uint64_t(64) << 20);
    } catch (const sdk::InputError&) {
        // A refusal with a message: the expected outcome for most inputs.
    }
}

} // namespace setscope::fuzz
