// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/job/Job.h"

namespace setscope::job {

namespace {
thread_local const Job* t_currentJob = nullptr; ///< the job whose run() this thread is executing
}

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

void JobControl::checkpoint()
{
    m_polls.fetch_add(1, std::memory_order_relaxed);
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
    m_thread = std::thread([this] { execute(); });
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
    m_status = st;
    if (m_sink)
        m_sink->finished(st, detail);
    // Only now: an owner that sees running() == false may destroy the sink, so the thread
    // must be done with it.
    m_running = false;
    return st;
}

} // namespace setscope::job
