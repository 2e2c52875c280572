// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/Job.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace setscope::job {

/// A job made of one function that computes a value: for the short requests of a view
/// (one retrieval, one augmentation, one flow) that must not block the GUI thread but need
/// no job class of their own. The function gets the job's control (poll it, or pass it to
/// what supports cancel) and a progress callback; an exception it throws makes the job
/// Failed with its message, job::Cancelled makes it Cancelled.
template <class T>
class TaskJob final : public Job {
public:
    using Progress = std::function<void(std::int64_t done, std::int64_t total, const std::string& what)>;
    using Fn = std::function<T(JobControl& control, const Progress& progress)>;

    /// `what` is the first progress line ("retrieving item 12 …").
    TaskJob(std::string what, Fn fn)
        : m_what(std::move(what))
        , m_fn(std::move(fn))
    {
    }
    ~TaskJob() override { stopAndWait(); }

    /// The value once the job has Finished; null before, and after a failure or cancel.
    std::shared_ptr<const T> result() const
    {
        std::lock_guard lock(m_mutex);
        return m_result;
    }

protected:
    void run() override
    {
        reportProgress(0, 0, m_what);
        const Progress progress = [this](std::int64_t done, std::int64_t total, const std::string& what) {
            reportProgress(done, total, what);
        };
        auto value = std::make_shared<const T>(m_fn(control(), progress));
        std::lock_guard lock(m_mutex);
        m_result = std::move(value);
    }

private:
    std::string m_what;
    Fn m_fn;
    mutable std::mutex m_mutex;
    std::shared_ptr<const T> m_result;
};

} // namespace setscope::job
