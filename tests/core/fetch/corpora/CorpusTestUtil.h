// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// Small helpers shared by the corpus converter tests.

#include "core/fetch/corpora/Corpora.h"

#include <setscope/sdk/Errors.h>

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace corpustest {

inline void writeFile(const QString& path, const std::string& content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    std::ofstream f(path.toStdString(), std::ios::binary | std::ios::trunc);
    f << content;
}

inline std::string readFile(const QString& path)
{
    std::ifstream f(path.toStdString(), std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

/// The file without its first (comment) line; fails the test when that line is not "# ...".
inline std::string body(const QString& path)
{
    const std::string all = readFile(path);
    if (all.rfind("# ", 0) != 0)
        return "<no provenance comment line>\n" + all;
    return all.substr(all.find('\n') + 1);
}

/// Runs f and returns the InputError's what() ("" when nothing was thrown).
template <typename F>
std::string errorOf(F&& f)
{
    try {
        f();
    } catch (const setscope::sdk::InputError& e) {
        return e.what();
    }
    return {};
}

/// Counts per class, token statistics (white-space tokens: min / median / max) and the
/// time, for the runs on the real packages.
inline void printReport(const char* name, const setscope::fetch::corpora::CorpusStats& stats, const QString& tsv,
                        double seconds)
{
    std::ifstream f(tsv.toStdString());
    std::string line;
    std::vector<std::size_t> lengths;
    while (std::getline(f, line)) {
        if (line.rfind("#", 0) == 0)
            continue;
        std::istringstream words(line.substr(line.find('\t') + 1));
        std::size_t n = 0;
        for (std::string w; words >> w;)
            ++n;
        lengths.push_back(n);
    }
    std::sort(lengths.begin(), lengths.end());
    std::printf("== %s: %zu documents, %zu classes, %zu dropped, %.2f s\n", name, stats.documents,
                stats.perLabel.size(), stats.dropped, seconds);
    if (!lengths.empty())
        std::printf("   tokens per document: min %zu, median %zu, max %zu, total %zu\n", lengths.front(),
                    lengths[lengths.size() / 2], lengths.back(),
                    [&] { std::size_t t = 0; for (auto l : lengths) t += l; return t; }());
    for (const auto& [label, n] : stats.perLabel)
        std::printf("   %-28s %zu\n", label.c_str(), n);
    for (const std::string& note : stats.notes)
        std::printf("   note: %s\n", note.c_str());
    std::fflush(stdout);
}

inline double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace corpustest
