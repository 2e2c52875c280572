// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/graph/TextLines.h"

#include <setscope/sdk/Errors.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace setscope::data {

using sdk::InputError;

TextLines::TextLines(std::string path)
    : m_path(std::move(path))
{
    std::ifstream f(m_path, std::ios::binary);
    if (!f)
        throw InputError(m_path, "", std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    if (f.bad())
        throw InputError(m_path, "", "read error");
    m_text = std::move(ss).str();
}

bool TextLines::next(std::string_view& line)
{
    if (m_pos >= m_text.size())
        return false;
    const std::size_t nl = m_text.find('\n', m_pos);
    const std::size_t end = nl == std::string::npos ? m_text.size() : nl;
    std::size_t e = end;
    if (e > m_pos && m_text[e - 1] == '\r')
        --e;
    line = std::string_view(m_text).substr(m_pos, e - m_pos);
    m_pos = nl == std::string::npos ? m_text.size() : nl + 1;
    ++m_line;
    return true;
}

void TextLines::fail(const std::string& message) const { failAt(m_line, message); }

void TextLines::failAt(std::uint64_t line, const std::string& message) const
{
    throw InputError(m_path, line > 0 ? InputError::atLine(line) : std::string(), message);
}

std::string_view trimmed(std::string_view s)
{
    std::size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r'))
        ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'))
        --e;
    return s.substr(b, e - b);
}

std::vector<std::string_view> splitFields(std::string_view s, char sep)
{
    std::vector<std::string_view> out;
    if (sep == ' ') {
        std::size_t i = 0;
        while (i < s.size()) {
            while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
                ++i;
            const std::size_t b = i;
            while (i < s.size() && s[i] != ' ' && s[i] != '\t')
                ++i;
            if (i > b)
                out.push_back(s.substr(b, i - b));
        }
        return out;
    }
    std::size_t b = 0;
    while (true) {
        const std::size_t p = s.find(sep, b);
        out.push_back(trimmed(s.substr(b, p == std::string_view::npos ? std::string_view::npos : p - b)));
        if (p == std::string_view::npos)
            break;
        b = p + 1;
    }
    return out;
}

bool parseInteger(std::string_view s, long long& out)
{
    s = trimmed(s);
    if (!s.empty() && s[0] == '+')
        s.remove_prefix(1);
    if (s.empty())
        return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parseReal(std::string_view s, double& out)
{
    s = trimmed(s);
    if (!s.empty() && s[0] == '+')
        s.remove_prefix(1);
    if (s.empty())
        return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(out);
}

} // namespace setscope::data
