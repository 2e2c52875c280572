// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/ProgressSink.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <vector>

namespace setscope::cli {

struct CliContext;

/// Each command adds its subcommand to `app`; its callback stores its exit code in `rc`.
/// The exit code of a command whose job ended with `status`: 0 finished, 130 cancelled (as an
/// interrupted shell command), 1 failed.
int exitCode(job::JobStatus status);

/// The context is created lazily (registry + plugins) by `ctx()`.
using ContextFn = std::function<CliContext&()>;

/// What adds one command to the CLI: its flags and its callback (storing its exit code in `rc`).
using AddCommandFn = void (*)(CLI::App& app, ContextFn ctx, int& rc);

/// The commands, in the order `setscope-cli --help` lists them: app/cli/CommandList.cpp, one line
/// each (and there the declaration of each add function: nothing else calls them).
const std::vector<AddCommandFn>& commandList();

/// Parses `argv` with `commands` and runs the command it names, as `setscope-cli` does: returns
/// the command's exit code; CLI11's for a bad command line (--help and --version: 0), after
/// printing its message; 2 for a bad input file (sdk::InputError) and 1 for any other error,
/// after printing "setscope-cli: what" to stderr. The context (registry and plugins) is made on
/// the first ctx() call, for `executable`'s plugin folders.
int runCommandLine(int argc, char** argv, const std::vector<AddCommandFn>& commands);

} // namespace setscope::cli
