// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <archive.h>

#include <string>

namespace setscope::fetch {

/// libarchive's message for the last error of `a`. archive_error_string() may return NULL
/// (appending that to a std::string read address 0: the fetch_archives fuzz target's finding),
/// which gives "unknown libarchive error".
inline std::string archiveError(archive* a)
{
    const char* m = archive_error_string(a);
    return m ? std::string(m) : std::string("unknown libarchive error");
}

} // namespace setscope::fetch
