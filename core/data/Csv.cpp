// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Csv.h"

#include "core/util/Text.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace setscope::data {

using sdk::InputError;

int CsvTable::column(const std::string& name) const
{
    const std::string n = util::toLower(name);
    for (std::size_t i = 0; i < header.size(); ++i)
        if (util::toLower(header[i]) == n)
            return static_cast<int>(i);
    return -1;
}

CsvTable readCsv(const std::string& path, char sep)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "", "cannot open");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();

    CsvTable t;
    std::vector<std::string> row;
    std::string field;
    bool inQuotes = false, fieldQuoted = false, rowHasContent = false;
    std::uint64_t line = 1, rowStartLine = 1;
    auto endField = [&] {
        row.push_back(fieldQuoted ? field : util::trimmed(field));
        field.clear();
        fieldQuoted = false;
    };
    auto endRow = [&] {
        endField();
        const bool blank = !rowHasContent;
        if (!blank) {
            if (t.header.empty()) {
                t.header = row;
            } else {
                if (row.size() != t.header.size())
                    throw InputError(path, InputError::atLine(rowStartLine),
                                     "has " + std::to_string(row.size()) + " fields, the header has " +
                                         std::to_string(t.header.size()));
                t.rows.push_back(row);
                t.rowLines.push_back(rowStartLine);
            }
        }
        row.clear();
        rowHasContent = false;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inQuotes) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    inQuotes = false;
                }
            } else {
                if (c == '\n')
                    ++line;
                field += c;
            }
            continue;
        }
        if (c == '"') {
            inQuotes = true;
            fieldQuoted = true;
            rowHasContent = true;
        } else if (c == sep) {
            endField();
            rowHasContent = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            endRow();
            ++line;
            rowStartLine = line;
        } else {
            field += c;
            if (c != ' ' && c != '\t')
                rowHasContent = true;
        }
    }
    if (inQuotes)
        throw InputError(path, InputError::atLine(rowStartLine), "unterminated quoted field");
    if (rowHasContent || !field.empty())
        endRow();
    if (t.header.empty())
        throw InputError(path, "", "empty file (a header row is required)");
    return t;
}

std::string csvQuoted(const std::string& s)
{
    std::string q = "\"";
    for (const char ch : s)
        q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

} // namespace setscope::data
