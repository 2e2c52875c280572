// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/ProgressSink.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>

namespace setscope::cli {

struct CliContext;

/// Each command adds its subcommand to `app`; its callback stores its exit code in `rc`.
/// The exit code of a command whose job ended with `status`: 0 finished, 130 cancelled (as an
/// interrupted shell command), 1 failed.
int exitCode(job::JobStatus status);

/// The context is created lazily (registry + plugins) by `ctx()`.
using ContextFn = std::function<CliContext&()>;

void addInfoCommand(CLI::App& app, ContextFn ctx, int& rc);
void addDatasetsCommand(CLI::App& app, ContextFn ctx, int& rc);
void addFetchCommand(CLI::App& app, ContextFn ctx, int& rc);
void addPluginsCommand(CLI::App& app, ContextFn ctx, int& rc);
void addTrainCommand(CLI::App& app, ContextFn ctx, int& rc);
void addEvalCommand(CLI::App& app, ContextFn ctx, int& rc);
void addExportCommand(CLI::App& app, ContextFn ctx, int& rc);
void addProjectCommand(CLI::App& app, ContextFn ctx, int& rc);
void addOtCommands(CLI::App& app, ContextFn ctx, int& rc);
void addAugmentCommand(CLI::App& app, ContextFn ctx, int& rc);
void addRetrieveCommand(CLI::App& app, ContextFn ctx, int& rc);
void addTsneCommand(CLI::App& app, ContextFn ctx, int& rc);
void addLabelsCommand(CLI::App& app, ContextFn ctx, int& rc);
void addSubstructureCommand(CLI::App& app, ContextFn ctx, int& rc);

} // namespace setscope::cli
