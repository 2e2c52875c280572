// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>

namespace setscope::job {

enum class JobStatus { Idle, Running, Finished, Cancelled, Failed };
const char* statusName(JobStatus s);

/// What any long job reports: progress, log lines, and its end. Called on the job's worker
/// thread; implementations forward (the GUI's QtJobSink queues signals). Kinds of job
/// with more to say extend it (train::TrainingSink).
class ProgressSink {
public:
    virtual ~ProgressSink() = default;
    /// `done` of `total` units (total 0 = unknown); `what` says what is being done.
    virtual void progress(std::int64_t done, std::int64_t total, const std::string& what) {}
    /// A line for the user's log.
    virtual void message(const std::string& text) {}
    /// Last call of a job: its final status and, for Failed, the reason.
    virtual void finished(JobStatus status, const std::string& detail) {}
};

} // namespace setscope::job
