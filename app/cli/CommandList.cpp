// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The CLI's commands, one line each, and how a command line runs them. Adding a command: its
// file app/cli/CmdMine.cpp (flags -> a core/workspace request -> printing), its add function
// declared and listed here, its test (docs/ARCHITECTURE.md, "Adding a loss / a view / a loader /
// a CLI command"; tests/cli/tst_CliAddingACommand.cpp adds a toy one).
#include "CliContext.h"
#include "Commands.h"

#include <setscope/sdk/Errors.h>

#include <iostream>
#include <optional>

namespace setscope::cli {

void addInfoCommand(CLI::App& app, ContextFn ctx, int& rc);        // CmdInfo.cpp
void addDatasetsCommand(CLI::App& app, ContextFn ctx, int& rc);    // CmdInfo.cpp
void addFetchCommand(CLI::App& app, ContextFn ctx, int& rc);       // CmdFetch.cpp
void addPluginsCommand(CLI::App& app, ContextFn ctx, int& rc);     // CmdInfo.cpp
void addTrainCommand(CLI::App& app, ContextFn ctx, int& rc);       // CmdTrain.cpp
void addEvalCommand(CLI::App& app, ContextFn ctx, int& rc);        // CmdEval.cpp
void addExportCommand(CLI::App& app, ContextFn ctx, int& rc);      // CmdExport.cpp
void addProjectCommand(CLI::App& app, ContextFn ctx, int& rc);     // CmdProject.cpp
void addOtCommands(CLI::App& app, ContextFn ctx, int& rc);         // CmdOt.cpp
void addAugmentCommand(CLI::App& app, ContextFn ctx, int& rc);     // CmdAugment.cpp
void addRetrieveCommand(CLI::App& app, ContextFn ctx, int& rc);    // CmdRetrieve.cpp
void addTsneCommand(CLI::App& app, ContextFn ctx, int& rc);        // CmdTsne.cpp
void addLabelsCommand(CLI::App& app, ContextFn ctx, int& rc);      // CmdLabels.cpp
void addSubstructureCommand(CLI::App& app, ContextFn ctx, int& rc); // CmdSubstructure.cpp

const std::vector<AddCommandFn>& commandList()
{
    static const std::vector<AddCommandFn> list{
        addInfoCommand,    addDatasetsCommand, addFetchCommand,    addPluginsCommand, addTrainCommand,
        addEvalCommand,    addExportCommand,   addProjectCommand,  addOtCommands,     addAugmentCommand,
        addRetrieveCommand, addTsneCommand,    addLabelsCommand,   addSubstructureCommand,
    };
    return list;
}

int exitCode(job::JobStatus status)
{
    switch (status) {
    case job::JobStatus::Finished: return 0;
    case job::JobStatus::Cancelled: return 130;
    default: return 1;
    }
}

int runCommandLine(int argc, char** argv, const std::vector<AddCommandFn>& commands)
{
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
    for (AddCommandFn add : commands)
        add(app, ctx, rc);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const sdk::InputError& e) {
        std::cerr << "setscope-cli: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "setscope-cli: " << e.what() << "\n";
        return 1;
    }
    return rc;
}

} // namespace setscope::cli
