// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace setscope::data {

/// A whole text file read into memory and handed out line by line (LF or CRLF), with the
/// 1-based number of the line last returned, for error messages. Internal to the graph
/// readers.
class TextLines {
public:
    /// Throws InputError when the file cannot be read.
    explicit TextLines(std::string path);

    /// The next line without its end-of-line characters; false at the end of the file.
    bool next(std::string_view& line);
    /// 1-based number of the line last returned by next() (0 before the first).
    std::uint64_t lineNumber() const { return m_line; }
    const std::string& path() const { return m_path; }

    /// Throws InputError at the line last returned.
    [[noreturn]] void fail(const std::string& message) const;
    /// Throws InputError at line `line`.
    [[noreturn]] void failAt(std::uint64_t line, const std::string& message) const;

private:
    std::string m_path;
    std::string m_text;
    std::size_t m_pos = 0;
    std::uint64_t m_line = 0;
};

/// Whitespace-trimmed view.
std::string_view trimmed(std::string_view s);
/// Splits on `sep` (and trims each field); with sep == ' ' splits on runs of blanks and tabs.
std::vector<std::string_view> splitFields(std::string_view s, char sep);
/// Whole-field integer / floating-point parse (leading '+' allowed); false when not a number.
bool parseInteger(std::string_view s, long long& out);
bool parseReal(std::string_view s, double& out);

} // namespace setscope::data
