// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace setscope::dist {

/// Where the ranks of a run meet and who this process is among them.
struct Rendezvous {
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;
    /// A FileStore on this path (one machine: `setscope-cli ... --nproc N`), else a TCPStore.
    std::string file;
    std::string host;            ///< the TCPStore's address (MASTER_ADDR)
    int port = 29500;            ///< MASTER_PORT (torchrun's default)
    /// TORCHELASTIC_USE_AGENT_STORE: torchrun's agent already serves the store at host:port, so
    /// every rank (rank 0 too) connects as a client, under the prefix /worker/attempt_<restart>.
    bool agentStore = false;
    int restartCount = 0;        ///< TORCHELASTIC_RESTART_COUNT
    /// How long a collective or the rendezvous waits for a rank before failing.
    std::chrono::milliseconds timeout{std::chrono::minutes(30)};
    std::string origin;          ///< "torchrun", "SLURM", "setscope-cli --nproc", "environment"

    /// "rank 1 of 4 (SLURM, TCP store node1:29500)"
    std::string describe() const;
};

using Getenv = std::function<const char*(const char*)>;

/// The rendezvous the environment describes, or nothing for a single-process run:
///  - SETSCOPE_DIST_STORE=file:PATH with RANK, WORLD_SIZE (setscope-cli --nproc's ranks);
///  - WORLD_SIZE, RANK, LOCAL_RANK, MASTER_ADDR, MASTER_PORT (torchrun, or set by hand), with
///    TORCHELASTIC_USE_AGENT_STORE and TORCHELASTIC_RESTART_COUNT when torchrun sets them;
///  - SLURM_NTASKS, SLURM_PROCID, SLURM_LOCALID (srun), with MASTER_ADDR (required: the first
///    node of the allocation) and MASTER_PORT (default 29500).
/// WORLD_SIZE (or SLURM_NTASKS) of 1 is a single-process run. SETSCOPE_DIST_TIMEOUT (seconds)
/// sets the timeout. Throws std::invalid_argument naming the variable that is missing or wrong.
std::optional<Rendezvous> rendezvousFromEnvironment(const Getenv& getenv);
std::optional<Rendezvous> rendezvousFromEnvironment();

} // namespace setscope::dist
