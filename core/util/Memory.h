// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// How much memory the machine can give, what this process holds, and the check that refuses
// work before it would make the machine swap (docs/RELIABILITY.md, "Memory").

#include <cstdint>
#include <optional>
#include <string>

namespace setscope::util {

/// Installed RAM (sysconf), 0 when unknown.
std::uint64_t physicalMemoryBytes();

/// What can be allocated now without swapping: /proc/meminfo's MemAvailable, lowered to the
/// room left under a cgroup v2 memory limit (memory.max - memory.current) when one applies.
/// nullopt when neither is readable (not Linux).
std::optional<std::uint64_t> availableMemoryBytes();

/// The memory a single load or job may plan to use: SETSCOPE_MEMORY_LIMIT when set (bytes
/// with an optional K/M/G/T suffix, powers of 1024, e.g. "512M", "2.5G"; "off" means no limit),
/// else availableMemoryBytes(), else physicalMemoryBytes() / 2. `basis` says which, for messages.
struct MemoryBudget {
    std::uint64_t bytes = 0; ///< UINT64_MAX for "off"
    std::string basis;       ///< e.g. "available now (MemAvailable)", "SETSCOPE_MEMORY_LIMIT=512M"
};
MemoryBudget memoryBudget();

/// Parses a SETSCOPE_MEMORY_LIMIT value; nullopt for anything else than a non-negative number with
/// an optional K/M/G/T suffix (or "off", which gives UINT64_MAX).
std::optional<std::uint64_t> parseByteSize(const std::string& text);

/// Throws sdk::InputError(file, "", ...) when `bytes` exceeds memoryBudget(): the message gives the
/// estimate, what it is made of (`what`, e.g. "70 000 images of 28 x 28 as float32"), the budget and
/// its basis, and how to override. Returns normally otherwise. Cheap (reads /proc once).
void requireMemory(const std::string& file, std::uint64_t bytes, const std::string& what);

/// This process's resident memory now (VmRSS) and its peak so far (VmHWM), from
/// /proc/self/status; 0 when unknown.
std::uint64_t residentBytes();
std::uint64_t peakResidentBytes();

/// "1.5 GiB", "640 MiB", "12 KiB", "900 B": two significant decimals at most.
std::string formatBytes(std::uint64_t bytes);

} // namespace setscope::util
