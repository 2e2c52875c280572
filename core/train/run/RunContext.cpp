// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/RunContext.h"

#include "core/data/Dataset.h"
#include "core/dist/Communicator.h"
#include "core/train/TrainingJob.h"
#include "core/train/run/Stages.h"
#include "core/train/run/TorchRuntime.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace setscope::train::run {

std::uint64_t mixSeed(std::uint64_t a, std::uint64_t b, std::uint64_t c)
{
    std::uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0xBF58476D1CE4E5B9ULL) * 0x94D049BB133111EBULL ^ (c + 1) * 0xD6E8FEB86659FD93ULL;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return x;
}

namespace {

TrainerConfig rankConfig(const TrainerConfig& config, int rank)
{
    TrainerConfig c = config;
    if (rank != 0) {
        c.checkpointDir.clear();
        c.evaluateEachEpoch = false;
        c.snapshotEvery = 0;
    }
    return c;
}

} // namespace

RunContext::RunContext(const data::Dataset& dataset, const data::Dataset* externalDataset, const TrainerConfig& config,
                       const plugin::Registry& reg, dist::Communicator* communicator, RunHost& runHost)
    : t0(Clock::now())
    , ds(dataset)
    , external(externalDataset)
    , jobConfig(config)
    , cfg(rankConfig(config, communicator ? communicator->rank() : 0))
    , registry(reg)
    , comm(communicator)
    , world(communicator ? communicator->size() : 1)
    , rank(communicator ? communicator->rank() : 0)
    , host(runHost)
    , device([&] {
        if (cfg.batchShards % world != 0)
            throw std::invalid_argument("batch_shards " + std::to_string(cfg.batchShards) + " is not a multiple of the " +
                                        std::to_string(world) + " ranks of this run: every rank takes the same number of "
                                        "parts of each batch (--batch-shards " + std::to_string(world) + " or a multiple)");
        return torch::Device(deviceForRank(resolveDevice(cfg.device), comm ? comm->localRank() : -1));
    }())
    , threads(setThreadsHere(cfg.threads))
    , plan(planRun(cfg, registry))
    , labelSet(ds.labelSet(cfg.labelSet))
    , labels(labelSet ? labelSet->labels : std::vector<std::int32_t>(ds.size(), -1))
{
    const std::vector<std::int64_t> trainSplit = ds.indices(data::Split::Train);
    if (plan.validationFraction > 0 && labelSet)
        validation = stratifiedShare(trainSplit, labels, plan.validationFraction, mixSeed(cfg.seed, 0x7a1, 0));
    std::set_difference(trainSplit.begin(), trainSplit.end(), validation.begin(), validation.end(), std::back_inserter(pool));
    if (pool.empty())
        throw std::invalid_argument("dataset '" + ds.name() + "' has no items in its train split to train on");

    if (plan.needsExternal) {
        if (!external)
            throw std::invalid_argument("recipe " + cfg.recipe + " needs the external dataset " + cfg.externalDataset +
                                        ", which was not opened");
        if (external->dim() != ds.dim())
            throw std::invalid_argument("external dataset '" + external->name() + "' has " +
                                        std::to_string(external->dim()) + "-d elements, '" + ds.name() + "' " +
                                        std::to_string(ds.dim()) + "-d: pre-training needs the same element vectors");
    }
}

} // namespace setscope::train::run
