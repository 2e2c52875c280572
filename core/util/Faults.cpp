// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/Faults.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace setscope::util::faults {

namespace {

// Armed is read on every call without the lock; the plan itself only under it.
std::atomic<bool> g_armed{false};

struct Plan {
    Call call = Call::Write;
    std::int64_t nth = 0;
    int error = 0;
    std::string pathContains;
    std::int64_t counts[3] = {0, 0, 0};
    bool fired = false;
};

std::mutex& planMutex()
{
    static std::mutex m;
    return m;
}

Plan& plan()
{
    static Plan p;
    return p;
}

/// True (errno set to the armed error) when this call is the one to fail.
bool inject(Call call, const char* path)
{
    if (!g_armed.load(std::memory_order_relaxed))
        return false;
    std::lock_guard lock(planMutex());
    Plan& p = plan();
    if (!g_armed.load(std::memory_order_relaxed))
        return false;
    if (!p.pathContains.empty() && (!path || std::strstr(path, p.pathContains.c_str()) == nullptr))
        return false;
    const std::int64_t n = ++p.counts[static_cast<int>(call)];
    if (call != p.call || n != p.nth)
        return false;
    p.fired = true;
    errno = p.error;
    return true;
}

} // namespace

void arm(Call call, std::int64_t nth, int error, std::string pathContains)
{
    std::lock_guard lock(planMutex());
    Plan& p = plan();
    p = Plan{};
    p.call = call;
    p.nth = nth;
    p.error = error;
    p.pathContains = std::move(pathContains);
    g_armed.store(true, std::memory_order_relaxed);
}

void disarm()
{
    std::lock_guard lock(planMutex());
    g_armed.store(false, std::memory_order_relaxed);
    plan() = Plan{};
}

std::int64_t count(Call call)
{
    std::lock_guard lock(planMutex());
    return plan().counts[static_cast<int>(call)];
}

bool fired()
{
    std::lock_guard lock(planMutex());
    return plan().fired;
}

namespace {

/// Writes all `n` bytes with `put(p, n, done)` (write or pwrite at offset + done), retrying on
/// EINTR and short writes; a zero-byte write counts as EIO.
template <typename Put>
bool putAll(const void* data, std::size_t n, Put put)
{
    const char* p = static_cast<const char*>(data);
    std::size_t done = 0;
    while (done < n) {
        const ssize_t w = put(p + done, n - done, done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return false;
        if (w == 0) {
            errno = EIO;
            return false;
        }
        done += static_cast<std::size_t>(w);
    }
    return true;
}

} // namespace

bool writeAll(int fd, const void* data, std::size_t n, const char* path)
{
    if (inject(Call::Write, path))
        return false;
    return putAll(data, n, [fd](const char* p, std::size_t left, std::size_t) { return ::write(fd, p, left); });
}

bool pwriteAll(int fd, const void* data, std::size_t n, off_t offset, const char* path)
{
    if (inject(Call::Write, path))
        return false;
    return putAll(data, n, [fd, offset](const char* p, std::size_t left, std::size_t done) {
        return ::pwrite(fd, p, left, offset + static_cast<off_t>(done));
    });
}

int fallocate(int fd, off_t offset, off_t len, const char* path)
{
    if (inject(Call::Write, path))
        return errno;
    return ::posix_fallocate(fd, offset, len);
}

int fsync(int fd, const char* path)
{
    if (inject(Call::Sync, path))
        return -1;
    return ::fsync(fd);
}

int msync(void* addr, std::size_t len, int flags, const char* path)
{
    if (inject(Call::Sync, path))
        return -1;
    return ::msync(addr, len, flags);
}

int rename(const char* from, const char* to)
{
    if (inject(Call::Rename, to))
        return -1;
    return std::rename(from, to);
}

int renameExchange(const char* a, const char* b)
{
    if (inject(Call::Rename, b))
        return -1;
    return ::renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

std::string describe(const std::string& what, int err)
{
    std::string s = what + ": " + std::strerror(err);
    if (err == ENOSPC)
        s += " (the disk is full)";
    else if (err == EDQUOT)
        s += " (the disk quota is used up)";
    return s;
}

} // namespace setscope::util::faults
