// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Options that a registered item (loader, encoder, loss, augmentation, sampler, optimizer,
// recipe, metric) declares: name, type, default, range and one line of doc. The CLI's flags,
// the GUI's forms and the checks of what a user typed are generated from these declarations,
// so a new item needs no CLI or GUI code. Header-only, no Qt and no Torch: plugins use it.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace setscope::sdk {

enum class OptionType {
    Integer, ///< a whole number within [min, max]
    Real,    ///< a finite number within [min, max]
    Flag,    ///< true / false (also 1/0, yes/no, on/off)
    Text,    ///< any text
    Choice,  ///< one of `choices`
    IntegerList, ///< comma-separated whole numbers, each within [min, max] ("512,256"; "" is the empty list)
};

inline const char* optionTypeName(OptionType t)
{
    switch (t) {
    case OptionType::Integer: return "integer";
    case OptionType::Real: return "number";
    case OptionType::Flag: return "flag";
    case OptionType::Text: return "text";
    case OptionType::Choice: return "choice";
    case OptionType::IntegerList: return "list of integers";
    }
    return "?";
}

struct OptionSpec {
    std::string name;         ///< lower case, digits, '-' ("margin", "label-fraction")
    OptionType type = OptionType::Real;
    std::string defaultValue; ///< as a user would type it; must itself be valid
    double min = -std::numeric_limits<double>::infinity(); ///< inclusive (Integer, Real)
    double max = std::numeric_limits<double>::infinity();  ///< inclusive (Integer, Real)
    std::vector<std::string> choices;                       ///< Choice
    std::string doc;          ///< one line: what it does, with the paper's name for it

    static OptionSpec integer(std::string name, std::int64_t def, double lo, double hi, std::string doc)
    {
        return {std::move(name), OptionType::Integer, std::to_string(def), lo, hi, {}, std::move(doc)};
    }
    static OptionSpec real(std::string name, double def, double lo, double hi, std::string doc);
    static OptionSpec flag(std::string name, bool def, std::string doc)
    {
        return {std::move(name), OptionType::Flag, def ? "true" : "false", 0, 1, {}, std::move(doc)};
    }
    static OptionSpec text(std::string name, std::string def, std::string doc)
    {
        return {std::move(name), OptionType::Text, std::move(def), 0, 0, {}, std::move(doc)};
    }
    static OptionSpec integers(std::string name, const std::vector<std::int64_t>& def, double lo, double hi,
                               std::string doc)
    {
        std::string d;
        for (std::size_t i = 0; i < def.size(); ++i) {
            if (i)
                d += ',';
            d += std::to_string(def[i]);
        }
        return {std::move(name), OptionType::IntegerList, std::move(d), lo, hi, {}, std::move(doc)};
    }
    static OptionSpec choice(std::string name, std::string def, std::vector<std::string> choices, std::string doc)
    {
        return {std::move(name), OptionType::Choice, std::move(def), 0, 0, std::move(choices), std::move(doc)};
    }
};

using OptionSchema = std::vector<OptionSpec>;

/// The option called `name` in `schema`, nullptr when there is none.
inline const OptionSpec* findOption(const OptionSchema& schema, const std::string& name)
{
    for (const OptionSpec& o : schema)
        if (o.name == name)
            return &o;
    return nullptr;
}

namespace detail {

inline std::string formatReal(double v)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v); // shortest text that reads back as v
    return std::string(buf, r.ptr);
}

inline std::string formatBound(const OptionSpec& o, double v)
{
    if (std::isinf(v))
        return v < 0 ? "-inf" : "inf";
    // Whole numbers as such while they fit an int64 exactly (|v| < 2^63); beyond that the cast
    // would be undefined, and the real form is what the bound is anyway.
    if ((o.type == OptionType::Integer || o.type == OptionType::IntegerList) && std::abs(v) < 9.2233720368547758e18)
        return std::to_string(static_cast<std::int64_t>(v));
    return formatReal(v);
}

inline bool parseFlag(const std::string& s, bool& out)
{
    if (s == "1" || s == "true" || s == "yes" || s == "on") {
        out = true;
        return true;
    }
    if (s == "0" || s == "false" || s == "no" || s == "off") {
        out = false;
        return true;
    }
    return false;
}

