// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/dist/Communicator.h"

#include <memory>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}

namespace setscope::cli {

/// The command line as main() received it (for --nproc, which starts the same command again).
std::vector<std::string>& commandLine();

/// A rank's command line: `line` (argv[0] first) without --nproc and without every flag that
/// `extra` sets (as "--flag value" or "--flag=value"), then `extra`. So the launcher's flags
/// replace the user's instead of repeating them. Arguments after "--" are kept as they are.
std::vector<std::string> rankCommandLine(const std::vector<std::string>& line, const std::vector<std::string>& extra);

/// `setscope-cli <command> ... --nproc N`: runs this command line again as N local ranks
/// (dist::runLocalRanks), through rankCommandLine() with `extra` (flags the ranks need, e.g.
/// --batch-shards N) and --threads: `threads`, or each rank's share of the cores when `threads`
/// is 0. OMP_NUM_THREADS and OPENBLAS_NUM_THREADS are that count unless set. Refuses when this
/// process is already a rank. Returns the exit code.
int launchLocalRanks(int nproc, int threads, std::vector<std::string> extra);

/// This process's place in a distributed run, from the environment (dist/Rendezvous.h); a
/// single-process run has no communicator and leads.
struct RankContext {
    std::shared_ptr<dist::Communicator> comm;
    bool lead = true; ///< rank 0: prints, records, writes
};
/// Joins the run the environment describes (blocking until every rank has joined); prints
/// "distributed: rank 0 of 2 (...)" on rank 0.
RankContext joinRun();

/// Rank 0's label set `name` of its dataset (a project's labels, a derived set) replaces the
/// other ranks' own, so every rank trains on rank 0's labels; a no-op without a communicator.
void shareLabelSet(const RankContext& rank, std::shared_ptr<const data::Dataset>& dataset, const std::string& name);

} // namespace setscope::cli
