// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// What reading one input from outside may cost (docs/RELIABILITY.md, "Budgets"): the memory
// its reader allocates for what the bytes describe, and the work (visits, nodes, opcodes) it
// does on them, charged as it goes. A reader whose cost is not bounded by the bytes it reads
// -- a deflated record, a pickle whose memo references share one value many times, a format
// whose records point at each other -- charges every allocation and every step, so that a
// small file cannot make it allocate gigabytes or run for hours: it is refused with the file,
// the record and the figure that was crossed.

#include <cstdint>
#include <functional>
#include <string>

namespace setscope::util {

class InputBudget {
public:
    /// Work units one input may cost by default: 2^25 (about a second of the simplest steps
    /// on the 2-core reference machine). What setscope reads from its own files costs a
    /// small fraction of it.
    static constexpr std::uint64_t kDefaultWork = std::uint64_t{1} << 25;
    /// How many work units pass between two calls of the poll function.
    static constexpr std::uint64_t kPollEvery = std::uint64_t{1} << 16;

    /// `file` names the input in errors. The memory limit is util::memoryBudget() when the
    /// budget is made (SETSCOPE_MEMORY_LIMIT, else what is available now), the work limit
    /// `work`.
    explicit InputBudget(std::string file, std::uint64_t work = kDefaultWork);

    /// Called every kPollEvery units of work on the charging thread; it may throw (a job's
    /// cancel: JobControl::checkpoint()), and the exception leaves the reader.
    void setPoll(std::function<void()> poll) { m_poll = std::move(poll); }

    /// Charges `bytes` the reader is about to allocate for `what` (e.g. "pickle values"):
    /// throws sdk::InputError(file, where(), ...) with the total, the budget and its basis when
    /// the total would cross the memory limit. Nothing is allocated by the call. `where` is a
    /// string, or a callable giving one (called only to refuse: the record and offset).
    template <class Where>
    void chargeBytes(std::uint64_t bytes, const Where& where, const char* what)
    {
        if (bytes > m_byteLimit || m_bytes > m_byteLimit - bytes)
            refuseBytes(whereText(where), bytes, what);
        m_bytes += bytes;
    }
    /// Charges `units` of work: throws sdk::InputError(file, where(), ...) when the total
    /// crosses the work limit; calls the poll function every kPollEvery units.
    template <class Where>
    void chargeWork(std::uint64_t units, const Where& where, const char* what)
    {
        if (units > m_workLimit || m_work > m_workLimit - units)
            refuseWork(whereText(where), what);
        m_work += units;
        if (m_work >= m_nextPoll)
            poll();
    }
    /// Gives back bytes charged earlier (memory the reader has freed again).
    void releaseBytes(std::uint64_t bytes) { m_bytes = bytes > m_bytes ? 0 : m_bytes - bytes; }

    std::uint64_t bytes() const { return m_bytes; }
    std::uint64_t work() const { return m_work; }
    std::uint64_t byteLimit() const { return m_byteLimit; }
    std::uint64_t workLimit() const { return m_workLimit; }
    const std::string& file() const { return m_file; }

private:
    static const std::string& whereText(const std::string& s) { return s; }
    static std::string whereText(const char* s) { return s; }
    template <class F>
    static std::string whereText(const F& f)
    {
        return f();
    }
    [[noreturn]] void refuseBytes(const std::string& where, std::uint64_t bytes, const char* what) const;
    [[noreturn]] void refuseWork(const std::string& where, const char* what) const;
    void poll();

    std::string m_file;
    std::string m_basis;
    std::uint64_t m_byteLimit = 0;
    std::uint64_t m_workLimit = 0;
    std::uint64_t m_bytes = 0;
    std::uint64_t m_work = 0;
    std::uint64_t m_nextPoll = kPollEvery;
    std::function<void()> m_poll;
};

} // namespace setscope::util
