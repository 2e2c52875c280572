// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Waits inside tests (a generous timeout on a condition, never a performance claim) scaled for
// sanitizer builds, which run code 3-15 times slower: cmake/SetscopeSanitizers.cmake sets
// SETSCOPE_TEST_TIME_FACTOR to the factor it multiplies the CTest time limits with.

#include <QtGlobal>

#include <chrono>
#include <thread>

namespace setscope::testing {

inline int timeFactor()
{
    bool ok = false;
    const int f = qEnvironmentVariableIntValue("SETSCOPE_TEST_TIME_FACTOR", &ok);
    return ok && f > 1 ? f : 1;
}

/// `ms` times timeFactor(): the same wait in a normal build, a longer one under a sanitizer.
inline int scaledMs(int ms) { return ms * timeFactor(); }

/// Polls `condition` every 5 ms until it holds or `timeout` (times timeFactor()) passes;
/// returns its last value. The deadline only matters when the test fails.
template <typename F>
bool waitUntil(F condition, std::chrono::milliseconds timeout = std::chrono::seconds(60))
{
    const auto deadline = std::chrono::steady_clock::now() + timeout * timeFactor();
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= deadline)
            return condition();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

} // namespace setscope::testing
