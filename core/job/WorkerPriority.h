// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

namespace setscope::job {

/// Niceness added (Linux: 0..19) to the worker thread of every job started with Job::start()
/// from now on, and so to the threads it starts (LibTorch's and OpenMP's pools created by it).
/// The GUI's session sets it so that its own thread wins the CPU over the background work it
/// starts (a click or a frame waits less); the CLI leaves it at 0. Process-wide; any thread.
void setWorkerNiceness(int increment);
int workerNiceness();

} // namespace setscope::job
