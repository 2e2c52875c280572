// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/InputBudget.h"

#include "core/util/Memory.h"

#include <setscope/sdk/Errors.h>

namespace setscope::util {

InputBudget::InputBudget(std::string file, std::uint64_t work)
    : m_file(std::move(file))
    , m_workLimit(work)
{
    const MemoryBudget budget = memoryBudget();
    m_byteLimit = budget.bytes;
    m_basis = budget.basis;
}

void InputBudget::refuseBytes(const std::string& where, std::uint64_t bytes, const char* what) const
{
    std::string message = "reading it needs more than " + formatBytes(m_byteLimit) + " of memory (" + what + ": " +
                          formatBytes(m_bytes) + " so far and " + formatBytes(bytes) + " more; " +
                          formatBytes(m_byteLimit) + " is " + m_basis + ")";
    message += "; refused while reading, so that the machine does not swap. Free memory or set "
               "SETSCOPE_MEMORY_LIMIT (e.g. SETSCOPE_MEMORY_LIMIT=off) to read it anyway";
    throw sdk::InputError(m_file, where, message);
}

void InputBudget::refuseWork(const std::string& where, const char* what) const
{
    throw sdk::InputError(m_file, where,
                          "reading it takes more than " + std::to_string(m_workLimit) + " steps (" + what +
                              "); what setscope writes takes a small fraction of that, so the input is refused as "
                              "one built to make its reader work without end");
}

void InputBudget::poll()
{
    m_nextPoll = m_work + kPollEvery;
    if (m_poll)
        m_poll();
}

} // namespace setscope::util
