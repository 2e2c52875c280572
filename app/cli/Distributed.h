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

/// `setscope-cli <command> ... --nproc N`: runs this command line again as N local ranks
/// (dist::runLocalRanks), without --nproc and with `extra` appended (flags the ranks need, e.g.
/// --batch-shards N). Each rank gets `threads` threads, or its share of the cores when `threads`
/// is 0 (then also passed as --threads); OMP_NUM_THREADS and OPENBLAS_NUM_THREADS are that count
/// unless set. Refuses when this process is already a rank. Returns the exit code.
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
