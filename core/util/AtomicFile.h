// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>

namespace setscope::util {

/// Writes a whole file so that `path` holds either its previous content or the new one, never a
/// mix: `fill` writes into `path`.part, which is flushed to disk (fsync) and renamed over `path`.
/// When writing fails (disk full, no permission, `fill` throws) the part file is removed and the
/// previous `path` is left untouched. Throws std::runtime_error naming `path` and the cause;
/// exceptions of `fill` propagate after the clean-up.
void writeFileAtomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill);

} // namespace setscope::util
