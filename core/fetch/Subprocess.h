// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Running an external tool for a fetch (apt-get, dpkg-deb, npm) without a shell, its output
// read line by line, cancellable; FetchError and CommandError. (Was fetch/Command.h.)

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace setscope::job {
class JobControl;
} // namespace setscope::job

namespace setscope::fetch {

/// A fetch that cannot complete for a reason the user can act on (registry unreachable,
/// package without the expected file, a tool missing). what() is the whole message.
class FetchError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A command that ran and exited with a non-zero code (or was killed by a signal).
class CommandError : public FetchError {
public:
    CommandError(std::string commandLine, int exitCode, std::vector<std::string> lastLines);
    const std::string& commandLine() const noexcept { return m_commandLine; }
    /// The exit code, or 128 + signal number when a signal ended the process.
    int exitCode() const noexcept { return m_exitCode; }
    /// The last lines the command printed (stdout and stderr interleaved), oldest first.
    const std::vector<std::string>& lastLines() const noexcept { return m_lastLines; }
    /// The most telling of lastLines(): the last one that looks like an error ("E: ",
    /// "ERR!", "error"), else the last non-empty one.
    std::string keyLine() const;

private:
    std::string m_commandLine;
    int m_exitCode;
    std::vector<std::string> m_lastLines;
};

struct CommandOptions {
    std::string workingDir;                          ///< "" = the caller's
    std::function<void(const std::string&)> onLine;  ///< each output line, on the calling thread
    job::JobControl* control = nullptr;            ///< polled every 200 ms; cancel kills the child's process group
    std::size_t keepLines = 30;                      ///< how many last lines to keep for errors
};

struct CommandResult {
    int exitCode = 0;
    std::vector<std::string> lastLines;
};

/// Runs argv[0] (looked up on PATH) with the given arguments, without a shell, in a new
/// process group, stdin from /dev/null, stdout and stderr merged into one pipe read line
/// by line ('\r' also ends a line). LC_ALL=C is set for the child so messages can be
/// matched. Blocks the calling thread until the child exits.
/// Throws CommandError on a non-zero exit, FetchError when the program is not on PATH,
/// job::Cancelled when control requested cancel (the whole process group is sent
/// SIGTERM, then SIGKILL after one second).
CommandResult runCommand(const std::vector<std::string>& argv, const CommandOptions& options = {});

/// "apt-get download 'a b'": for messages.
std::string commandLineText(const std::vector<std::string>& argv);

} // namespace setscope::fetch
