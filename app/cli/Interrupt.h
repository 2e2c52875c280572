// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Ctrl-C (SIGINT), kill (SIGTERM) and a closed terminal (SIGHUP) while a command runs its job:
// the job is cancelled -- a training run then ends, and is recorded in its project, as
// cancelled, and what it saved is kept -- instead of the process dying where it stands. Outside
// such a scope the signals keep their default action (a dataset still loading just stops).

namespace setscope::cli {

/// While alive, SIGINT, SIGTERM and SIGHUP only set the interrupt flag (interruptRequested());
/// the previous handlers come back when it ends, unless an interrupt came: then they stay, and
/// the process ends as the cancelled job returns (a further signal does not cut its clean-up
/// short). Main thread; scopes do not nest.
class InterruptScope {
public:
    InterruptScope();
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;
};

/// True once one of the signals came inside a scope, or requestInterrupt() was called. Stays
/// true for the rest of the process. Any thread.
bool interruptRequested();

/// The same request without a signal: a rank whose launcher is gone (dist::watchLauncher).
/// Any thread.
void requestInterrupt();

/// The signal that came ("SIGTERM"), or "" when none did (requestInterrupt()).
const char* interruptName();

} // namespace setscope::cli
