// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/Job.h"
#include "core/job/ProgressSink.h"

#include <setscope/sdk/LoadContext.h>

namespace setscope::job {

/// A job's progress sink and control as the SDK's LoadContext: what a loader (built-in or
/// plugin) running inside a job reports to and polls. Either pointer may be null (then that
/// half does nothing); both must outlive this object. checkpoint() throws job::Cancelled.
class JobLoadContext final : public sdk::LoadContext {
public:
    JobLoadContext(ProgressSink* sink, JobControl* control)
        : m_sink(sink)
        , m_control(control)
    {
    }

    void progress(std::int64_t done, std::int64_t total, const std::string& what) override
    {
        if (m_sink)
            m_sink->progress(done, total, what);
    }
    void message(const std::string& text) override
    {
        if (m_sink)
            m_sink->message(text);
    }
    void checkpoint() override
    {
        if (m_control)
            m_control->checkpoint();
    }
    bool cancelRequested() const override { return m_control && m_control->cancelRequested(); }
    bool paused() const override { return m_control && m_control->paused(); }

private:
    ProgressSink* m_sink;
    JobControl* m_control;
};

} // namespace setscope::job
