// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// The one line reader of setscope (issue 30 §4: the mesh readers, the word-vector reader and the
// corpora reader had one each, with three rules for where a line ends). One rule: a line ends
// at "\n", at "\r\n" or at a lone "\r"; the terminator is not part of the line; a last line
// without a terminator is still a line, and an empty input has no line. Line numbers count
// from 1. The bytes come from a text held in memory (not copied) or from a source read in
// chunks (a FILE*, a decompressor), whose lines are bounded by a maximum length.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace setscope::util {

/// A line of a chunked source longer than LineReader's maximum. The reader that owns the
/// source names the file in its own error.
class LineTooLong : public std::length_error {
public:
    LineTooLong(std::uint64_t line, std::uint64_t offset)
        : std::length_error("line " + std::to_string(line) + " is too long")
        , m_line(line)
        , m_offset(offset)
    {
    }
    /// The 1-based number of the line that is too long.
    std::uint64_t line() const noexcept { return m_line; }
    /// Bytes of the input read when it was found.
    std::uint64_t offset() const noexcept { return m_offset; }

private:
    std::uint64_t m_line;
    std::uint64_t m_offset;
};

class LineReader {
public:
    /// Fills `buffer` with up to `capacity` bytes of the input and returns how many; 0 at its end.
    using Source = std::function<std::size_t(char* buffer, std::size_t capacity)>;

    /// The lines of `text` (which must outlive the reader).
    explicit LineReader(std::string_view text)
        : m_text(text)
        , m_eof(true)
    {
    }

    /// The lines of what `source` gives, read in chunks of `chunk` bytes. A line longer than
    /// `maxLine` bytes throws LineTooLong (checked as the bytes arrive, so a stream without a
    /// line end is not held in memory beyond that).
    explicit LineReader(Source source, std::uint64_t maxLine = std::numeric_limits<std::uint64_t>::max(),
                        std::size_t chunk = std::size_t{1} << 16)
        : m_source(std::move(source))
        , m_maxLine(maxLine)
        , m_chunk(chunk)
    {
    }

    /// The next line, valid until the next call; false at the end of the input.
    bool next(std::string_view& line)
    {
        for (;;) {
            const std::size_t end = findEnd();
            if (end == kNotFound) {
                if (!fill()) { // the last line, without a terminator
                    if (m_pos >= m_text.size())
                        return false;
                    line = m_text.substr(m_pos);
                    m_consumed += m_text.size() - m_pos;
                    m_pos = m_text.size();
                    ++m_line;
                    return true;
                }
                continue;
            }
            // "\r" at the end of what is here: a "\n" may follow in the next chunk.
            if (m_text[end] == '\r' && end + 1 == m_text.size() && !m_eof) {
                fill();
                continue;
            }
            line = m_text.substr(m_pos, end - m_pos);
            std::size_t after = end + 1;
            if (m_text[end] == '\r' && after < m_text.size() && m_text[after] == '\n')
                ++after;
            m_consumed += after - m_pos;
            m_pos = after;
            ++m_line;
            return true;
        }
    }

    /// next() into a std::string (a copy).
    bool next(std::string& line)
    {
        std::string_view v;
        if (!next(v))
            return false;
        line.assign(v);
        return true;
    }

    /// The 1-based number of the line next() returned last (0 before the first).
    std::uint64_t lineNumber() const { return m_line; }
    /// Bytes of the input before the next line: where a reader that switches to binary after a
    /// text header (PLY) continues.
    std::uint64_t position() const { return m_consumed; }

private:
    static constexpr std::size_t kNotFound = std::string_view::npos;

    /// The first terminator at or after m_pos; what was scanned in vain is not scanned again (a
    /// long line arriving in many chunks costs one pass).
    std::size_t findEnd()
    {
        for (std::size_t i = std::max(m_pos, m_scanned); i < m_text.size(); ++i)
            if (m_text[i] == '\n' || m_text[i] == '\r')
                return m_scanned = i;
        m_scanned = m_text.size();
        return kNotFound;
    }

    /// More bytes from the source; false at its end (or for a text held in memory).
    bool fill()
    {
        if (m_eof)
            return false;
        m_storage.erase(0, m_pos);
        m_scanned -= std::min(m_scanned, m_pos);
        m_pos = 0;
        const std::size_t had = m_storage.size();
        m_storage.resize(had + m_chunk);
        const std::size_t got = m_source(m_storage.data() + had, m_chunk);
        m_storage.resize(had + std::min(got, m_chunk));
        m_text = m_storage;
        m_read += got;
        if (got == 0) {
            m_eof = true;
            return false;
        }
        if (m_storage.size() > m_maxLine && findEnd() == kNotFound)
            throw LineTooLong(m_line + 1, m_read);
        return true;
    }

    std::string_view m_text; ///< what is held: the whole text, or m_storage
    std::string m_storage;
    Source m_source;
    std::uint64_t m_maxLine = std::numeric_limits<std::uint64_t>::max();
    std::size_t m_chunk = 0;
    std::size_t m_pos = 0;
    std::size_t m_scanned = 0; ///< no terminator in [m_pos, m_scanned)
    std::uint64_t m_line = 0;
    std::uint64_t m_consumed = 0;
    std::uint64_t m_read = 0;
    bool m_eof = false;
};

} // namespace setscope::util
