// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainingSink.h"

#include <chrono>
#include <mutex>
#include <string>

namespace setscope::cli {

/// Prints job progress for a terminal: a progress bar on stderr (redrawn in place when
/// stderr is a terminal, a line per 10 % otherwise), messages on stderr, and one line per
/// epoch on stdout. Called from the job's worker thread.
class ConsoleSink final : public train::TrainingSink {
public:
    ConsoleSink();
    void progress(std::int64_t done, std::int64_t total, const std::string& what) override;
    void message(const std::string& text) override;
    void epochMetrics(const train::EpochMetrics& m) override;
    void finished(job::JobStatus status, const std::string& detail) override;

    /// The line printed per epoch (also used by tests of the output format).
    static std::string formatEpoch(const train::EpochMetrics& m);

private:
    void clearBar();

    std::mutex m_mutex;
    bool m_tty = false;
    bool m_barShown = false;
    int m_lastDecile = -1;
    std::chrono::steady_clock::time_point m_lastDraw{};
};

} // namespace setscope::cli