inline bool parseInteger(const std::string& s, std::int64_t& out)
{
    const char* b = s.data();
    const char* e = b + s.size();
    if (b != e && *b == '+')
        ++b;
    const auto r = std::from_chars(b, e, out);
    return b != e && r.ec == std::errc() && r.ptr == e;
}

inline bool parseReal(const std::string& s, double& out)
{
    if (s.empty())
        return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(out);
}

} // namespace detail

inline OptionSpec OptionSpec::real(std::string name, double def, double lo, double hi, std::string doc)
{
    return {std::move(name), OptionType::Real, detail::formatReal(def), lo, hi, {}, std::move(doc)};
}

/// "margin (number in [0, inf], default 0.1): the triplet margin α" — for help texts.
inline std::string describeOption(const OptionSpec& o)
{
    std::string s = o.name + " (" + optionTypeName(o.type);
    if (o.type == OptionType::Integer || o.type == OptionType::Real || o.type == OptionType::IntegerList)
        s += std::string(o.type == OptionType::IntegerList ? " each in [" : " in [") + detail::formatBound(o, o.min) + ", " + detail::formatBound(o, o.max) + "]";
    if (o.type == OptionType::Choice) {
        s += ": ";
        for (std::size_t i = 0; i < o.choices.size(); ++i)
            s += (i ? "|" : "") + o.choices[i];
    }
    s += ", default " + (o.defaultValue.empty() ? std::string("\"\"") : o.defaultValue) + "): " + o.doc;
    return s;
}

/// The options of one item, checked against its schema, with defaults filled in.
class OptionValues {
public:
    OptionValues() = default;

    /// Checks `given` (name -> text as typed) against `schema` and fills in the defaults.
    /// Throws std::invalid_argument naming `owner` ("loss triplet") and the option for: a name
    /// the schema does not declare (listing those it does), a value that is not of the
    /// option's type, a number outside its range, an unknown choice. Throws std::logic_error
    /// when the schema itself is broken (a duplicate name or an invalid default).
    static OptionValues resolve(const OptionSchema& schema, const std::map<std::string, std::string>& given,
                                const std::string& owner)
    {
        OptionValues out;
        for (const OptionSpec& o : schema) {
            if (out.m_specs.count(o.name))
                throw std::logic_error(owner + ": option '" + o.name + "' declared twice");
            out.m_specs.emplace(o.name, o);
            std::string error;
            std::string canonical;
            if (!check(o, o.defaultValue, canonical, error))
                throw std::logic_error(owner + ": the default of option '" + o.name + "' is invalid: " + error);
            out.m_values[o.name] = canonical;
        }
        for (const auto& [name, text] : given) {
            const auto it = out.m_specs.find(name);
            if (it == out.m_specs.end()) {
                std::string known;
                for (const OptionSpec& o : schema)
                    known += (known.empty() ? "" : ", ") + o.name;
                throw std::invalid_argument(owner + " has no option '" + name + "'" +
                                            (known.empty() ? std::string(" (it has none)") : " (it has: " + known + ")"));
            }
            std::string error;
            std::string canonical;
            if (!check(it->second, text, canonical, error))
                throw std::invalid_argument(owner + ": option " + name + "=" + text + ": " + error);
            out.m_values[name] = canonical;
            out.m_given[name] = true;
        }
        return out;
    }

    /// This object, or the schema's defaults when it was never resolved (a default-constructed
    /// OptionValues, as in `EncoderSpec{}`), so an item built without options gets its defaults.
    OptionValues orDefaults(const OptionSchema& schema, const std::string& owner) const
    {
        return m_specs.empty() && !schema.empty() ? resolve(schema, {}, owner) : *this;
    }

