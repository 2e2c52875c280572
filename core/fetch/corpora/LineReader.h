// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <memory>
#include <string>

struct archive;

namespace setscope::util {
class LineReader;
}

namespace setscope::fetch::corpora {

/// Reads a text file line by line, transparently decompressing gzip, xz, lz4, bzip2 or
/// zstd (libarchive's raw format with every filter; apt keeps its lists as .lz4). A
/// corrupt or truncated compressed stream throws sdk::InputError with the byte offset in
/// the decompressed text. Lines end by setscope's one rule (util::LineReader: "\n", "\r\n" or a
/// lone "\r").
///
/// Whatever the compression, what one file may expand to is bounded (issue 29 §7): a line
/// longer than kMaxLine, or more than kMaxText of text in all, is refused with the offset (the
/// lists and corpora it reads are a few tens of MB; a few kilobytes of xz can claim gigabytes).
class LineReader {
public:
    static constexpr std::uint64_t kMaxLine = std::uint64_t{16} << 20;
    static constexpr std::uint64_t kMaxText = std::uint64_t{1} << 30;

    explicit LineReader(std::string path);
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    /// False at the end of the file.
    bool next(std::string& line);
    /// 1-based number of the line last returned by next().
    std::uint64_t lineNumber() const;
    const std::string& path() const { return m_path; }

private:
    /// The decompressed bytes, checked against kMaxText; 0 at the end.
    std::size_t read(char* buffer, std::size_t capacity);

    std::string m_path;
    archive* m_archive = nullptr;
    std::unique_ptr<util::LineReader> m_lines;
    std::uint64_t m_offset = 0;
    bool m_eof = false;
};

} // namespace setscope::fetch::corpora
