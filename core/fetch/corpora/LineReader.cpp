// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/corpora/LineReader.h"

#include "core/fetch/ArchiveError.h"

#include <setscope/sdk/Errors.h>

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <system_error>

namespace setscope::fetch::corpora {

using sdk::InputError;

LineReader::LineReader(std::string path)
    : m_path(std::move(path))
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(m_path, ec))
        throw InputError(m_path, "", "no such file (or not a regular file)");
    // libarchive's raw reader refuses a zero-byte file; an empty file is simply empty.
    if (std::filesystem::file_size(m_path, ec) == 0) {
        m_eof = true;
        return;
    }
    m_archive = archive_read_new();
    archive_read_support_filter_all(m_archive);
    archive_read_support_format_raw(m_archive);
    archive_read_support_format_empty(m_archive);
    if (archive_read_open_filename(m_archive, m_path.c_str(), 1 << 16) != ARCHIVE_OK) {
        const std::string msg = archiveError(m_archive);
        archive_read_free(m_archive);
        m_archive = nullptr;
        throw InputError(m_path, "", "cannot open: " + msg);
    }
    archive_entry* entry = nullptr;
    const int r = archive_read_next_header(m_archive, &entry);
    if (r == ARCHIVE_EOF) {
        m_eof = true;
    } else if (r != ARCHIVE_OK) {
        const std::string msg = archiveError(m_archive);
        archive_read_free(m_archive);
        m_archive = nullptr;
        throw InputError(m_path, "", "cannot read: " + msg);
    }
}

LineReader::~LineReader()
{
    if (m_archive)
        archive_read_free(m_archive);
}

bool LineReader::fill()
{
    if (m_eof)
        return false;
    if (m_pos > 0) {
        m_buffer.erase(0, m_pos);
        m_pos = 0;
    }
    char chunk[1 << 16];
    const la_ssize_t got = archive_read_data(m_archive, chunk, sizeof chunk);
    if (got < 0) {
        throw InputError(m_path, InputError::atOffset(m_offset),
                         "corrupt or truncated compressed data: " + archiveError(m_archive));
    }
    if (got == 0) {
        m_eof = true;
        return false;
    }
    m_offset += static_cast<std::uint64_t>(got);
    if (m_offset > kMaxText)
        throw InputError(m_path, InputError::atOffset(m_offset),
                         "more than " + std::to_string(kMaxText >> 20) + " MiB of text (decompressed): refused as no "
                         "list or corpus setscope reads is that large");
    m_buffer.append(chunk, static_cast<std::size_t>(got));
    if (m_buffer.size() - m_pos > kMaxLine && m_buffer.find('\n', m_pos) == std::string::npos)
        throw InputError(m_path, InputError::atOffset(m_offset),
                         "line " + std::to_string(m_line + 1) + " is longer than " + std::to_string(kMaxLine >> 20) +
                             " MiB (decompressed)");
    return true;
}

bool LineReader::next(std::string& line)
{
    for (;;) {
        const std::size_t nl = m_buffer.find('\n', m_pos);
        if (nl != std::string::npos) {
            line.assign(m_buffer, m_pos, nl - m_pos);
            m_pos = nl + 1;
            break;
        }
        if (!fill()) {
            if (m_pos >= m_buffer.size())
                return false;
            line.assign(m_buffer, m_pos, std::string::npos); // last line without "\n"
            m_pos = m_buffer.size();
            break;
        }
    }
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    ++m_line;
    return true;
}

} // namespace setscope::fetch::corpora
