// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainingSink.h"

#include <chrono>
#include <mutex>

namespace setscope::cli {

/// `train --events`: what a run reports, as one JSON object per line on stdout, for programs
/// that drive the CLI (the GUI's multi-process runs; docs/CLI.md "Events"):
///   {"event":"progress","done":D,"total":T,"what":"..."}      at most ~10 per second, and the last
///   {"event":"loss","step":S,"loss":L}
///   {"event":"epoch","epoch":E,"step":S,"mean_loss":L,"seconds":X,"stage":"...","values":[["name",v],...]}
///   {"event":"checkpoint","step":S,"path":"..."}
///   {"event":"message","text":"..."}
///   {"event":"finished","status":"finished"|"cancelled"|"failed","detail":"..."}
/// Non-finite numbers are written as null.
class EventSink final : public train::TrainingSink {
public:
    void progress(std::int64_t done, std::int64_t total, const std::string& what) override;
    void message(const std::string& text) override;
    void finished(job::JobStatus status, const std::string& detail) override;
    void stepLoss(std::int64_t step, double loss) override;
    void epochMetrics(const train::EpochMetrics& m) override;
    void checkpointWritten(std::int64_t step, const std::string& path) override;

private:
    std::mutex m_mutex;
    std::chrono::steady_clock::time_point m_lastProgress{};
};

} // namespace setscope::cli
