// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

namespace setscope::util {

/// ASCII lower case (file extensions, column names, option values).
inline std::string toLower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// The extension of `path` in lower case, with the dot (".npy"), "" when none.
inline std::string lowerExtension(const std::string& path)
{
    return toLower(std::filesystem::path(path).extension().string());
}

} // namespace setscope::util
