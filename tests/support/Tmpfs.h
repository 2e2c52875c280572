// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// A small tmpfs mounted for one test: a real disk that fills up (ENOSPC from the kernel, not
// from the fault seam). Mounting needs root (CI runs as root); elsewhere ok() is false and
// reason() says why, for a QSKIP. Unmounted (lazily, so an open file cannot keep it) and its
// folder removed in the destructor, whatever path the test leaves by.

#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace setscope::testutil {

class Tmpfs {
public:
    explicit Tmpfs(std::size_t bytes)
    {
        if (::geteuid() != 0) {
            m_reason = "mounting a small tmpfs (a disk that really fills up) needs root";
            return;
        }
        std::string tmpl = (std::filesystem::temp_directory_path() / "setscope-tmpfs-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) {
            m_reason = std::string("cannot create a mount point: ") + std::strerror(errno);
            return;
        }
        m_path = tmpl;
        const std::string opts = "size=" + std::to_string(bytes) + ",mode=0755";
        if (::mount("tmpfs", m_path.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0) {
            m_reason = std::string("cannot mount a tmpfs (") + std::strerror(errno) + "), e.g. in a container without CAP_SYS_ADMIN";
            std::error_code ec;
            std::filesystem::remove(m_path, ec);
            m_path.clear();
            return;
        }
        m_mounted = true;
    }
    ~Tmpfs()
    {
        if (m_mounted)
            ::umount2(m_path.c_str(), MNT_DETACH);
        if (!m_path.empty()) {
            std::error_code ec;
            std::filesystem::remove(m_path, ec);
        }
    }
    Tmpfs(const Tmpfs&) = delete;
    Tmpfs& operator=(const Tmpfs&) = delete;

    bool ok() const { return m_mounted; }
    const char* reason() const { return m_reason.c_str(); }
    const std::filesystem::path& path() const { return m_path; }

    /// Bytes still free for an ordinary user of the file system.
    std::uint64_t freeBytes() const
    {
        struct statvfs s {};
        if (::statvfs(m_path.c_str(), &s) != 0)
            return 0;
        return static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize;
    }

    /// Fills the file system with `filler` until the kernel says ENOSPC, leaving `keep` bytes free
    /// (rounded down to what the file system grants). False if it could not write at all.
    bool fill(std::uint64_t keep = 0)
    {
        const std::filesystem::path f = m_path / "filler";
        std::ofstream out(f, std::ios::binary | std::ios::app);
        const std::vector<char> block(4096, 'x');
        while (freeBytes() > keep + block.size()) {
            if (!out.write(block.data(), static_cast<std::streamsize>(block.size())) || !out.flush())
                break;
        }
        if (keep == 0) { // the last partial page too
            while (out.write(block.data(), 1) && out.flush()) {
            }
        }
        return std::filesystem::exists(f);
    }
    /// Removes the filler: the disk has room again.
    void release()
    {
        std::error_code ec;
        std::filesystem::remove(m_path / "filler", ec);
    }

private:
    std::filesystem::path m_path;
    std::string m_reason;
    bool m_mounted = false;
};

} // namespace setscope::testutil
