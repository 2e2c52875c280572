// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Caps the test process's address space for one scope. A reader that allocates what a
// crafted header claims then fails inside the test (std::bad_alloc, which the test
// reports) instead of taking the shared machine's memory, and a test can tell "refused
// before allocating" from "allocated, then refused".

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>

namespace setscope::testing {

/// Bytes of address space the process has mapped now (VmSize), 0 when unknown.
inline std::uint64_t mappedBytes()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmSize:") {
            std::uint64_t kb = 0;
            status >> kb;
            return kb * 1024;
        }
        std::getline(status, key);
    }
    return 0;
}

/// While alive, the process may map at most `budgetBytes` more than it had mapped when
/// the cap was set (RLIMIT_AS, restored by the destructor). Single-threaded tests only.
class AllocationCap {
public:
    explicit AllocationCap(std::uint64_t budgetBytes = std::uint64_t(256) << 20)
    {
        const std::uint64_t now = mappedBytes();
        if (now == 0 || getrlimit(RLIMIT_AS, &m_old) != 0)
            return;
        rlimit capped = m_old;
        capped.rlim_cur = m_old.rlim_cur == RLIM_INFINITY ? static_cast<rlim_t>(now + budgetBytes)
                                                           : std::min<rlim_t>(m_old.rlim_cur, now + budgetBytes);
        m_active = setrlimit(RLIMIT_AS, &capped) == 0;
    }
    ~AllocationCap()
    {
        if (m_active)
            setrlimit(RLIMIT_AS, &m_old);
    }
    AllocationCap(const AllocationCap&) = delete;
    AllocationCap& operator=(const AllocationCap&) = delete;

    /// False when the limit could not be set (the test then runs uncapped).
    bool active() const { return m_active; }

private:
    rlimit m_old{};
    bool m_active = false;
};

} // namespace setscope::testing
