// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/Memory.h"

#include <setscope/sdk/Errors.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include <unistd.h>

namespace setscope::util {

namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

/// The value of "Key:   123 kB" in a /proc file, in bytes.
std::optional<std::uint64_t> procKiloBytes(const char* file, const std::string& key)
{
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() || line[key.size()] != ':')
            continue;
        std::istringstream fields(line.substr(key.size() + 1));
        std::uint64_t kb = 0;
        if (fields >> kb)
            return kb * 1024;
        return std::nullopt;
    }
    return std::nullopt;
}

/// A one-number file such as /sys/fs/cgroup/.../memory.max ("max" gives nullopt).
std::optional<std::uint64_t> numberFile(const std::string& path)
{
    std::ifstream in(path);
    std::string word;
    if (!(in >> word) || word.empty() || !std::isdigit(static_cast<unsigned char>(word[0])))
        return std::nullopt;
    return std::strtoull(word.c_str(), nullptr, 10);
}

/// Room left under this process's cgroup v2 memory limit, when it has one.
std::optional<std::uint64_t> cgroupRoom()
{
    std::ifstream in("/proc/self/cgroup");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("0::", 0) != 0)
            continue;
        const std::string dir = "/sys/fs/cgroup" + line.substr(3);
        const std::optional<std::uint64_t> max = numberFile(dir + "/memory.max");
        const std::optional<std::uint64_t> current = numberFile(dir + "/memory.current");
        if (!max)
            return std::nullopt;
        return *max > current.value_or(0) ? *max - current.value_or(0) : 0;
    }
    return std::nullopt;
}

} // namespace

std::uint64_t physicalMemoryBytes()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

namespace {

/// availableMemoryBytes(), and whether a cgroup limit lowered it (for memoryBudget's message).
std::optional<std::uint64_t> available(bool* byCgroup)
{
    std::optional<std::uint64_t> bytes = procKiloBytes("/proc/meminfo", "MemAvailable");
    const std::optional<std::uint64_t> room = cgroupRoom();
    if (room)
        bytes = bytes ? std::min(*bytes, *room) : *room;
    if (byCgroup)
        *byCgroup = room.has_value();
    return bytes;
}

} // namespace

std::optional<std::uint64_t> availableMemoryBytes() { return available(nullptr); }

std::optional<std::uint64_t> parseByteSize(const std::string& text)
{
    if (text == "off")
        return kUnlimited;
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (!(value >= 0) || used == 0 || !std::isdigit(static_cast<unsigned char>(text[0])))
        return std::nullopt;
    double scale = 1;
    if (used < text.size()) {
        if (used + 1 != text.size() && !(used + 2 == text.size() && (text[used + 1] == 'B' || text[used + 1] == 'b')))
            return std::nullopt;
        switch (std::toupper(static_cast<unsigned char>(text[used]))) {
        case 'K': scale = 1024.0; break;
        case 'M': scale = 1024.0 * 1024; break;
        case 'G': scale = 1024.0 * 1024 * 1024; break;
        case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
        case 'B':
            if (used + 1 != text.size())
                return std::nullopt;
            break;
        default: return std::nullopt;
        }
    }
    const double bytes = value * scale;
    if (bytes >= 1.8e19)
        return std::nullopt;
    return static_cast<std::uint64_t>(bytes);
}

MemoryBudget memoryBudget()
{
    if (const char* env = std::getenv("SETSCOPE_MEMORY_LIMIT"); env && *env) {
        if (const std::optional<std::uint64_t> limit = parseByteSize(env))
            return {*limit, std::string("SETSCOPE_MEMORY_LIMIT=") + env};
        // A typo must not silently remove the protection: fall through to the machine's figure.
    }
    bool byCgroup = false;
    if (const std::optional<std::uint64_t> bytes = available(&byCgroup))
        return {*bytes, "available now (MemAvailable" + std::string(byCgroup ? ", cgroup limit" : "") + ")"};
    return {physicalMemoryBytes() / 2, "half the installed RAM"};
}

void requireMemory(const std::string& file, std::uint64_t bytes, const std::string& what)
{
    const MemoryBudget budget = memoryBudget();
    if (bytes <= budget.bytes)
        return;
    std::string message = "loading it needs about " + formatBytes(bytes) + " more memory (" + what + "), but " +
                          formatBytes(budget.bytes) + " is " + budget.basis;
    if (const std::uint64_t ram = physicalMemoryBytes())
        message += " of " + formatBytes(ram) + " RAM";
    message += "; refused before reading, so that the machine does not swap. Free memory, use a subset of the file, "
               "or set SETSCOPE_MEMORY_LIMIT (e.g. SETSCOPE_MEMORY_LIMIT=off) to load it anyway";
    throw sdk::InputError(file, "", message);
}

std::uint64_t residentBytes() { return procKiloBytes("/proc/self/status", "VmRSS").value_or(0); }

std::uint64_t peakResidentBytes() { return procKiloBytes("/proc/self/status", "VmHWM").value_or(0); }

std::string formatBytes(std::uint64_t bytes)
{
    if (bytes == kUnlimited)
        return "unlimited";
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

} // namespace setscope::util
