// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/ProgressSink.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace setscope::job {

/// Thrown inside a job by JobControl::checkpoint() when cancel was requested; caught by
/// Job's thread function.
class Cancelled : public std::exception {
public:
    const char* what() const noexcept override { return "cancelled"; }
};

/// Shared cancel / pause state of one job. Cancel and pause may be requested from any
/// thread; the worker polls checkpoint() (or cancelRequested() where it cannot throw, e.g.
/// inside an OpenMP region) often enough to stop within a second.
///
/// "Often enough" is what tests check, by counting rather than timing: polls() says how
/// many times the worker has asked, so a test can bound the work between two polls, and
/// parked() says when a paused worker is really blocked, so a test can wait for that
/// instead of sleeping. Wall-clock latencies are measured in bench/jobs.
class JobControl {
public:
    void requestCancel();
    void pause();
    void resume();
    /// Worker side, never throws (for regions an exception must not leave). Counts as a poll.
    bool cancelRequested() const
    {
        m_polls.fetch_add(1, std::memory_order_relaxed);
        return m_cancel.load(std::memory_order_relaxed);
    }
    bool paused() const { return m_paused.load(std::memory_order_relaxed); }

    /// Called by the worker: throws Cancelled when cancel was requested; blocks while
    /// paused (and wakes immediately on cancel). Counts as a poll.
    void checkpoint();

    /// How many times the worker has polled (checkpoint() and cancelRequested()). Any thread.
    std::uint64_t polls() const { return m_polls.load(std::memory_order_relaxed); }
    /// True while a worker is blocked in checkpoint() because of a pause: from then on it does
    /// no work until resume() or requestCancel(). Any thread.
    bool parked() const { return m_parked.load(std::memory_order_acquire); }

    /// The largest resident memory of the process seen while the job ran (bytes; 0 before the
    /// first sample). The process's: jobs running at once share it. Exact when the process
    /// reached a new high during the job (VmHWM rose); otherwise the largest of the samples
    /// checkpoint() takes every 200 ms or so. Any thread.
    std::uint64_t peakResidentBytes() const { return m_peakResident.load(std::memory_order_relaxed); }
    /// Called by Job around run(): first and last samples.
    void beginMemoryWatch();
    void endMemoryWatch();

private:
    void sampleMemory();

    std::atomic<std::uint64_t> m_peakResident{0};
    std::atomic<std::uint64_t> m_highWaterAtStart{0};
    std::atomic<std::int64_t> m_nextSampleNs{0};
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_paused{false};
    std::atomic<bool> m_parked{false};
    mutable std::atomic<std::uint64_t> m_polls{0};
    std::mutex m_mutex;
    std::condition_variable m_cv;
};

/// Progress counters readable without locks from any thread (e.g. every GUI frame).
struct ProgressCounters {
    std::atomic<std::int64_t> done{0};
    std::atomic<std::int64_t> total{0};
    std::atomic<int> epoch{0};
    std::atomic<double> lastLoss{0.0};
};

/// A unit of long work on its own std::thread: training, evaluation, layout, EMD matrices.
/// Subclasses implement run(); the Job owns the thread. Every subclass destructor must
/// call stopAndWait() first (run() uses the subclass's members, which die before ~Job).
class Job {
public:
    Job() = default;
    virtual ~Job();
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;

    /// Starts run() on a worker thread. `sink` may be nullptr and must outlive the job.
    void start(ProgressSink* sink);
    /// Runs on the calling thread (CLI); returns the final status.
    JobStatus runHere(ProgressSink* sink);

    /// Virtual for a job that runs another inside it (workspace::RunLaunchJob), which passes
    /// them on; an override must call these too.
    virtual void cancel() { m_control.requestCancel(); }
    virtual void pause() { m_control.pause(); }
    virtual void resume() { m_control.resume(); }
    bool paused() const { return m_control.paused(); }
    /// True while the worker is blocked by a pause (see JobControl::parked()).
    bool parked() const { return m_control.parked(); }
    /// How many times the worker has polled for cancel / pause (see JobControl::polls()).
    std::uint64_t polls() const { return m_control.polls(); }
    /// Blocks until the worker finishes (no-op when not started). Any number of threads may
    /// wait at once; all return once the worker has ended.
    void wait();
    /// True from start() until the worker is done, including its last sink call
    /// (ProgressSink::finished): once false, the job no longer touches its sink.
    bool running() const { return m_running.load(); }
    JobStatus status() const { return m_status.load(); }
    /// The failure message when status() == Failed.
    std::string error() const;

    const ProgressCounters& counters() const { return m_counters; }
    /// See JobControl::peakResidentBytes(); final once running() is false. Job reports it to
    /// its sink as a message just before finished().
    std::uint64_t peakResidentBytes() const { return m_control.peakResidentBytes(); }

protected:
    /// Requests cancel and joins the worker. Safe to call more than once.
    void stopAndWait();

    /// The work. Call control().checkpoint() regularly; report through sink (may be null:
    /// use the helpers below).
    virtual void run() = 0;

    JobControl& control() { return m_control; }
    ProgressCounters& mutableCounters() { return m_counters; }
    ProgressSink* sink() const { return m_sink; }
    void reportProgress(std::int64_t done, std::int64_t total, const std::string& what);
    void reportMessage(const std::string& text);

private:
    JobStatus execute();

    JobControl m_control;
    ProgressCounters m_counters;
    ProgressSink* m_sink = nullptr;
    std::thread m_thread;
    std::mutex m_joinMutex; ///< serialises joins of m_thread (wait() from several threads)
    std::atomic<bool> m_running{false};
    std::atomic<JobStatus> m_status{JobStatus::Idle};
    mutable std::mutex m_errorMutex;
    std::string m_error;
};

} // namespace setscope::job
