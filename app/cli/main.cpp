// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// setscope-cli: the headless twin of the GUI. Every job the GUI can start runs here.

#include "CliContext.h"
#include "Commands.h"
#include "Distributed.h"
#include "Interrupt.h"

#include "core/dist/LocalLaunch.h"

#include "core/util/OpenMpWait.h"

#include <setscope/sdk/Errors.h>

#include <iostream>
#include <optional>

int setscope::cli::exitCode(setscope::job::JobStatus status)
{
    switch (status) {
    case setscope::job::JobStatus::Finished: return 0;
    case setscope::job::JobStatus::Cancelled: return 130;
    default: return 1;
    }
}

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
        ~OrphanedStore() { setscope::dist::removeOrphanedStore(); }
    } orphanedStore;
    CLI::App app{"setscope-cli: explore learned metrics on sets, documents, graphs and images (headless)"};
    app.set_version_flag("--version", std::string("setscope ") + SETSCOPE_VERSION);
    app.require_subcommand(1);

    std::optional<CliContext> context;
    const std::string exe = argc > 0 ? argv[0] : "setscope-cli";
    ContextFn ctx = [&]() -> CliContext& {
        if (!context)
            context.emplace(exe);
        return *context;
    };
    int rc = 0;
    addInfoCommand(app, ctx, rc);
    addDatasetsCommand(app, ctx, rc);
    addFetchCommand(app, ctx, rc);
    addPluginsCommand(app, ctx, rc);
    addTrainCommand(app, ctx, rc);
    addEvalCommand(app, ctx, rc);
    addExportCommand(app, ctx, rc);
    addProjectCommand(app, ctx, rc);
    addOtCommands(app, ctx, rc);
    addAugmentCommand(app, ctx, rc);
    addRetrieveCommand(app, ctx, rc);
    addTsneCommand(app, ctx, rc);
    addLabelsCommand(app, ctx, rc);
    addSubstructureCommand(app, ctx, rc);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const setscope::sdk::InputError& e) {
        std::cerr << "setscope-cli: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "setscope-cli: " << e.what() << "\n";
        return 1;
    }
    return rc;
}
