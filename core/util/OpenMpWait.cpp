// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/OpenMpWait.h"

#include <cstdlib>
#include <unistd.h>

namespace setscope::util {

namespace {
constexpr const char* kMarker = "SETSCOPE_OMP_WAIT_SET";
}

void ensurePassiveOpenMpWait(char** argv)
{
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("SETSCOPE_NO_REEXEC") || !argv || !argv[0])
        return;
    if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0 || ::setenv(kMarker, "1", 1) != 0)
        return;
    ::execv("/proc/self/exe", argv);
    // Not re-executed (no /proc?): go on as we are, and say so in the diagnostics.
    ::unsetenv("OMP_WAIT_POLICY");
    ::unsetenv(kMarker);
}

std::string openMpWaitPolicy()
{
    const char* p = std::getenv("OMP_WAIT_POLICY");
    if (!p)
        return "libgomp's default (active)";
    if (std::getenv(kMarker))
        return std::string(p) + " (set by setscope)";
    return std::string(p) + " (OMP_WAIT_POLICY from the environment)";
}

} // namespace setscope::util
