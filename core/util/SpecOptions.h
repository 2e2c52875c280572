// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Options.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
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

/// The key=value items of an option text ("vectors=train,tf=1"): separated by ',', spaces
/// around keys and values removed, empty items skipped. `what` names the dataset or loader
/// in messages. Throws std::invalid_argument for an item that is not key=value and for a
/// key given twice. Values are not checked here: resolve them against a schema.
std::map<std::string, std::string> parseSpecOptions(const std::string& what, const std::string& text);

/// parseSpecOptions, then sdk::OptionValues::resolve against `schema`: an unknown key is an
/// error listing the known ones, a bad value one naming the option, the value and what is
/// allowed (std::invalid_argument, prefixed with `owner`).
sdk::OptionValues resolveSpecOptions(const sdk::OptionSchema& schema, const std::string& text, const std::string& owner);

/// `schema` with other defaults (name -> value as typed), for a source that reads with an
/// item's options but its own defaults (bzr: the sdf loader with class=ACTIVITY). The new
/// defaults are checked when the schema is resolved. Throws std::logic_error naming `owner`
/// for a name the schema does not declare.
sdk::OptionSchema withDefaults(sdk::OptionSchema schema, const std::map<std::string, std::string>& defaults,
                               const std::string& owner);

} // namespace setscope::util
