// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/TrainingRun.h"

#include "core/data/Dataset.h"
#include "core/job/Job.h"
#include "core/plugin/Registry.h"
#include "core/train/run/Embedding.h"
#include "core/train/run/TorchRuntime.h"
#include "core/util/OpenMpWait.h"

#include <chrono>
#include <stdexcept>

namespace setscope::train::run {

namespace {

/// For batches laid out as (anchor, positive, negative) triplets (seed 004's mined batches): the
/// share of positives, and of negatives, whose label equals their anchor's, over the triplets
/// whose three items are labelled in `labels`. {-1, -1} when none is.
std::pair<double, double> tripletClassShares(const std::vector<std::vector<std::int64_t>>& batches,
                                             const std::vector<std::int32_t>& labels)
{
    std::int64_t n = 0, samePositive = 0, sameNegative = 0;
    for (const auto& b : batches)
        for (std::size_t i = 0; i + 2 < b.size(); i += 3) {
            const std::int32_t a = labels[static_cast<std::size_t>(b[i])];
            const std::int32_t p = labels[static_cast<std::size_t>(b[i + 1])];
            const std::int32_t q = labels[static_cast<std::size_t>(b[i + 2])];
            if (a < 0 || p < 0 || q < 0)
                continue;
            ++n;
            samePositive += p == a;
            sameNegative += q == a;
        }
    if (n == 0)
        return {-1.0, -1.0};
    return {static_cast<double>(samePositive) / static_cast<double>(n), static_cast<double>(sameNegative) / static_cast<double>(n)};
}

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

} // namespace

TrainingRun::TrainingRun(const data::Dataset& dataset, const data::Dataset* external, const TrainerConfig& config,
                         const plugin::Registry& registry, dist::Communicator* comm, RunHost& host)
    : m_ctx(dataset, external, config, registry, comm, host)
    , m_stages(m_ctx)
    // The run's length is known (and shown) before the checkpoint to resume from is read.
    , m_checkpoints((host.record().setTotalSteps(m_stages.total()), m_ctx), m_stages, m_state)
    , m_sync(m_ctx)
    , m_evaluator(m_ctx, m_state, m_checkpoints, m_stages.total())
    , m_steps(m_ctx, m_state, m_sync)
    , m_publisher(m_ctx, m_stages, m_state)
    , m_batchesStage(m_stages.size())
{
    m_state.stage.index = m_stages.size(); // no stage entered yet
}

void TrainingRun::run()
{
    begin();
    const std::int64_t total = m_stages.total();
    m_state.enc->train();
    while (m_state.step < total) {
        const std::size_t k = m_stages.stageOf(m_state.step);
        if (k != m_state.stage.index)
            enterStage(k, false);
        const StageRun& st = m_stages[k];
        const std::int64_t local = m_state.step - st.firstStep;
        const std::int64_t epoch = local / st.perEpoch;
        if (epoch != m_batchesEpoch || k != m_batchesStage)
            loadEpochBatches(k, epoch);
        m_ctx.control().checkpoint();
        const StepRunner::Result r =
            m_steps.step(st, m_batches[static_cast<std::size_t>(local % st.perEpoch)], m_epochStats);
        m_state.lastLoss = r.loss;
        m_state.epochLossSum += r.loss;
        ++m_state.epochLossCount;
        ++m_state.step;
        afterStep(k, epoch, r.emdSeconds);
    }
    end();
}

void TrainingRun::begin()
{
    const TrainerConfig& cfg = m_ctx.cfg;
    const std::int64_t total = m_stages.total();
    {
        std::lock_guard lock(initMutex());
        torch::manual_seed(cfg.seed);
        m_state.enc = m_ctx.plan.encoder->create(encoderSpec(m_ctx.registry, cfg, m_ctx.ds.dim()));
    }
    m_state.enc->to(m_ctx.device);
    m_checkpoints.loadStart();
    m_sync.checkSameRun(total, m_state.step);
    if (m_checkpoints.resuming()) {
        const std::size_t k = m_stages.stageOf(m_state.step);
        enterStage(k, m_checkpoints.continuesStage(k));
        const std::string& overridden = m_checkpoints.overridden();
        m_ctx.message("resumed from " + cfg.resumeFrom + " at step " + std::to_string(m_state.step) +
                      (overridden.empty() ? std::string(" (an exact continuation)")
                                          : " with " + overridden + " (overridden: not an exact continuation)"));
        if (m_state.step >= total)
            m_ctx.message("the checkpoint is at step " + std::to_string(m_state.step) + " and this run ends at step " +
                          std::to_string(total) + ": nothing to train (raise --epochs to extend it)");
    }
    m_checkpoints.prepareFolder();
    m_ctx.message("training " + cfg.model + (cfg.recipe.empty() ? std::string() : " with recipe " + cfg.recipe) + " on '" +
                  m_ctx.ds.name() + "': " + m_ctx.plan.describe() + "; " + std::to_string(total) + " steps, " +
                  (m_ctx.validation.empty() ? std::string("no validation split")
                                            : std::to_string(m_ctx.validation.size()) + " validation items") +
                  ", device " + m_ctx.device.str() + ", " + m_ctx.threads + ", OpenMP waiting " + util::openMpWaitPolicy());
    if (m_state.step == 0 && cfg.evaluateEachEpoch)
        m_evaluator.reportInitialSpread();
    if (cfg.snapshotEvery > 0)
        m_publisher.publishSnapshot(m_state.step);
    m_lastReport = Clock::now() - std::chrono::seconds(1);
}

void TrainingRun::enterStage(std::size_t k, bool restore)
{
    StageRun& st = m_stages[k];
    m_state.stage = buildStage(m_ctx, st, k, m_state.step, *m_state.enc);
    if (restore)
        m_checkpoints.restoreStage(st);
    m_sync.startStage(m_state.stage, *m_state.enc);
    m_state.stage.captureBaseLr();
    m_ctx.message(m_state.stage.describe(st, m_stages.size()));
}

void TrainingRun::loadEpochBatches(std::size_t k, std::int64_t epoch)
{
    StageRun& st = m_stages[k];
    const std::int64_t local = m_state.step - st.firstStep;
    // A sampler that mines from the model (seed 004) does so at the start of every
    // refreshEvery()-th epoch, and once when a resumed run has no mined batches to restore.
    if (const std::int64_t every = st.sampler->refreshEvery(); every > 0) {
        const bool due = epoch % every == 0 && local % st.perEpoch == 0;
        if (due || !st.mined) {
            if (!due)
                m_ctx.message("the checkpoint holds no mined batches: mining anew at step " + std::to_string(m_state.step) +
                              " (not an exact continuation)");
            m_ctx.host.progress(m_state.step, m_stages.total(),
                                st.plan->stage.name + ": mining batches for epoch " + std::to_string(epoch + 1));
            const auto m0 = Clock::now();
            const sdk::EmbedItems embed = [&](const std::vector<std::int64_t>& its, int& dim) {
                dim = static_cast<int>(m_state.enc->outputDim());
                return embedItems(*m_state.enc, *st.dataset, its, m_ctx.device, &m_ctx.control());
            };
            st.sampler->refresh(epoch, embed);
            st.mined = true;
            m_ctx.message(st.plan->stage.name + ": batches of epoch " + std::to_string(epoch + 1) + " mined in " +
                          std::to_string(secondsSince(m0)) + " s");
            if (m_ctx.labelSet && st.plan->stage.sampler == "ssdml-triplets") {
                // How well the mining guessed, by the full label set (which it did not read
                // beyond the labelled items): docs/SSDML.md "Why SSDML lowers NMI here".
                const auto [pos, neg] = tripletClassShares(st.sampler->epochBatches(epoch), m_ctx.labels);
                if (pos >= 0)
                    m_ctx.message(st.plan->stage.name + ": mined triplets by the labels of '" + m_ctx.cfg.labelSet +
                                  "': positive of the anchor's class " + std::to_string(pos) + ", negative " +
                                  std::to_string(neg));
            }
        }
    }
    m_batches = st.sampler->epochBatches(epoch);
    if (static_cast<std::int64_t>(m_batches.size()) != st.perEpoch)
        throw std::logic_error("sampler " + st.samplerName + " gave " + std::to_string(m_batches.size()) +
                               " batches for epoch " + std::to_string(epoch) + ", announced " + std::to_string(st.perEpoch));
    if (const int shards = m_ctx.cfg.batchShards; shards > 1) {
        // Parts of fewer than 2 sets have no pairs: only a short last batch may have them.
        std::size_t largest = 0;
        for (const auto& b : m_batches)
            largest = std::max(largest, b.size());
        if (largest < 2 * static_cast<std::size_t>(shards))
            throw std::invalid_argument("a batch of " + std::to_string(largest) + " sets cut into " + std::to_string(shards) +
                                        " parts leaves fewer than 2 sets in a part: lower --batch-shards or raise the "
                                        "batch size");
    }
    m_batchesEpoch = epoch;
    m_batchesStage = k;
}

void TrainingRun::afterStep(std::size_t k, std::int64_t epoch, double emdSeconds)
{
    const TrainerConfig& cfg = m_ctx.cfg;
    const StageRun& st = m_stages[k];
    const std::int64_t step = m_state.step;
    const std::int64_t total = m_stages.total();
    const std::int64_t globalEpoch = m_stages.epochOf(step);
    m_ctx.host.setCounters(step, total, static_cast<int>(globalEpoch), m_state.lastLoss);
    if (const auto now = Clock::now(); now - m_lastReport >= std::chrono::milliseconds(50) || step == total) {
        m_lastReport = now;
        if (TrainingSink* sink = m_ctx.host.trainingSink()) {
            sink->stepLoss(step, m_state.lastLoss);
            sink->progress(step, total,
                           st.plan->stage.name + " epoch " + std::to_string(epoch + 1) + "/" +
                               std::to_string(st.plan->epochs) +
                               (emdSeconds > 0 ? ", EMD " + std::to_string(static_cast<int>(emdSeconds * 1000)) + " ms"
                                               : std::string()));
        }
    }
    const bool epochEnd = (step - st.firstStep) % st.perEpoch == 0;
    if (cfg.snapshotEvery > 0 && (step % cfg.snapshotEvery == 0 || epochEnd || step == total))
        m_publisher.publishSnapshot(step);
    if (epochEnd || step == total) {
        const double mean = m_state.epochLossCount ? m_state.epochLossSum / static_cast<double>(m_state.epochLossCount) : 0.0;
        m_state.epochLossSum = 0.0;
        m_state.epochLossCount = 0;
        const bool stageEnd = step == total || step >= st.firstStep + st.steps;
        m_evaluator.evaluate(static_cast<int>(globalEpoch), mean, st.plan->stage.name, k + 1 == m_stages.size(),
                             st.plan->stage.metrics, stageEnd || (epoch + 1) % cfg.evaluateEvery == 0, m_epochStats);
        m_epochStats = {}; // the EMD, padding and phase figures of a row are its epoch's
    }
    if ((cfg.checkpointEvery > 0 && step % cfg.checkpointEvery == 0) || (cfg.checkpointEvery == 0 && epochEnd) ||
        step == total)
        m_checkpoints.save(step);
}

void TrainingRun::end()
{
    const BestEpoch& best = m_checkpoints.best();
    if (m_checkpoints.restoreBest()) {
        // The run's model is the best validation epoch's: score it as the final row.
        m_ctx.message("best validation kNN " + std::to_string(best.validation) + " at epoch " + std::to_string(best.epoch) +
                      (best.path.empty() ? std::string() : " (" + best.path + ")"));
        m_evaluator.evaluate(best.epoch, 0.0, "best (epoch " + std::to_string(best.epoch) + ")", false,
                             m_stages.last().plan->stage.metrics, true, EpochStats{});
    }
    if (!best.path.empty())
        m_ctx.host.record().setBestCheckpoint(best.path);
    m_publisher.finish(); // every requested snapshot is published before the run reports its end
    m_publisher.publishModel(m_state.step);
    m_ctx.message("finished after " + std::to_string(m_state.step) + " steps");
}

} // namespace setscope::train::run
