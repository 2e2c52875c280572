// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "ConsoleSink.h"

#include "core/eval/Metrics.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace setscope::cli {

ConsoleSink::ConsoleSink()
    : m_tty(isatty(STDERR_FILENO) != 0)
{
}

void ConsoleSink::clearBar()
{
    if (m_barShown) {
        std::fprintf(stderr, "\r\033[K");
        m_barShown = false;
    }
}

void ConsoleSink::progress(std::int64_t done, std::int64_t total, const std::string& what)
{
    std::lock_guard lock(m_mutex);
    if (total <= 0)
        return;
    const double frac = static_cast<double>(done) / static_cast<double>(total);
    if (m_tty) {
        const auto now = std::chrono::steady_clock::now();
        if (done != total && now - m_lastDraw < std::chrono::milliseconds(100))
            return;
        m_lastDraw = now;
        constexpr int kWidth = 30;
        const int filled = static_cast<int>(frac * kWidth);
        std::string bar(static_cast<std::size_t>(filled), '#');
        bar.append(static_cast<std::size_t>(kWidth - filled), '.');
        std::fprintf(stderr, "\r\033[K[%s] %3d%% %lld/%lld %s", bar.c_str(), static_cast<int>(frac * 100),
                     static_cast<long long>(done), static_cast<long long>(total), what.c_str());
        std::fflush(stderr);
        m_barShown = true;
    } else {
        const int decile = static_cast<int>(frac * 10);
        if (decile != m_lastDecile) {
            m_lastDecile = decile;
            std::fprintf(stderr, "progress: %3d%% (%lld/%lld) %s\n", decile * 10, static_cast<long long>(done),
                         static_cast<long long>(total), what.c_str());
        }
    }
}

void ConsoleSink::message(const std::string& text)
{
    std::lock_guard lock(m_mutex);
    clearBar();
    std::fprintf(stderr, "%s\n", text.c_str());
}

std::string ConsoleSink::formatEpoch(const train::EpochMetrics& m)
{
    char buf[512];
    int n = std::snprintf(buf, sizeof buf, "epoch %d  step %lld  loss %.5f", m.epoch, static_cast<long long>(m.step),
                          m.meanLoss);
    if (!m.stage.empty() && m.stage != "train")
        n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), "  [%s]", m.stage.c_str());
    std::string line = buf;
    for (const auto& [name, value] : m.values) {
        // Shares (accuracies, recalls, precisions, the padding share) with four decimals,
        // counts and seconds with four significant digits.
        const std::string label = eval::shortMetricName(name);
        const bool share = label != name || name == "validation-knn" || name == "padding-share";
        char v[64];
        std::snprintf(v, sizeof v, share ? "  %s %.4f" : "  %s %.4g", label.c_str(), value);
        line += v;
    }
    std::snprintf(buf, sizeof buf, "  (%.1fs)", m.seconds);
    return line + buf;
}

void ConsoleSink::epochMetrics(const train::EpochMetrics& m)
{
    std::lock_guard lock(m_mutex);
    clearBar();
    std::cout << formatEpoch(m) << std::endl;
}

void ConsoleSink::finished(job::JobStatus status, const std::string& detail)
{
    std::lock_guard lock(m_mutex);
    clearBar();
    if (status == job::JobStatus::Failed)
        std::fprintf(stderr, "error: %s\n", detail.c_str());
    else if (status == job::JobStatus::Cancelled)
        std::fprintf(stderr, "cancelled\n");
}

} // namespace setscope::cli
