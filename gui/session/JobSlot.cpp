// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/session/JobSlot.h"

#include <stdexcept>

namespace setscope::gui {

RetiredJobs::~RetiredJobs()
{
    cancelAll();
    m_entries.clear(); // each entry joins its job, then frees the sinks
}

void RetiredJobs::add(Entry entry)
{
    if (!entry.job)
        return; // sinks without a job: nothing can call them any more
    entry.job->cancel();
    m_entries.push_back(std::move(entry));
    if (m_onAdded)
        m_onAdded();
}

void RetiredJobs::reap()
{
    std::erase_if(m_entries, [](const Entry& e) { return !e.job->running(); });
}

void RetiredJobs::cancelAll()
{
    for (Entry& e : m_entries)
        e.job->cancel();
}

JobSlot::~JobSlot()
{
    m_job.reset(); // joins first: its thread may still be inside a sink call
    m_sink.reset();
}

void JobSlot::adopt(std::unique_ptr<QtJobSink> sink)
{
    retire();
    ++m_generation;
    m_sink = std::move(sink);
}

void JobSlot::start(std::unique_ptr<job::Job> job)
{
    checkStartable();
    job::Job* raw = job.get();
    m_job = std::move(job);
    raw->start(m_sink->reportTarget());
}

void JobSlot::checkStartable() const
{
    if (!m_sink)
        throw std::logic_error("JobSlot::start without prepare()");
    if (m_job)
        throw std::logic_error("JobSlot::start while the slot still holds a job");
}

void JobSlot::retire()
{
    ++m_generation;
    RetiredJobs::Entry e;
    e.sink = std::move(m_sink);
    e.job = std::move(m_job);
    m_retired.add(std::move(e)); // without a job the sink is freed here
}

} // namespace setscope::gui
