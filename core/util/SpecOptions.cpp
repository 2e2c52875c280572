// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/SpecOptions.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace setscope::util {

namespace {
std::string trimmed(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}
} // namespace

SpecOptions::SpecOptions(std::string what, const std::string& text)
    : m_what(std::move(what))
{
    std::stringstream ss(text);
    std::string kv;
    while (std::getline(ss, kv, ',')) {
        if (kv.empty())
            continue;
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw std::invalid_argument(m_what + ": option '" + kv + "' is not key=value");
        const std::string key = kv.substr(0, eq);
        if (!m_values.emplace(key, kv.substr(eq + 1)).second)
            throw std::invalid_argument(m_what + ": option '" + key + "' given twice");
    }
}

const std::string* SpecOptions::lookup(const std::string& key)
{
    if (std::find(m_asked.begin(), m_asked.end(), key) == m_asked.end())
        m_asked.push_back(key);
    const auto it = m_values.find(key);
    return it == m_values.end() ? nullptr : &it->second;
}

std::string SpecOptions::string(const std::string& key, const std::string& fallback)
{
    const std::string* v = lookup(key);
    return v ? *v : fallback;
}

std::int64_t SpecOptions::integer(const std::string& key, std::int64_t fallback, std::int64_t lo, std::int64_t hi)
{
    const std::string* v = lookup(key);
    if (!v)
        return fallback;
    std::size_t used = 0;
    long long x = 0;
    try {
        x = std::stoll(*v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != v->size() || x < lo || x > hi)
        throw std::invalid_argument(m_what + ": option '" + key + "' must be an integer in [" + std::to_string(lo) +
                                    ", " + std::to_string(hi) + "], not '" + *v + "'");
    return x;
}

double SpecOptions::number(const std::string& key, double fallback, double lo, double hi)
{
    const std::string* v = lookup(key);
    if (!v)
        return fallback;
    std::size_t used = 0;
    double x = 0;
    try {
        x = std::stod(*v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != v->size() || !std::isfinite(x) || x < lo || x > hi) {
        std::ostringstream os;
        os << m_what << ": option '" << key << "' must be a number in [" << lo << ", " << hi << "], not '" << *v << "'";
        throw std::invalid_argument(os.str());
    }
    return x;
}

bool SpecOptions::flag(const std::string& key, bool fallback)
{
    const std::string* v = lookup(key);
    if (!v)
        return fallback;
    if (*v == "1" || *v == "true" || *v == "yes" || *v == "on")
        return true;
    if (*v == "0" || *v == "false" || *v == "no" || *v == "off")
        return false;
    throw std::invalid_argument(m_what + ": option '" + key + "' must be 1 or 0 (true/false), not '" + *v + "'");
}

void SpecOptions::finish() const
{
    std::string unknown;
    for (const auto& [k, v] : m_values)
        if (std::find(m_asked.begin(), m_asked.end(), k) == m_asked.end())
            unknown += (unknown.empty() ? "'" : ", '") + k + "'";
    if (unknown.empty())
        return;
    std::string known;
    for (const auto& k : m_asked)
        known += (known.empty() ? "" : ", ") + k;
    throw std::invalid_argument(m_what + ": unknown option " + unknown +
                                (known.empty() ? std::string(" (it takes no options)") : " (options: " + known + ")"));
}

std::pair<std::string, std::string> splitSpec(const std::string& spec)
{
    const auto colon = spec.find(':');
    if (colon == std::string::npos)
        return {spec, {}};
    return {spec.substr(0, colon), spec.substr(colon + 1)};
}

std::map<std::string, std::string> parseSpecOptions(const std::string& what, const std::string& text)
{
    std::map<std::string, std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = trimmed(text.substr(start, comma - start));
        start = comma + 1;
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        const std::string key = eq == std::string::npos ? std::string() : trimmed(item.substr(0, eq));
        if (key.empty())
            throw std::invalid_argument(what + ": option '" + item + "' is not key=value");
        if (!out.emplace(key, trimmed(item.substr(eq + 1))).second)
            throw std::invalid_argument(what + ": option '" + key + "' given twice");
    }
    return out;
}

sdk::OptionValues resolveSpecOptions(const sdk::OptionSchema& schema, const std::string& text, const std::string& owner)
{
    return sdk::OptionValues::resolve(schema, parseSpecOptions(owner, text), owner);
}

sdk::OptionSchema withDefaults(sdk::OptionSchema schema, const std::map<std::string, std::string>& defaults,
                               const std::string& owner)
{
    for (const auto& [name, value] : defaults) {
        bool found = false;
        for (sdk::OptionSpec& o : schema)
            if (o.name == name) {
                o.defaultValue = value;
                found = true;
            }
        if (!found)
            throw std::logic_error(owner + ": no option '" + name + "' to give the default " + value);
    }
    return schema;
}

} // namespace setscope::util
