// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>

namespace setscope::sdk {

/// What a loader may use, besides the sink, while it reads: progress for the user, and the
/// user's cancel and pause. The host implements it (inside a load job it forwards to the
/// job); a plain LoadContext does nothing, so a loader may always call it. A loader that can
/// take more than a second calls checkpoint() about every 100 ms. Valid during load() only.
class LoadContext {
public:
    virtual ~LoadContext() = default;

    /// `done` of `total` units (total 0 = unknown); `what` says what is being done
    /// ("sampling point clouds"). Any thread of the loader, one call at a time.
    virtual void progress(std::int64_t /*done*/, std::int64_t /*total*/, const std::string& /*what*/) {}
    /// A line for the user's log ("vectors read from the cache"); what belongs with the
    /// dataset goes to DatasetSink::note(). Any thread of the loader, one call at a time.
    virtual void message(const std::string& /*text*/) {}
    /// Returns at once normally, blocks while the user has paused, and throws once the user
    /// has cancelled (an exception of the host's own type: let it pass through). The loader's
    /// calling thread.
    virtual void checkpoint() {}
    /// True once the user has cancelled: stop, then call checkpoint() on the calling thread.
    /// Never throws; any thread (worker threads, callbacks of other libraries).
    virtual bool cancelRequested() const { return false; }
    /// True while the user has paused; any thread (worker threads wait while it holds).
    virtual bool paused() const { return false; }
};

} // namespace setscope::sdk
