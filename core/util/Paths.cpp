// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/Paths.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <pwd.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace setscope::util {

std::string userCacheDir()
{
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && x[0] == '/')
        return (fs::path(x) / "setscope").string();
    if (const char* home = std::getenv("HOME"); home && home[0])
        return (fs::path(home) / ".cache" / "setscope").string();
    std::vector<char> buf(16384);
    passwd pw{};
    passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found && found->pw_dir)
        return (fs::path(found->pw_dir) / ".cache" / "setscope").string();
    throw std::runtime_error("no cache directory: XDG_CACHE_HOME and HOME are not set and the user has no home "
                             "directory; set a cache directory explicitly");
}

} // namespace setscope::util
