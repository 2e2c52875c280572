// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace setscope::dist {

struct LocalLaunch {
    /// The program and its arguments, as each rank runs it (without the launcher's own flags).
    std::vector<std::string> argv;
    int ranks = 2;
    /// After a rank fails, how long the others get to stop by themselves (they notice the
    /// closed connection at their next collective) before they are killed.
    std::chrono::milliseconds grace{std::chrono::seconds(60)};
    /// Extra environment of every rank ("NAME=value").
    std::vector<std::string> env;
};

/// Runs `launch.ranks` copies of launch.argv on this machine as the ranks of one run: each gets
/// RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE and SETSCOPE_DIST_STORE=file:<fresh private
/// directory>/store (dist/Rendezvous.h). Rank 0's output goes to this process's stdout and
/// stderr; the other ranks' stdout is discarded, their stderr kept (errors). SIGINT / SIGTERM
/// of this process are passed to every rank (they run in their own process group, so a
/// terminal's Ctrl-C reaches them once). Returns 0 when every rank exits with 0; 130 when this
/// process was interrupted and a rank did not finish (cancelled); otherwise the exit code of the
/// first rank that failed (128 + signal when killed), after telling which rank it was on stderr.
/// Throws std::runtime_error when a rank cannot be started.
int runLocalRanks(const LocalLaunch& launch);

} // namespace setscope::dist