    std::int64_t integer(const std::string& name) const
    {
        std::int64_t v = 0;
        detail::parseInteger(value(name, OptionType::Integer), v);
        return v;
    }
    double real(const std::string& name) const
    {
        double v = 0;
        detail::parseReal(value(name, OptionType::Real), v);
        return v;
    }
    bool flag(const std::string& name) const { return value(name, OptionType::Flag) == "true"; }
    std::vector<std::int64_t> integers(const std::string& name) const
    {
        std::vector<std::int64_t> out;
        const std::string& text = value(name, OptionType::IntegerList);
        std::size_t start = 0;
        while (start < text.size()) {
            const std::size_t comma = std::min(text.find(',', start), text.size());
            std::int64_t v = 0;
            detail::parseInteger(text.substr(start, comma - start), v);
            out.push_back(v);
            start = comma + 1;
        }
        return out;
    }
    /// Text and Choice options.
    const std::string& text(const std::string& name) const
    {
        const auto it = m_specs.find(name);
        if (it != m_specs.end() && it->second.type == OptionType::Choice)
            return value(name, OptionType::Choice);
        return value(name, OptionType::Text);
    }
    /// True when the user gave the option (not its default).
    bool given(const std::string& name) const { return m_given.count(name) != 0; }
    /// Every option as canonical text (numbers in their shortest exact form, flags as
    /// true/false): what a run records and what resolve() reads back unchanged.
    const std::map<std::string, std::string>& values() const { return m_values; }

private:
    static bool check(const OptionSpec& o, const std::string& text, std::string& canonical, std::string& error)
    {
        switch (o.type) {
        case OptionType::Integer: {
            std::int64_t v = 0;
            if (!detail::parseInteger(text, v)) {
                error = "not a whole number";
                return false;
            }
            if (static_cast<double>(v) < o.min || static_cast<double>(v) > o.max) {
                error = "outside [" + detail::formatBound(o, o.min) + ", " + detail::formatBound(o, o.max) + "]";
                return false;
            }
            canonical = std::to_string(v);
            return true;
        }
        case OptionType::Real: {
            double v = 0;
            if (!detail::parseReal(text, v)) {
                error = "not a finite number";
                return false;
            }
            if (v < o.min || v > o.max) {
                error = "outside [" + detail::formatBound(o, o.min) + ", " + detail::formatBound(o, o.max) + "]";
                return false;
            }
            canonical = detail::formatReal(v);
            return true;
        }
        case OptionType::Flag: {
            bool v = false;
            if (!detail::parseFlag(text, v)) {
                error = "not a flag (true/false, 1/0, yes/no, on/off)";
                return false;
            }
            canonical = v ? "true" : "false";
            return true;
        }
        case OptionType::Text:
            canonical = text;
            return true;
        case OptionType::IntegerList: {
            canonical.clear();
            std::size_t start = 0;
            while (start < text.size() || (start == text.size() && !text.empty() && text.back() == ',')) {
                const std::size_t comma = std::min(text.find(',', start), text.size());
                std::int64_t v = 0;
                if (!detail::parseInteger(text.substr(start, comma - start), v)) {
                    error = "not a comma-separated list of whole numbers";
                    return false;
                }
                if (static_cast<double>(v) < o.min || static_cast<double>(v) > o.max) {
                    error = std::to_string(v) + " is outside [" + detail::formatBound(o, o.min) + ", " +
                            detail::formatBound(o, o.max) + "]";
                    return false;
                }
                canonical += (canonical.empty() ? "" : ",") + std::to_string(v);
                start = comma + 1;
            }
            return true;
        }
        case OptionType::Choice:
            for (const std::string& c : o.choices)
                if (c == text) {
                    canonical = text;
                    return true;
                }
            error = "not one of ";
            for (std::size_t i = 0; i < o.choices.size(); ++i)
                error += (i ? "|" : "") + o.choices[i];
            return false;
        }
        error = "unknown option type";
        return false;
    }

    const std::string& value(const std::string& name, OptionType type) const
    {
        const auto it = m_specs.find(name);
        if (it == m_specs.end())
            throw std::logic_error("no option '" + name + "' in this schema");
        if (it->second.type != type)
            throw std::logic_error("option '" + name + "' is a " + optionTypeName(it->second.type) + ", not a " +
                                   optionTypeName(type));
        return m_values.at(name);
    }

    std::map<std::string, OptionSpec> m_specs;
    std::map<std::string, std::string> m_values;
    std::map<std::string, bool> m_given;
};

} // namespace setscope::sdk
