// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// What every benchmark reports beside its timings: the CPU time the process got and the
// machine's load, so a ratio taken on a busy machine can be read for what it is.

#include <fstream>
#include <string>

#include <time.h>

namespace setscope::bench {

/// CPU seconds of the whole process (all threads) so far.
inline double processCpuSeconds()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// "1-min 5-min 15-min" from /proc/loadavg ("" when it cannot be read).
inline std::string loadAverage()
{
    std::ifstream f("/proc/loadavg");
    std::string one, five, fifteen;
    f >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

} // namespace setscope::bench
