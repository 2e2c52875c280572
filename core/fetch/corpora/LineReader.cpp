// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/corpora/LineReader.h"

#include "core/fetch/ArchiveError.h"
#include "core/util/LineReader.h"

#include <setscope/sdk/Errors.h>

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <system_error>

namespace setscope::fetch::corpora {

using sdk::InputError;

LineReader::LineReader(std::string path)
    : m_path(std::move(path))
    , m_lines(std::make_unique<util::LineReader>([this](char* b, std::size_t n) { return read(b, n); }, kMaxLine))
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

std::size_t LineReader::read(char* buffer, std::size_t capacity)
{
    if (m_eof)
        return 0;
    const la_ssize_t got = archive_read_data(m_archive, buffer, capacity);
    if (got < 0)
        throw InputError(m_path, InputError::atOffset(m_offset),
                         "corrupt or truncated compressed data: " + archiveError(m_archive));
    if (got == 0) {
        m_eof = true;
        return 0;
    }
    m_offset += static_cast<std::uint64_t>(got);
    if (m_offset > kMaxText)
        throw InputError(m_path, InputError::atOffset(m_offset),
                         "more than " + std::to_string(kMaxText >> 20) + " MiB of text (decompressed): refused as no "
                         "list or corpus setscope reads is that large");
    return static_cast<std::size_t>(got);
}

bool LineReader::next(std::string& line)
{
    try {
        return m_lines->next(line);
    } catch (const util::LineTooLong& e) {
        throw InputError(m_path, InputError::atOffset(e.offset()),
                         "line " + std::to_string(e.line()) + " is longer than " + std::to_string(kMaxLine >> 20) +
                             " MiB (decompressed)");
    }
}

std::uint64_t LineReader::lineNumber() const { return m_lines->lineNumber(); }

} // namespace setscope::fetch::corpora
