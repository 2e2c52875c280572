// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// Processes as /proc shows them, for tests that check who outlives whom (a launcher and its
// ranks, a GUI's multi-process run).

#include <QDir>
#include <QString>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace setscope::testing {

/// Fields of /proc/PID/stat after the command: [0] state, [1] ppid, ... [19] start time; empty
/// when there is no such process.
inline std::vector<std::string> statOf(long pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(in, text))
        return {};
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return {};
    std::istringstream rest(text.substr(close + 2));
    std::vector<std::string> out;
    for (std::string f; rest >> f;)
        out.push_back(f);
    return out;
}

/// The parent's pid of `pid`, -1 when there is no such process (or it is a zombie: it ended).
inline long parentOf(long pid)
{
    const std::vector<std::string> s = statOf(pid);
    return s.size() < 2 || s[0] == "Z" ? -1 : std::stol(s[1]);
}

/// The children of `pid` (every process whose parent it is).
inline std::vector<long> childrenOf(long pid)
{
    std::vector<long> out;
    for (const QString& e : QDir("/proc").entryList(QDir::Dirs)) {
        bool ok = false;
        const long p = e.toLong(&ok);
        if (ok && parentOf(p) == pid)
            out.push_back(p);
    }
    return out;
}

} // namespace setscope::testing
