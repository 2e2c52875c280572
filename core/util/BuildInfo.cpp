// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/BuildInfo.h"

#include <torch/version.h> // a few macros, not the LibTorch API

namespace setscope::util {

BuildInfo buildInfo()
{
    BuildInfo b;
    b.version = SETSCOPE_VERSION;
    b.torchVersion = TORCH_VERSION;
    b.torchCuda = SETSCOPE_TORCH_HAS_CUDA;
#ifdef NDEBUG
    b.buildType = "release";
#else
    b.buildType = "debug";
#endif
#if defined(__clang__)
    b.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
    b.compiler = "gcc " __VERSION__;
#endif
    return b;
}

} // namespace setscope::util
