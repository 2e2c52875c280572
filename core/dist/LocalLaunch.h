// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace setscope::dist {

/// How long a rank gets to cancel after its launcher was interrupted or lost, before it is
/// killed (by the launcher) or ends itself (a rank whose launcher is gone): the
/// SETSCOPE_DIST_STOP_GRACE seconds when set (a number > 0), else 30 s.
std::chrono::milliseconds stopGrace();

struct LocalLaunch {
    /// The program and its arguments, as each rank runs it (without the launcher's own flags).
    std::vector<std::string> argv;
    int ranks = 2;
    /// After a rank fails, how long the others get to stop by themselves (they notice the
    /// closed connection at their next collective) before they are killed.
    std::chrono::milliseconds grace{std::chrono::seconds(60)};
    /// After an interrupt of the launcher (passed on to every rank), how long the ranks get to
    /// cancel (rank 0 records the run as cancelled) before they are killed: stopGrace().
    std::chrono::milliseconds stopGrace = dist::stopGrace();
    /// Extra environment of every rank ("NAME=value").
    std::vector<std::string> env;
};

/// Runs `launch.ranks` copies of launch.argv on this machine as the ranks of one run: each gets
/// RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE and SETSCOPE_DIST_STORE=file:<fresh private
/// directory>/store (dist/Rendezvous.h), and SETSCOPE_LAUNCHER_FD / SETSCOPE_LAUNCHER_PID: the
/// read end of a pipe whose only writer is this process, and this process's id, so that each
/// rank notices when its launcher is gone, however it ended (watchLauncher()). Rank 0's output
/// goes to this process's stdout and stderr; the other ranks' stdout is discarded, their stderr
/// kept (errors). SIGINT, SIGTERM and SIGHUP of this process (Ctrl-C, kill, a closed terminal)
/// are passed to every rank (they run in their own process group, so a terminal's Ctrl-C
/// reaches them once), and every rank still running `launch.stopGrace` later is killed. Returns
/// 0 when every rank exits with 0; 130 when this process was interrupted and a rank did not
/// finish (cancelled); otherwise the exit code of the first rank that failed (128 + signal when
/// killed), after telling which rank it was on stderr. Throws std::runtime_error when a rank
/// cannot be started. Call it from the main thread: a rank's parent-death signal follows the
/// thread that started it.
int runLocalRanks(const LocalLaunch& launch);

/// In a rank started by runLocalRanks (SETSCOPE_LAUNCHER_FD set; otherwise a no-op): ties this
/// process's life to its launcher's. The kernel sends SIGTERM when the launcher dies
/// (PR_SET_PDEATHSIG), and a thread watches the launcher's pipe: when it closes (the launcher
/// ended, even by SIGKILL), `onLost` is called once on that thread (the caller cancels its work
/// as on SIGTERM), and if this process still runs stopGrace() later, the thread removes the
/// run's store folder and ends the process (_exit(130)). Call once, early in main().
void watchLauncher(std::function<void()> onLost);

/// True once watchLauncher() found the launcher gone. Any thread.
bool launcherLost();

/// When the launcher is gone, removes the folder of the run's file store, which the launcher
/// would have removed (setscope-ranks-XXXXXX under TMPDIR); a no-op otherwise. `interrupted`:
/// this rank was interrupted (a signal, or watchLauncher()'s onLost). An interrupted rank whose
/// launcher still looks alive and did not pass an interrupt on (it leaves a mark in the folder
/// when it does) may be seeing a launcher being killed: it waits up to 5 s for the launcher to
/// end, and removes the folder if it did. Call at exit.
void removeOrphanedStore(bool interrupted);

} // namespace setscope::dist
