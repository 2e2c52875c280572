// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/Job.h"
#include "core/job/ProgressSink.h"
#include "gui/bridge/QtJobSink.h"

#include <QObject>

#include <functional>
#include <list>
#include <memory>
#include <stdexcept>
#include <utility>

namespace setscope::gui {

/// Jobs asked to stop whose threads may still run. They are kept until their threads have
/// ended (reap()), so the GUI thread never blocks on a worker; only the destructor joins
/// (after asking all of them to stop, so the joins overlap).
class RetiredJobs {
public:
    /// A job with the sink it reports to. The job is declared last so it is destroyed
    /// (joined) first: its thread may still be inside a sink call when it reports its end.
    struct Entry {
        std::unique_ptr<QtJobSink> sink;
        std::unique_ptr<job::Job> job;
    };

    RetiredJobs() = default;
    RetiredJobs(const RetiredJobs&) = delete;
    RetiredJobs& operator=(const RetiredJobs&) = delete;
    ~RetiredJobs();

    /// Cancels the entry's job and keeps the entry until the job's thread has ended; then
    /// calls the hook set by onAdded() (the session starts its poll timer there, which reaps).
    void add(Entry entry);
    void onAdded(std::function<void()> hook) { m_onAdded = std::move(hook); }
    /// Drops (and so joins, at once) the entries whose jobs no longer run.
    void reap();
    bool empty() const { return m_entries.empty(); }
    /// Asks every job kept here to stop (without waiting).
    void cancelAll();

private:
    /// A list: erasing one entry destroys it in place (job first), where a vector would
    /// move-assign the next entry over it.
    std::list<Entry> m_entries;
    std::function<void()> m_onAdded;
};

/// One kind of job the session runs, one at a time: the dataset load, the training run,
/// the map, the baseline, a fetch... Holds the current job, the Qt sink it reports to, and
/// a generation that tells the current job's queued signals from those of the jobs it
/// replaced: a handler connected with on() runs only while the job it was connected for is
/// the slot's current one.
///
/// Use: `slot.prepare()` (retires the previous job; `prepare<QtTrainingSink>()` for a job
/// that reports more than progress), then `slot.on(&QtJobSink::jobFinished, this, ...)` for
/// each signal wanted, then `slot.start(std::move(job))`. retire() cancels the current job,
/// hands it to the RetiredJobs and makes its late signals void. GUI thread only.
class JobSlot {
public:
    explicit JobSlot(RetiredJobs& retired)
        : m_retired(retired)
    {
    }
    JobSlot(const JobSlot&) = delete;
    JobSlot& operator=(const JobSlot&) = delete;
    /// Joins the current job (cancel it first to be quick), then frees its sink.
    ~JobSlot();

    /// Retires the current job (if any) and makes a fresh sink of kind `Sink` (a QtJobSink
    /// or a kind of it) for the next one. Handlers connected with on() from now on belong to
    /// the next job. Returns the sink.
    template <class Sink = QtJobSink>
    Sink* prepare()
    {
        auto sink = std::make_unique<Sink>();
        Sink* raw = sink.get();
        adopt(std::move(sink));
        return raw;
    }

    /// Connects `signal` of the sink made by the last prepare() to `handler`, called in
    /// `context`'s thread (queued: the sink is called from the job's thread) with the
    /// signal's arguments, only while that job is still this slot's current one. Throws
    /// std::logic_error when the prepared sink is not of the signal's class (a training
    /// signal on a slot prepared with a plain QtJobSink).
    template <class Sender, class... Params, class Handler>
    void on(void (Sender::*signal)(Params...), QObject* context, Handler handler)
    {
        Sender* sender = qobject_cast<Sender*>(m_sink.get());
        if (!sender)
            throw std::logic_error(std::string("JobSlot::on: the prepared sink has no signal of ") +
                                   Sender::staticMetaObject.className());
        const quint64 generation = m_generation;
        QObject::connect(sender, signal, context,
                         [this, generation, handler = std::move(handler)](auto&&... args) {
                             if (generation == m_generation)
                                 handler(std::forward<decltype(args)>(args)...);
                         });
    }

    /// Takes `job` and starts it (Job::start) with the prepared sink's reportTarget(): a job
    /// that reports more than progress (train::TrainingJob) finds out from that target's
    /// type, so any job is started the same way. Throws std::logic_error without a prepare()
    /// or while the slot still holds a job.
    void start(std::unique_ptr<job::Job> job);

    /// Cancels the current job and hands it (with its sinks) to the RetiredJobs; its queued
    /// signals are ignored from now on. Also drops a prepared sink that has no job yet.
    void retire();

    /// The current job (nullptr when none); it stays here after it ended until retired.
    job::Job* job() const { return m_job.get(); }
    template <class J>
    J* jobAs() const
    {
        return static_cast<J*>(m_job.get());
    }
    bool hasJob() const { return m_job != nullptr; }
    /// The current job exists and its thread still runs.
    bool running() const { return m_job && m_job->running(); }
    /// Counts prepare() and retire() calls: the current job's identity. For tests.
    quint64 generation() const { return m_generation; }

private:
    void adopt(std::unique_ptr<QtJobSink> sink);
    void checkStartable() const;

    RetiredJobs& m_retired;
    quint64 m_generation = 0;
    std::unique_ptr<QtJobSink> m_sink;
    std::unique_ptr<job::Job> m_job; ///< declared last: destroyed (joined) first
};

} // namespace setscope::gui
