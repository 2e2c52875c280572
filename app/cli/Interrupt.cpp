// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "Interrupt.h"

#include <atomic>
#include <csignal>

namespace setscope::cli {

namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_requested{false};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[3];

extern "C" void onInterruptSignal(int s) { g_signal.store(s); }

} // namespace

InterruptScope::InterruptScope()
{
    struct sigaction sa {};
    sa.sa_handler = onInterruptSignal;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < 3; ++k)
        ::sigaction(kSignals[k], &sa, &g_previous[k]);
}

InterruptScope::~InterruptScope()
{
    // Once interrupted the process is on its way out, cancelling, and a second signal must not
    // kill it before it has cleaned up: a rank of --nproc gets its launcher's SIGTERM
    // (PR_SET_PDEATHSIG) again as each of a killed launcher's threads ends, and the default
    // action used to end it before it removed the ranks' store folder (dist::removeOrphanedStore).
    if (interruptRequested())
        return;
    for (int k = 0; k < 3; ++k)
        ::sigaction(kSignals[k], &g_previous[k], nullptr);
}

bool interruptRequested() { return g_signal.load() != 0 || g_requested.load(); }

void requestInterrupt() { g_requested = true; }

const char* interruptName()
{
    switch (g_signal.load()) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "";
    }
}

} // namespace setscope::cli
