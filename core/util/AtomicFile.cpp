// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/AtomicFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace setscope::util {

namespace {

/// fsync of a file or folder by name; false when it cannot be opened or synced.
bool syncPath(const std::filesystem::path& p, int flags)
{
    const int fd = ::open(p.c_str(), flags | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

} // namespace

void writeFileAtomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill)
{
    namespace fs = std::filesystem;
    const fs::path part = fs::path(path) += ".part";
    const auto discard = [&] {
        std::error_code ec;
        fs::remove(part, ec);
    };
    try {
        std::ofstream out(part, std::ios::binary | std::ios::trunc);
        if (!out)
            throw std::runtime_error(path.string() + ": cannot write (" + std::strerror(errno) + ")");
        fill(out);
        out.flush();
        out.close();
        if (!out)
            throw std::runtime_error(path.string() + ": write failed (disk full?)");
    } catch (...) {
        discard();
        throw;
    }
    if (!syncPath(part, O_RDONLY)) {
        const std::string cause = std::strerror(errno);
        discard();
        throw std::runtime_error(path.string() + ": cannot write to disk (fsync: " + cause + ")");
    }
    std::error_code ec;
    fs::rename(part, path, ec);
    if (ec) {
        discard();
        throw std::runtime_error(path.string() + ": cannot replace the file: " + ec.message());
    }
    const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
    syncPath(folder, O_RDONLY | O_DIRECTORY); // makes the rename durable; best effort (some filesystems refuse)
}

} // namespace setscope::util
