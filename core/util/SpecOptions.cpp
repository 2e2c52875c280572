// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/SpecOptions.h"

#include "core/util/Text.h"

#include <algorithm>
#include <stdexcept>

namespace setscope::util {

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
