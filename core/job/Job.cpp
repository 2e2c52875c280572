// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/job/Job.h"
#include "core/job/WorkerPriority.h"

#include "core/util/Memory.h"

#include <algorithm>
#include <cerrno>
#include <chrono>

#include <sys/resource.h>
#include <unistd.h>

namespace setscope::job {

namespace {
thread_local const Job* t_currentJob = nullptr; ///< the job whose run() this thread is executing
std::atomic<int> g_workerNiceness{0};

/// Lowers the calling thread's priority by workerNiceness() (Linux: setpriority on the thread id
/// changes that thread only; threads it creates inherit it). Best effort: a refusal is ignored.
void applyWorkerNiceness()
{
    const int increment = g_workerNiceness.load(std::memory_order_relaxed);
    if (increment <= 0)
        return;
    const auto tid = static_cast<id_t>(::gettid());
    errno = 0;
    const int now = ::getpriority(PRIO_PROCESS, tid);
    if (errno == 0)
        ::setpriority(PRIO_PROCESS, tid, std::min(19, now + increment));
}
} // namespace

void setWorkerNiceness(int increment) { g_workerNiceness.store(std::clamp(increment, 0, 19), std::memory_order_relaxed); }

int workerNiceness() { return g_workerNiceness.load(std::memory_order_relaxed); }

const char* statusName(JobStatus s)
{
    switch (s) {
    case JobStatus::Idle: return "idle";
    case JobStatus::Running: return "running";
    case JobStatus::Finished: return "finished";
    case JobStatus::Cancelled: return "cancelled";
    case JobStatus::Failed: return "failed";
    }
    return "?";
}

void JobControl::requestCancel()
{
    {
        std::lock_guard lock(m_mutex);
        m_cancel = true;
    }
    m_cv.notify_all();
}

void JobControl::pause()
{
    std::lock_guard lock(m_mutex);
    m_paused = true;
}

void JobControl::resume()
{
    {
        std::lock_guard lock(m_mutex);
        m_paused = false;
    }
    m_cv.notify_all();
}

void JobControl::sampleMemory()
{
    // At most one sample per 200 ms, claimed by one thread (checkpoint() may be called from
    // several); reading /proc/self/status costs some 20 microseconds.
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    std::int64_t due = m_nextSampleNs.load(std::memory_order_relaxed);
    if (now < due || !m_nextSampleNs.compare_exchange_strong(due, now + 200'000'000, std::memory_order_relaxed))
        return;
    const std::uint64_t rss = util::residentBytes();
    std::uint64_t peak = m_peakResident.load(std::memory_order_relaxed);
    while (rss > peak && !m_peakResident.compare_exchange_weak(peak, rss, std::memory_order_relaxed)) {
    }
}

void JobControl::beginMemoryWatch()
{
    m_highWaterAtStart.store(util::peakResidentBytes(), std::memory_order_relaxed);
    m_peakResident.store(0, std::memory_order_relaxed);
    m_nextSampleNs.store(0, std::memory_order_relaxed);
    sampleMemory();
}

void JobControl::endMemoryWatch()
{
    m_nextSampleNs.store(0, std::memory_order_relaxed);
    sampleMemory();
    // A new high of the whole process during the job was reached while it ran: exact.
    const std::uint64_t high = util::peakResidentBytes();
    if (high > m_highWaterAtStart.load(std::memory_order_relaxed))
        m_peakResident.store(std::max(high, m_peakResident.load(std::memory_order_relaxed)), std::memory_order_relaxed);
}

void JobControl::checkpoint()
{
    m_polls.fetch_add(1, std::memory_order_relaxed);
    sampleMemory();
    if (m_cancel.load(std::memory_order_relaxed))
        throw Cancelled();
    if (m_paused.load(std::memory_order_relaxed)) {
        std::unique_lock lock(m_mutex);
        if (m_paused && !m_cancel) {
            m_parked.store(true, std::memory_order_release);
            m_cv.wait(lock, [this] { return !m_paused || m_cancel; });
            m_parked.store(false, std::memory_order_release);
        }
        if (m_cancel)
            throw Cancelled();
    }
}

Job::~Job() { stopAndWait(); }

void Job::stopAndWait()
{
    cancel();
    wait();
}

void Job::start(ProgressSink* sink)
{
    if (m_thread.joinable())
        throw std::logic_error("job already started");
    m_sink = sink;
    m_running = true;
    m_status = JobStatus::Running;
    m_thread = std::thread([this] {
        applyWorkerNiceness();
        execute();
    });
}

JobStatus Job::runHere(ProgressSink* sink)
{
    m_sink = sink;
    m_running = true;
    m_status = JobStatus::Running;
    return execute();
}

void Job::wait()
{
    if (t_currentJob == this)
        return; // called from the job's own run() or sink: joining itself would deadlock
    // One joiner at a time: a second caller (another thread, or the destructor) waits here
    // until the first has joined, then finds nothing left to join.
    std::lock_guard lock(m_joinMutex);
    if (m_thread.joinable())
        m_thread.join();
}

std::string Job::error() const
{
    std::lock_guard lock(m_errorMutex);
    return m_error;
}

void Job::reportProgress(std::int64_t done, std::int64_t total, const std::string& what)
{
    m_counters.done = done;
    m_counters.total = total;
    if (m_sink)
        m_sink->progress(done, total, what);
}

void Job::reportMessage(const std::string& text)
{
    if (m_sink)
        m_sink->message(text);
}

JobStatus Job::execute()
{
    struct Current { // this thread runs this job until execute() returns (runHere nests)
        const Job* previous;
        explicit Current(const Job* j) : previous(t_currentJob) { t_currentJob = j; }
        ~Current() { t_currentJob = previous; }
    } current(this);
    JobStatus st = JobStatus::Finished;
    std::string detail;
    m_control.beginMemoryWatch();
    try {
        run();
    } catch (const Cancelled&) {
        st = JobStatus::Cancelled;
    } catch (const std::exception& e) {
        st = JobStatus::Failed;
        detail = e.what();
    } catch (...) {
        st = JobStatus::Failed;
        detail = "unknown error";
    }
    {
        std::lock_guard lock(m_errorMutex);
        m_error = detail;
    }
    m_control.endMemoryWatch();
    m_status = st;
    if (m_sink) {
        if (const std::uint64_t peak = m_control.peakResidentBytes())
            m_sink->message("peak memory while the job ran: " + util::formatBytes(peak) +
                            " resident (the whole process)");
        m_sink->finished(st, detail);
    }
    // Only now: an owner that sees running() == false may destroy the sink, so the thread
    // must be done with it.
    m_running = false;
    return st;
}

} // namespace setscope::job
