// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// setscope-cli: the headless twin of the GUI. Every job the GUI can start runs here. The
// commands are app/cli/CommandList.cpp's; this file is the process around them.

#include "Commands.h"
#include "Distributed.h"
#include "Interrupt.h"

#include "core/dist/LocalLaunch.h"
#include "core/util/OpenMpWait.h"

int main(int argc, char** argv)
{
    // Before anything else: libgomp has read its wait policy already, so this may re-execute.
    setscope::util::ensurePassiveOpenMpWait(argv);
    using namespace setscope::cli;
    commandLine().assign(argv, argv + argc);
    // A rank started by --nproc lives no longer than its launcher: when it is gone (killed,
    // even by SIGKILL) the rank cancels as on SIGTERM, and ends itself if that takes too long.
    setscope::dist::watchLauncher([] { requestInterrupt(); });
    struct OrphanedStore {
        ~OrphanedStore() { setscope::dist::removeOrphanedStore(interruptRequested()); }
    } orphanedStore;
    return runCommandLine(argc, argv, commandList());
}
