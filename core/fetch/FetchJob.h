// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/Job.h"

#include <memory>
#include <string>

namespace setscope::fetch {

/// Fetches a built-in source (and, first, the sources it requires that are not fetched)
/// into dataRoot(). Blocking; runs on the calling thread.
///  - Nothing happens when the source is already fetched (same format version) unless
///    `force`.
///  - The fetcher writes into a temporary sibling folder (dataRoot()/.NAME.tmp-PID) that
///    replaces dataRoot()/NAME in one atomic rename only once it is complete, with its
///    MANIFEST.json: a failed, cancelled or killed fetch leaves an earlier complete copy
///    untouched and never a half dataset (leftovers are removed by the next fetch).
///  - A lock file (dataRoot()/.NAME.lock, flock) keeps two processes from fetching the
///    same source at once: the second waits, then finds it fetched.
/// `sink` and `control` may be nullptr. Throws FetchError (registry unreachable, package
/// changed), sdk::InputError (a file in the package is malformed), std::invalid_argument
/// (unknown name), job::Cancelled.
void fetchSource(const std::string& name, bool force, job::ProgressSink* sink, job::JobControl* control);

/// fetchSource on a worker thread (the GUI's Fetch action). Progress: what is being done
/// and done/total where known; cancel takes effect within a second (a running apt-get or
/// npm is killed with its process group).
class FetchJob final : public job::Job {
public:
    explicit FetchJob(std::string name, bool force = false);
    ~FetchJob() override;

    const std::string& name() const { return m_name; }

protected:
    void run() override;

private:
    class Forwarder;
    std::string m_name;
    bool m_force;
};

} // namespace setscope::fetch
