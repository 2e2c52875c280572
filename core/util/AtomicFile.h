// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>

namespace setscope::util {

/// Writes a whole file so that `path` holds either its previous content or the new one, never a
/// mix: `fill` writes into `path`.part, which is flushed to disk (fsync) and renamed over `path`.
/// The write, fsync and rename calls go through the fault seam (util/Faults.h). When writing
/// fails (disk full, I/O error, no permission, `fill` throws) the part file is removed and the
/// previous `path` is left untouched. Throws std::runtime_error naming `path` and the cause
/// ("...: cannot write: No space left on device (the disk is full)"); exceptions of `fill`
/// propagate after the clean-up, unless the stream had failed first (then the disk's error is
/// the one thrown). After a failed write the stream stays good and drops the bytes, so `fill`
/// runs to its end (a writer that throws from a destructor on a failed stream cannot abort).
void writeFileAtomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill);

} // namespace setscope::util
