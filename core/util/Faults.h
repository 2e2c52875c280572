// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// The fault-injection seam of setscope's own file writers (docs/RELIABILITY.md "Faults").
//
// Every writer in core that makes a file it must not leave half-written (util::writeFileAtomically
// and everything built on it: checkpoints, exports, label files, fetched files, `.npy` output;
// the pairwise cache's own writer) makes its write, fsync/msync and rename system calls through
// the functions below. They are the plain system calls unless a test has armed a fault: then the
// n-th call of one kind on a matching path fails with the armed errno instead of running. The
// seam is always compiled in; when nothing is armed it costs one relaxed atomic load per call.
// SQLite (the project store) writes through its own VFS and is tested on a full tmpfs instead.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace setscope::util::faults {

/// The kinds of call the seam counts. Write: write(2) / pwrite(2) of a whole buffer and
/// posix_fallocate (space reserved ahead). Sync: fsync(2) of a file and msync(2) of a mapped
/// range. Rename: rename(2) of a finished file (or folder) into place.
enum class Call { Write, Sync, Rename };

/// Test hook: arms one fault. From now on the `nth` (1-based) call of kind `call` whose path
/// contains `pathContains` (any path when empty) fails with `error` (ENOSPC, EIO, EXDEV, ...),
/// and only that call; the calls after it run normally. nth = 0 only counts. Replaces the plan
/// armed before and restarts the counts. Thread-safe; meant for tests, never called by setscope.
void arm(Call call, std::int64_t nth, int error, std::string pathContains = {});
/// Ends the plan: every call is the plain system call again.
void disarm();
/// Calls of kind `call` on matching paths since arm() (0 when nothing is armed).
std::int64_t count(Call call);
/// Whether the armed fault has been injected.
bool fired();

/// arm() for a scope: disarms in the destructor, also when a test fails half way.
class Armed {
public:
    Armed(Call call, std::int64_t nth, int error, std::string pathContains = {})
    {
        arm(call, nth, error, std::move(pathContains));
    }
    ~Armed() { disarm(); }
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;
};

// ---- the seam: what the writers call instead of the system calls

/// Writes all `n` bytes to `fd` (short writes and EINTR retried). False with errno set on failure.
/// `path` names the file for the fault filter (and nothing else).
bool writeAll(int fd, const void* data, std::size_t n, const char* path);
/// The same at `offset` (pwrite).
bool pwriteAll(int fd, const void* data, std::size_t n, off_t offset, const char* path);
/// posix_fallocate(fd, offset, len): 0 or the error number (it does not set errno). Counted as a Write.
int fallocate(int fd, off_t offset, off_t len, const char* path);
/// fsync(2): 0, or -1 with errno set.
int fsync(int fd, const char* path);
/// msync(2) of [addr, addr + len): 0, or -1 with errno set. Counted as a Sync.
int msync(void* addr, std::size_t len, int flags, const char* path);
/// rename(2) from `from` to `to`: 0, or -1 with errno set. The filter looks at `to`.
int rename(const char* from, const char* to);
/// renameat2(2) with RENAME_EXCHANGE (both must exist; they swap places atomically): 0, or -1
/// with errno set (EINVAL where the file system cannot). Counted as a Rename; the filter looks at `b`.
int renameExchange(const char* a, const char* b);

/// "cannot write: No space left on device (the disk is full)": strerror(err) after `what`,
/// and what it means for the errors a person can act on (a full disk or quota).
std::string describe(const std::string& what, int err);

} // namespace setscope::util::faults
