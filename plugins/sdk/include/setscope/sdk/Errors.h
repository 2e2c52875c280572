// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace setscope::sdk {

/// Bad user input: a file that cannot be read as what it claims to be, a record with the
/// wrong dimension, a NaN, an empty set. Loaders (built-in and plugins) throw it; jobs,
/// the CLI and the GUI catch it at their boundary and show what() to the user.
/// `file` names the file, `location` the record, line or byte offset ("" when not known).
class InputError : public std::runtime_error {
public:
    InputError(std::string file, std::string location, const std::string& message)
        : std::runtime_error(compose(file, location, message))
        , m_file(std::move(file))
        , m_location(std::move(location))
    {
    }

    const std::string& file() const noexcept { return m_file; }
    const std::string& location() const noexcept { return m_location; }

    static std::string atOffset(std::uint64_t offset) { return "byte offset " + std::to_string(offset); }
    static std::string atLine(std::uint64_t line) { return "line " + std::to_string(line); }
    static std::string atRecord(std::uint64_t record) { return "record " + std::to_string(record); }

private:
    static std::string compose(const std::string& file, const std::string& location, const std::string& message)
    {
        std::string s = file.empty() ? std::string("input") : file;
        if (!location.empty())
            s += " (" + location + ")";
        return s + ": " + message;
    }

    std::string m_file;
    std::string m_location;
};

} // namespace setscope::sdk
