// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <string>

namespace setscope::util {

/// What this build of setscope was compiled with, for About boxes and bug reports.
struct BuildInfo {
    std::string version;      ///< setscope's version
    std::string torchVersion; ///< the LibTorch headers compiled against
    bool torchCuda = false;   ///< the LibTorch found at configure time has CUDA
    std::string buildType;    ///< "release" or "debug"
    std::string compiler;
};

BuildInfo buildInfo();

} // namespace setscope::util
