// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <string>

namespace setscope::util {

/// libgomp (LibTorch's and OpenBLAS's thread pools on Debian) reads OMP_WAIT_POLICY once,
/// when it is loaded, before main(). Its default lets idle workers spin between parallel
/// regions; on a machine whose cores have other work that spinning takes the CPU from the
/// working threads (the encoder trained at 2.86x the padded reference's speed with it, 5.8x
/// with passive waiting: docs/BENCHMARKS.md, Issue 9).
///
/// Call first thing in main(): when OMP_WAIT_POLICY is not set, sets it to "passive" and
/// re-executes the program (/proc/self/exe, same arguments), so that libgomp reads it.
/// Returns without doing anything when it is already set (by the user: their choice wins, or
/// by the re-exec), when SETSCOPE_NO_REEXEC is set, or when the re-exec fails (the program
/// then goes on with libgomp's default).
void ensurePassiveOpenMpWait(char** argv);

/// The policy this process runs with, for diagnostics: "passive (set by setscope)",
/// "active (OMP_WAIT_POLICY from the environment)", "libgomp's default (active)".
std::string openMpWaitPolicy();

} // namespace setscope::util
