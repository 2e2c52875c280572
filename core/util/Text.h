// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>

namespace setscope::util {

/// ASCII lower case (file extensions, column names, option values).
inline std::string toLower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// `s` without the spaces and tabs at either end (option values, CSV cells, spec parts); the
/// one trim of the code base.
inline std::string trimmed(std::string_view s)
{
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos)
        return {};
    return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

/// The extension of `path` in lower case, with the dot (".npy"), "" when none.
inline std::string lowerExtension(const std::string& path)
{
    return toLower(std::filesystem::path(path).extension().string());
}

} // namespace setscope::util
