// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/AtomicFile.h"

#include "core/util/Faults.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

namespace setscope::util {

namespace {

/// fsync of a folder by name, best effort (some filesystems refuse).
void syncFolder(const std::filesystem::path& p)
{
    const int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    ::fsync(fd);
    ::close(fd);
}

/// An output stream buffer over a file descriptor whose writes go through the fault seam. The
/// first failing write's errno is kept (a std::ofstream forgets it), so the message can say why,
/// and from then on the bytes are dropped while the stream stays good: a writer that reacts to
/// a failed stream by throwing from a destructor takes the process down (LibTorch's archive
/// writer does: its destructor finishes the archive and throws again, inside the unwinding of
/// its first "failed writing" error, so std::terminate). The failure is reported once `fill`
/// has returned.
class FdStreamBuf final : public std::streambuf {
public:
    FdStreamBuf(int fd, std::string path)
        : m_fd(fd)
        , m_path(std::move(path))
        , m_buf(1 << 16)
    {
        setp(m_buf.data(), m_buf.data() + m_buf.size());
    }
    int error() const { return m_error; }

protected:
    int_type overflow(int_type ch) override
    {
        if (!drain())
            return traits_type::eof();
        if (!traits_type::eq_int_type(ch, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(ch);
            pbump(1);
        }
        return traits_type::not_eof(ch);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override
    {
        if (n <= epptr() - pptr()) {
            traits_type::copy(pptr(), s, static_cast<std::size_t>(n));
            pbump(static_cast<int>(n));
            return n;
        }
        // Larger than the room left: empty the buffer, then keep a small piece in it and write
        // a large one straight through.
        drain();
        if (n < epptr() - pptr()) {
            traits_type::copy(pptr(), s, static_cast<std::size_t>(n));
            pbump(static_cast<int>(n));
        } else {
            put(s, static_cast<std::size_t>(n));
        }
        return n;
    }
    int sync() override
    {
        drain();
        return 0;
    }

private:
    /// Always "succeeds" for the stream; a failure is kept in m_error and later bytes dropped.
    bool put(const char* s, std::size_t n)
    {
        if (m_error)
            return true;
        if (n > 0 && !faults::writeAll(m_fd, s, n, m_path.c_str()))
            m_error = errno ? errno : EIO;
        return true;
    }
    bool drain()
    {
        const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
        setp(m_buf.data(), m_buf.data() + m_buf.size());
        return put(m_buf.data(), n);
    }

    int m_fd;
    std::string m_path;
    std::vector<char> m_buf;
    int m_error = 0;
};

} // namespace

void writeFileAtomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill)
{
    namespace fs = std::filesystem;
    const fs::path part = fs::path(path) += ".part";
    const std::string name = path.string();
    int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw std::runtime_error(faults::describe(name + ": cannot write", errno));
    const auto discard = [&] {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
        std::error_code ec;
        fs::remove(part, ec);
    };
    try {
        FdStreamBuf buf(fd, part.string());
        std::ostream out(&buf);
        try {
            fill(out);
            out.flush();
        } catch (...) {
            // A writer that gives up because its stream failed (LibTorch's archive writer throws
            // its own "failed writing" error) failed because of the disk: say that.
            if (buf.error())
                throw std::runtime_error(faults::describe(name + ": cannot write", buf.error()));
            throw;
        }
        if (buf.error())
            throw std::runtime_error(faults::describe(name + ": cannot write", buf.error()));
        if (!out)
            throw std::runtime_error(name + ": cannot write (the output stream failed)");
        if (faults::fsync(fd, part.c_str()) != 0)
            throw std::runtime_error(faults::describe(name + ": cannot write to disk (fsync)", errno));
        const int closing = fd;
        fd = -1;
        if (::close(closing) != 0)
            throw std::runtime_error(faults::describe(name + ": cannot write to disk (close)", errno));
        if (faults::rename(part.c_str(), path.c_str()) != 0)
            throw std::runtime_error(faults::describe(name + ": cannot replace the file (rename)", errno));
    } catch (...) {
        discard();
        throw;
    }
    syncFolder(path.has_parent_path() ? path.parent_path() : fs::path(".")); // makes the rename durable
}

} // namespace setscope::util
