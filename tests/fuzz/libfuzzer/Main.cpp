// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// libFuzzer's entry point for one target, chosen at compile time by run.sh:
//   -DSETSCOPE_FUZZ_TARGET=setscope::fuzz::matClaims
#include "tests/fuzz/targets/FuzzTargets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    SETSCOPE_FUZZ_TARGET(data, size);
    return 0;
}
