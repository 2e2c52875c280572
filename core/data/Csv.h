// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {

/// A parsed CSV file (RFC 4180: quoted fields, doubled quotes, CRLF or LF). The first row
/// is the header. Throws InputError naming the file and line on a row with the wrong
/// number of fields or an unterminated quote.
struct CsvTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::uint64_t> rowLines; ///< 1-based line number of each row in the file

    /// Column index of `name` (case-insensitive), -1 when absent.
    int column(const std::string& name) const;
};

CsvTable readCsv(const std::string& path, char separator = ',');

/// `s` as one quoted CSV field (RFC 4180: in double quotes, quotes doubled), which readCsv()
/// reads back as `s`.
std::string csvQuoted(const std::string& s);

} // namespace setscope::data
