// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <string>

namespace setscope::util {

/// setscope's per-user cache folder: $XDG_CACHE_HOME/setscope (absolute XDG_CACHE_HOME),
/// else $HOME/.cache/setscope, else the account's home directory/.cache/setscope. Read on
/// every call (tests change the environment). Throws std::runtime_error when none exists.
/// Users: pairwise EMD matrices, word-vector and fastText caches.
std::string userCacheDir();

} // namespace setscope::util
