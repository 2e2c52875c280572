// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/LabelMapping.h"

#include <setscope/sdk/Errors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace setscope::data {

namespace {

using Json = nlohmann::ordered_json;

std::string inQuotes(const std::string& s) { return "'" + s + "'"; }

std::string joinedNames(const std::vector<std::string>& names)
{
    std::string out;
    for (const std::string& n : names)
        out += (out.empty() ? "" : ", ") + inQuotes(n);
    return out;
}

} // namespace

LabelMapping LabelMapping::fromJson(const std::string& text, const std::string& origin)
{
    const auto bad = [&](const std::string& what) { return sdk::InputError(origin, "", what); };
    // A JSON object may repeat a key and the parser keeps one of the values: catch that while
    // parsing, so a class written twice is reported rather than half lost.
    std::vector<std::set<std::string>> keys;
    std::string repeated;
    const auto watch = [&](int, Json::parse_event_t event, Json& parsed) {
        if (event == Json::parse_event_t::object_start)
            keys.emplace_back();
        else if (event == Json::parse_event_t::object_end && !keys.empty())
            keys.pop_back();
        else if (event == Json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
                 repeated.empty())
            repeated = parsed.get<std::string>();
        return true;
    };
    Json j;
    try {
        j = Json::parse(text, watch);
    } catch (const nlohmann::json::parse_error& e) {
        throw bad(std::string("not a label mapping (JSON): ") + e.what());
    }
    if (!repeated.empty())
        throw bad("\"" + repeated + "\" is given twice in one object");
    if (!j.is_object())
        throw bad("a label mapping is a JSON object with \"name\", \"from\" and \"classes\"");
    for (const auto& [key, value] : j.items())
        if (key != "name" && key != "from" && key != "classes")
            throw bad("unknown key \"" + key + "\" (a mapping has \"name\", \"from\" and \"classes\")");
    LabelMapping m;
    for (const char* key : {"name", "from"}) {
        if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
            throw bad(std::string("\"") + key + "\" must be a non-empty string");
    }
    m.name = j["name"].get<std::string>();
    m.source = j["from"].get<std::string>();
    if (m.name == m.source)
        throw bad("the derived label set cannot replace its source (both are " + inQuotes(m.name) + ")");
    if (!j.contains("classes") || !j["classes"].is_object() || j["classes"].empty())
        throw bad("\"classes\" must be an object of target class -> [source classes], with at least one class");
    std::map<std::string, std::string> placed; // source class -> its target
    for (const auto& [target, sources] : j["classes"].items()) {
        if (target.empty())
            throw bad("a target class has an empty name");
        if (!sources.is_array() || sources.empty())
            throw bad("target class " + inQuotes(target) + ": give a non-empty list of source classes");
        std::vector<std::string> names;
        for (const auto& s : sources) {
            if (!s.is_string() || s.get<std::string>().empty())
                throw bad("target class " + inQuotes(target) + ": source classes are non-empty strings");
            const std::string name = s.get<std::string>();
            if (const auto it = placed.find(name); it != placed.end())
                throw bad("source class " + inQuotes(name) + " is under both " + inQuotes(it->second) + " and " +
                          inQuotes(target));
            placed[name] = target;
            names.push_back(name);
        }
        m.classes.emplace_back(target, std::move(names));
    }
    return m;
}

std::string LabelMapping::toJson() const
{
    std::ostringstream out;
    out << "{\"name\": " << Json(name).dump() << ", \"from\": " << Json(source).dump() << ",\n \"classes\": {";
    for (std::size_t k = 0; k < classes.size(); ++k) {
        out << (k ? ",\n  " : "\n  ") << Json(classes[k].first).dump() << ": [";
        for (std::size_t s = 0; s < classes[k].second.size(); ++s)
            out << (s ? ", " : "") << Json(classes[k].second[s]).dump();
        out << "]";
    }
    out << "}}\n";
    return out.str();
}

std::vector<std::string> LabelMapping::classNames() const
{
    std::vector<std::string> out;
    out.reserve(classes.size());
    for (const auto& [target, sources] : classes)
        out.push_back(target);
    return out;
}

std::vector<std::int32_t> LabelMapping::targetOf(const LabelSet& from) const
{
    std::map<std::string, std::int32_t> target;
    for (std::size_t k = 0; k < classes.size(); ++k)
        for (const std::string& s : classes[k].second)
            target[s] = static_cast<std::int32_t>(k);
    std::vector<std::int32_t> out(from.classNames.size(), -1);
    std::vector<std::string> unplaced;
    for (std::size_t c = 0; c < from.classNames.size(); ++c) {
        const auto it = target.find(from.classNames[c]);
        if (it == target.end())
            unplaced.push_back(from.classNames[c]);
        else
            out[c] = it->second;
    }
    std::vector<std::string> unknown;
    for (const auto& [s, t] : target)
        if (std::find(from.classNames.begin(), from.classNames.end(), s) == from.classNames.end())
            unknown.push_back(s);
    if (!unplaced.empty() || !unknown.empty()) {
        std::string why = "mapping " + inQuotes(name) + " from " + inQuotes(from.name) + ":";
        if (!unplaced.empty())
            why += " classes without a target: " + joinedNames(unplaced) + ";";
        if (!unknown.empty())
            why += " not classes of " + inQuotes(from.name) + ": " + joinedNames(unknown) + ";";
        why += " the classes of " + inQuotes(from.name) + " are " + joinedNames(from.classNames);
        throw std::invalid_argument(why);
    }
    return out;
}

LabelSet LabelMapping::apply(const Dataset& ds) const
{
    const LabelSet& from = ds.requireLabelSet(source);
    const std::vector<std::int32_t> target = targetOf(from);
    LabelSet out;
    out.name = name;
    out.classNames = classNames();
    out.labels.resize(from.labels.size(), kUnlabelled);
    for (std::size_t i = 0; i < from.labels.size(); ++i) {
        const std::int32_t l = from.labels[i];
        if (l >= 0 && static_cast<std::size_t>(l) < target.size())
            out.labels[i] = target[static_cast<std::size_t>(l)];
    }
    return out;
}

LabelMapping readLabelMapping(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw sdk::InputError(path, "", "cannot open");
    // Mappings are a few hundred bytes; refuse what cannot be one before reading it whole.
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::streamoff>(in.tellg());
    if (size > (std::streamoff(16) << 20))
        throw sdk::InputError(path, "", "too large for a label mapping (" + std::to_string(size) + " bytes)");
    in.seekg(0);
    std::ostringstream text;
    text << in.rdbuf();
    return LabelMapping::fromJson(text.str(), path);
}

LabelMapping identityMapping(const LabelSet& from, const std::string& name)
{
    LabelMapping m;
    m.name = name;
    m.source = from.name;
    for (const std::string& c : from.classNames)
        m.classes.emplace_back(c, std::vector<std::string>{c});
    return m;
}

} // namespace setscope::data
