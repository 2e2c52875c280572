// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// Runs the setscope-cli under test (SETSCOPE_CLI, set per test target in CMakeLists.txt) as a
// child process, for the CLI tests. A test whose runs may take longer defines
// SETSCOPE_CLI_TIMEOUT_MS before including this header.

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#ifndef SETSCOPE_CLI_TIMEOUT_MS
#define SETSCOPE_CLI_TIMEOUT_MS 120000
#endif

namespace {

struct Run {
    int code = -1; ///< the exit code, -1 when it crashed or was killed
    QString out;
    QString err;
};

/// Runs setscope-cli with `args`; a run still going after `timeoutMs` is killed (code -1).
[[maybe_unused]] Run cli(const QStringList& args, int timeoutMs = SETSCOPE_CLI_TIMEOUT_MS,
                         const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(SETSCOPE_CLI, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

} // namespace
