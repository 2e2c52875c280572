// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Waits inside tests (a generous timeout on a condition, never a performance claim) scaled for
// sanitizer builds, which run code 3-15 times slower: cmake/SetscopeSanitizers.cmake sets
// SETSCOPE_TEST_TIME_FACTOR to the factor it multiplies the CTest time limits with.

#include <QtGlobal>

namespace setscope::testing {

inline int timeFactor()
{
    bool ok = false;
    const int f = qEnvironmentVariableIntValue("SETSCOPE_TEST_TIME_FACTOR", &ok);
    return ok && f > 1 ? f : 1;
}

/// `ms` times timeFactor(): the same wait in a normal build, a longer one under a sanitizer.
inline int scaledMs(int ms) { return ms * timeFactor(); }

} // namespace setscope::testing
