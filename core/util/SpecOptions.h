// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace setscope::util {

/// The options of a dataset spec "name:key=value,key=value" (e.g. "brown:vectors=train,tf=1").
/// Every key must be read by the opener; finish() then rejects the ones nobody asked for,
/// naming the keys that are understood, so a typo never passes silently.
class SpecOptions {
public:
    /// `what` names the dataset in messages ("brown"); `text` is what follows the colon.
    /// Throws std::invalid_argument for an item that is not key=value or a repeated key.
    SpecOptions(std::string what, const std::string& text);

    bool has(const std::string& key) const { return m_values.count(key) != 0; }
    std::string string(const std::string& key, const std::string& fallback);
    /// Integers within [lo, hi]; throws std::invalid_argument naming the key and the range.
    std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t lo, std::int64_t hi);
    double number(const std::string& key, double fallback, double lo, double hi);
    /// 1/0, true/false, yes/no, on/off.
    bool flag(const std::string& key, bool fallback);

    /// Throws std::invalid_argument when a key was given that no getter asked for.
    void finish() const;

private:
    const std::string* lookup(const std::string& key);

    std::string m_what;
    std::map<std::string, std::string> m_values;
    std::vector<std::string> m_asked;
};

/// Splits "name:options" at the first colon ("name" alone gives empty options).
std::pair<std::string, std::string> splitSpec(const std::string& spec);

} // namespace setscope::util
