// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/EncoderOptions.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace setscope::nn {

EncoderOptions::EncoderOptions(std::string encoder, const std::map<std::string, std::string>& options,
                               const std::vector<std::string>& known)
    : m_encoder(std::move(encoder)), m_options(options)
{
    for (const auto& [key, value] : options) {
        if (std::find(known.begin(), known.end(), key) != known.end())
            continue;
        std::string list;
        for (const auto& k : known)
            list += (list.empty() ? "" : ", ") + k;
        throw std::invalid_argument(m_encoder + ": option '" + key + "' is unknown (known: " + list + ")");
    }
}

const std::string* EncoderOptions::find(const std::string& key) const
{
    auto it = m_options.find(key);
    return it == m_options.end() ? nullptr : &it->second;
}

void EncoderOptions::fail(const std::string& key, const std::string& value, const std::string& expected) const
{
    throw std::invalid_argument(m_encoder + ": option '" + key + "' must be " + expected + ", got '" + value + "'");
}

namespace {
/// Whole-string parse of a decimal integer >= `least`; false on anything else (sign, spaces,
/// more than 12 digits).
bool parseEncoderOptionInt(const std::string& s, std::int64_t& out, std::int64_t least = 1)
{
    if (s.empty() || s.size() > 12 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    out = std::stoll(s);
    return out >= least;
}
} // namespace

std::int64_t EncoderOptions::positiveInt(const std::string& key, std::int64_t def) const
{
    const std::string* v = find(key);
    if (!v)
        return def;
    std::int64_t out = 0;
    if (!parseEncoderOptionInt(*v, out))
        fail(key, *v, "an integer >= 1");
    return out;
}

std::int64_t EncoderOptions::nonNegativeInt(const std::string& key, std::int64_t def) const
{
    const std::string* v = find(key);
    if (!v)
        return def;
    std::int64_t out = 0;
    if (!parseEncoderOptionInt(*v, out, 0))
        fail(key, *v, "an integer >= 0");
    return out;
}

double EncoderOptions::probability(const std::string& key, double def) const
{
    const std::string* v = find(key);
    if (!v)
        return def;
    char* end = nullptr;
    errno = 0;
    const double out = v->empty() ? std::nan("") : std::strtod(v->c_str(), &end);
    if (v->empty() || errno != 0 || end != v->c_str() + v->size() || !(out >= 0.0 && out < 1.0))
        fail(key, *v, "a number in [0, 1)");
    return out;
}

std::vector<std::int64_t> EncoderOptions::widths(const std::string& key, const std::vector<std::int64_t>& def,
                                                 bool allowEmpty) const
{
    const std::string* v = find(key);
    if (!v)
        return def;
    const std::string expected = allowEmpty ? "a comma-separated list of integers >= 1 (or empty)"
                                            : "a comma-separated list of integers >= 1";
    std::vector<std::int64_t> out;
    if (v->empty()) {
        if (!allowEmpty)
            fail(key, *v, expected);
        return out;
    }
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = v->find(',', start);
        const std::string tok = v->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::int64_t w = 0;
        if (!parseEncoderOptionInt(tok, w))
            fail(key, *v, expected);
        out.push_back(w);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

std::string joinWidths(const std::vector<std::int64_t>& widths)
{
    std::string s;
    for (std::int64_t w : widths)
        s += (s.empty() ? "" : ",") + std::to_string(w);
    return s;
}

} // namespace setscope::nn
