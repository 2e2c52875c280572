// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/dist/Rendezvous.h"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace setscope::dist {

namespace {

/// The integer value of `name`, or `fallback` when it is unset; throws when it is not an
/// integer in [lo, hi].
long long integerVar(const Getenv& getenv, const char* name, std::optional<long long> fallback, long long lo, long long hi)
{
    const char* v = getenv(name);
    if (!v || !*v) {
        if (fallback)
            return *fallback;
        throw std::invalid_argument(std::string("the environment variable ") + name + " is not set");
    }
    const std::string_view s(v);
    long long x = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (ec != std::errc() || end != s.data() + s.size() || x < lo || x > hi)
        throw std::invalid_argument(std::string("the environment variable ") + name + "='" + v +
                                    "' is not an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return x;
}

} // namespace

std::string Rendezvous::describe() const
{
    return "rank " + std::to_string(rank) + " of " + std::to_string(worldSize) + " (" + origin + ", " +
           (file.empty() ? std::string(agentStore ? "torchrun agent's TCP store " : "TCP store ") + host + ":" +
                               std::to_string(port)
                         : "file store " + file) +
           ")";
}

std::optional<Rendezvous> rendezvousFromEnvironment(const Getenv& getenv)
{
    Rendezvous r;
    constexpr long long kMaxRanks = 1 << 20;
    const char* worldVar = nullptr;
    if (const char* w = getenv("WORLD_SIZE"); w && *w) {
        worldVar = "WORLD_SIZE";
    } else if (const char* n = getenv("SLURM_NTASKS"); n && *n) {
        worldVar = "SLURM_NTASKS";
    } else {
        return std::nullopt;
    }
    const bool slurm = std::string_view(worldVar) == "SLURM_NTASKS";
    r.worldSize = static_cast<int>(integerVar(getenv, worldVar, std::nullopt, 1, kMaxRanks));
    if (r.worldSize == 1)
        return std::nullopt;
    r.rank = static_cast<int>(integerVar(getenv, slurm ? "SLURM_PROCID" : "RANK", std::nullopt, 0, r.worldSize - 1));
    r.localRank = static_cast<int>(integerVar(getenv, slurm ? "SLURM_LOCALID" : "LOCAL_RANK", 0LL, 0, kMaxRanks));
    if (const char* t = getenv("SETSCOPE_DIST_TIMEOUT"); t && *t)
        r.timeout = std::chrono::seconds(integerVar(getenv, "SETSCOPE_DIST_TIMEOUT", std::nullopt, 1, 7 * 24 * 3600));

    if (const char* s = getenv("SETSCOPE_DIST_STORE"); s && *s) {
        const std::string_view store(s);
        if (store.rfind("file:", 0) != 0 || store.size() <= 5)
            throw std::invalid_argument(std::string("SETSCOPE_DIST_STORE='") + s + "': expected file:PATH");
        r.file = std::string(store.substr(5));
        r.origin = "setscope-cli --nproc";
        return r;
    }
    const char* addr = getenv("MASTER_ADDR");
    if (!addr || !*addr)
        throw std::invalid_argument(
            slurm ? std::string("SLURM_NTASKS=") + getenv("SLURM_NTASKS") +
                        ": set MASTER_ADDR to the first node of the allocation (MASTER_ADDR=$(scontrol show hostnames "
                        "\"$SLURM_JOB_NODELIST\" | head -n 1); docs/DISTRIBUTED.md)"
                  : std::string("WORLD_SIZE=") + getenv("WORLD_SIZE") +
                        " but MASTER_ADDR is not set: the address of rank 0's machine (torchrun sets it)");
    r.host = addr;
    r.port = static_cast<int>(integerVar(getenv, "MASTER_PORT", 29500LL, 1, 65535));
    if (const char* a = getenv("TORCHELASTIC_USE_AGENT_STORE"); a && std::string_view(a) == "True") {
        r.agentStore = true;
        r.restartCount = static_cast<int>(integerVar(getenv, "TORCHELASTIC_RESTART_COUNT", 0LL, 0, 1 << 30));
    }
    r.origin = slurm ? "SLURM" : getenv("TORCHELASTIC_RUN_ID") ? "torchrun" : "environment";
    return r;
}

std::optional<Rendezvous> rendezvousFromEnvironment()
{
    return rendezvousFromEnvironment([](const char* n) { return std::getenv(n); });
}

} // namespace setscope::dist
