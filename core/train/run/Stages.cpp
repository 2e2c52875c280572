// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/Stages.h"

#include "core/data/Dataset.h"
#include "core/plugin/Registry.h"
#include "core/losses/MahalanobisMetric.h"
#include "core/train/PairAffinity.h"
#include "core/train/run/Embedding.h"
#include "core/train/run/RunContext.h"
#include "core/train/run/TorchRuntime.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

namespace setscope::train::run {

namespace {

/// Some items of each class of `items` (labels < 0 left out), chosen by a seeded shuffle of
/// each class (the same for the same seed): `take(class size)` of them, at most all. Returns
/// the chosen items, ascending.
template <class Take>
std::vector<std::int64_t> classShare(const std::vector<std::int64_t>& items, const std::vector<std::int32_t>& labels,
                                     std::uint64_t seed, Take take)
{
    std::map<std::int32_t, std::vector<std::int64_t>> byClass;
    for (std::int64_t i : items)
        if (labels[static_cast<std::size_t>(i)] >= 0)
            byClass[labels[static_cast<std::size_t>(i)]].push_back(i);
    std::vector<std::int64_t> out;
    std::mt19937_64 rng(seed);
    for (auto& [c, v] : byClass) {
        std::shuffle(v.begin(), v.end(), rng);
        const std::size_t n = std::min<std::size_t>(take(v.size()), v.size());
        out.insert(out.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// Whether a stage's loss reads labels: needs() depends on the options only, so a throwaway
/// instance answers it.
bool lossReadsLabels(const PlannedStage& ps, const TrainerConfig& cfg)
{
    sdk::LossSpec probe;
    probe.options = ps.lossOptions;
    probe.embeddingDim = cfg.embeddingDim;
    // The smallest sizes every loss accepts: an instance-level loss (Exemplar) would otherwise
    // allocate a classifier over the whole dataset just to answer needs().
    probe.numClasses = 2;
    probe.datasetSize = 2;
    return ps.loss->create(probe)->needs().labels;
}

} // namespace

std::vector<std::int64_t> stratifiedShare(const std::vector<std::int64_t>& items, const std::vector<std::int32_t>& labels,
                                          double fraction, std::uint64_t seed)
{
    return classShare(items, labels, seed, [fraction](std::size_t size) {
        return std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(fraction * static_cast<double>(size))));
    });
}

std::vector<std::int64_t> perClassShare(const std::vector<std::int64_t>& items, const std::vector<std::int32_t>& labels,
                                        std::int64_t perClass, std::uint64_t seed)
{
    return classShare(items, labels, seed, [perClass](std::size_t) { return static_cast<std::size_t>(perClass); });
}

StageSchedule::StageSchedule(const RunContext& ctx)
    : m_stages(ctx.plan.stages.size())
{
    const TrainerConfig& cfg = ctx.cfg;
    const std::vector<std::int32_t>& labels = ctx.labels;
    for (std::size_t k = 0; k < ctx.plan.stages.size(); ++k) {
        StageRun& st = m_stages[k];
        st.plan = &ctx.plan.stages[k];
        st.dataset = st.plan->stage.external ? ctx.external : &ctx.ds;
        // Supervised when the stage reads labels and its loss or sampler uses them.
        const bool semiStage = st.plan->stage.labels == sdk::StageLabels::SemiSupervised;
        const bool labelStage = st.plan->stage.labels == sdk::StageLabels::Training || semiStage;
        const bool readsLabels = lossReadsLabels(*st.plan, cfg);
        if (readsLabels && !labelStage)
            throw std::invalid_argument("stage " + st.plan->stage.name + ": loss " + st.plan->loss->name +
                                        " needs labels but the stage is self-supervised");
        const sdk::SamplerInfo* samplerInfo = st.plan->sampler;
        if (!samplerInfo)
            samplerInfo = &ctx.registry.requireSampler(readsLabels ? "class-balanced" : "random");
        st.supervised = labelStage && (semiStage || readsLabels || samplerInfo->needsLabels);
        if (st.supervised && !ctx.labelSet)
            throw std::invalid_argument("dataset '" + ctx.ds.name() + "' has no label set '" + cfg.labelSet + "' for stage " +
                                        st.plan->stage.name + " (" + st.plan->loss->name + ")");
        sdk::SamplerSpec spec;
        spec.options = resolveSamplerOptions(*samplerInfo, *st.plan, cfg);
        spec.seed = mixSeed(cfg.seed, k, 0x5a3);
        if (st.plan->stage.external) {
            st.pool = st.dataset->indices(data::Split::Train);
        } else if (st.supervised) {
            std::vector<std::int64_t> labelled;
            for (std::int64_t i : ctx.pool)
                if (labels[static_cast<std::size_t>(i)] >= 0)
                    labelled.push_back(i);
            const int perClass = st.plan->stage.labelsPerClass;
            st.pool = perClass > 0               ? perClassShare(labelled, labels, perClass, mixSeed(cfg.seed, 0x1ab, 1))
                      : cfg.labelFraction < 1.0 ? stratifiedShare(labelled, labels, cfg.labelFraction, mixSeed(cfg.seed, 0x1ab, 0))
                                                : labelled;
            if (st.pool.empty())
                throw std::invalid_argument("dataset '" + ctx.ds.name() + "' has no labelled items in its train split for label set '" +
                                            cfg.labelSet + "'");
            if (semiStage) { // the kept labels on the whole pool, the others hidden
                st.labels.assign(labels.size(), -1);
                for (std::int64_t i : st.pool)
                    st.labels[static_cast<std::size_t>(i)] = labels[static_cast<std::size_t>(i)];
                st.pool = ctx.pool;
            }
        } else {
            st.pool = ctx.pool;
        }
        for (std::int64_t i : st.pool) {
            spec.items.push_back(i);
            spec.labels.push_back(!st.supervised ? -1 : st.labelsOr(labels)[static_cast<std::size_t>(i)]);
            spec.setSizes.push_back(static_cast<std::int64_t>(st.dataset->setSize(static_cast<std::size_t>(i))));
        }
        st.sampler = samplerInfo->create(spec);
        st.samplerName = samplerInfo->name;
        st.perEpoch = st.sampler->batchesPerEpoch();
        st.steps = st.perEpoch * st.plan->epochs;
        st.firstStep = m_total;
        m_total += st.steps;
    }
    if (cfg.maxSteps > 0)
        m_total = std::min(m_total, cfg.maxSteps);
}

std::size_t StageSchedule::stageOf(std::int64_t step) const
{
    std::size_t k = 0;
    while (k + 1 < m_stages.size() && step >= m_stages[k].firstStep + m_stages[k].steps)
        ++k;
    return k;
}

std::int64_t StageSchedule::epochOf(std::int64_t step) const
{
    // Epochs count across stages: the epochs of the stages before plus this stage's.
    std::int64_t e = 0;
    for (const StageRun& st : m_stages) {
        if (step >= st.firstStep + st.steps) {
            e += st.plan->epochs;
            continue;
        }
        if (step > st.firstStep)
            e += (step - st.firstStep) / st.perEpoch;
        break;
    }
    return e;
}

void ActiveStage::captureBaseLr()
{
    baseLr.clear();
    for (auto& g : opt->param_groups())
        baseLr.push_back(g.options().get_lr());
}

std::string ActiveStage::describe(const StageRun& st, std::size_t stageCount) const
{
    const PlannedStage& ps = *st.plan;
    const std::string items =
        !st.labels.empty() ? " items (" +
                                 std::to_string(std::count_if(st.labels.begin(), st.labels.end(), [](std::int32_t y) { return y >= 0; })) +
                                 " labelled)"
        : st.supervised ? std::string(" labelled items")
                        : std::string(" items");
    const std::string keys = keyEnc ? ", momentum key encoder m = " + std::to_string(needs.keyMomentum) +
                                          (augmentation ? " on the augmented views" : " on the sets (no augmentation)")
                             : needs.momentumKeys ? std::string(", keys from the encoder itself (momentum 0)")
                                                  : std::string();
    return "stage " + std::to_string(index + 1) + "/" + std::to_string(stageCount) + " " + ps.stage.name + ": " +
           ps.loss->name + (augmentation ? " + " + ps.augmentation->name : std::string()) + " on '" + st.dataset->name() +
           "', " + std::to_string(st.pool.size()) + items + ", " + std::to_string(st.perEpoch) + " steps/epoch x " +
           std::to_string(ps.epochs) + ", " + st.sampler->describe() + keys;
}

ActiveStage buildStage(const RunContext& ctx, StageRun& st, std::size_t k, std::int64_t step, sdk::SetEncoder& enc)
{
    const TrainerConfig& cfg = ctx.cfg;
    const PlannedStage& ps = *st.plan;
    const std::int64_t local = step - st.firstStep;
    ActiveStage a;
    a.index = k;
    {
        std::lock_guard lock(initMutex());
        torch::manual_seed(mixSeed(cfg.seed, k, 0x10));
        if (ps.stage.resetHead && local == 0) {
            if (!enc.resetHead())
                throw std::invalid_argument("stage " + ps.stage.name + " re-initialises the head, but model " + cfg.model +
                                            " has no separate head (use selfattn or deepsets)");
        }
        sdk::LossSpec lspec;
        lspec.options = ps.lossOptions;
        lspec.embeddingDim = cfg.embeddingDim;
        lspec.numClasses = ctx.labelSet ? ctx.labelSet->numClasses() : 0;
        lspec.datasetSize = static_cast<std::int64_t>(st.dataset->size());
        a.loss = ps.loss->create(lspec);
    }
    a.loss->to(ctx.device);
    a.needs = a.loss->needs();
    // Seed 004's graph-based baselines weigh the batch's pairs by the sampler's graph.
    a.affinityLoss = dynamic_cast<losses::PairAffinityLoss*>(a.loss.get());
    a.affinitySampler = dynamic_cast<const PairAffinitySampler*>(st.sampler.get());
    if (a.affinityLoss && !(a.affinitySampler && a.affinitySampler->hasAffinity()))
        throw std::invalid_argument("loss " + ps.loss->name + " weighs the batch's pairs by a graph's affinities: "
                                    "use the sampler ssdml-partition with an affinity other than none (sampler " +
                                    st.samplerName + " gives none)");
    if (ps.augmentation) {
        sdk::AugmentationSpec aspec;
        aspec.options = ps.augmentationOptions;
        a.augmentation = ps.augmentation->create(aspec);
    }
    if (a.needs.augmentedView && !a.augmentation)
        throw std::invalid_argument("loss " + ps.loss->name + " compares each set with an augmented view: choose an "
                                    "augmentation (--augmentation pointswap|pointdrop|pointmixup)");
    if (a.needs.momentumKeys && !(a.needs.keyMomentum >= 0.0 && a.needs.keyMomentum <= 1.0))
        throw std::invalid_argument("loss " + ps.loss->name + " asks for a key encoder with momentum " +
                                    std::to_string(a.needs.keyMomentum) + ", outside [0, 1]");
    // MoCo's key encoder: a copy of the encoder (as it is when the stage starts, or as the
    // checkpoint holds it), never in the optimizer. With m = 0 it would be the encoder itself.
    if (a.needs.momentumKeys && a.needs.keyMomentum > 0.0) {
        std::shared_ptr<sdk::SetEncoder> fresh = withoutDrawing(
            [&] { return ctx.plan.encoder->create(encoderSpec(ctx.registry, cfg, ctx.ds.dim())); });
        a.keyEnc = std::make_unique<KeyEncoder>(std::move(fresh), enc, a.needs.keyMomentum);
    }
    std::vector<torch::Tensor> trainable = enc.parameters();
    const std::vector<torch::Tensor> ownUpdate = a.loss->selfUpdatedParameters(); // the loss steps these itself
    // A loss that solves its own parameters inside forward() (seed 004's L by conjugate
    // gradient) would solve them on each rank's parts apart: they would drift between ranks.
    if (ctx.comm && !ownUpdate.empty() && ps.lossOptions.values().count("metric-solver") &&
        ps.lossOptions.text("metric-solver") == "cg")
        throw std::invalid_argument("loss " + ps.stage.loss + " solves its metric L on each batch (metric-solver cg): "
                                    "it cannot run on several ranks; run it in one process, or with "
                                    "--metric-solver step");
    for (const torch::Tensor& p : a.loss->parameters())
        if (std::none_of(ownUpdate.begin(), ownUpdate.end(), [&](const torch::Tensor& q) { return q.is_same(p); }))
            trainable.push_back(p);
    sdk::OptimizerSpec ospec;
    ospec.options = ctx.plan.optimizerOptions;
    ospec.learningRate = ctx.plan.optimizerOptions.real("lr");
    a.opt = ctx.plan.optimizer->create(trainable, ospec);
    a.gradParams = enc.parameters();
    for (const torch::Tensor& p : a.loss->parameters())
        a.gradParams.push_back(p);
    return a;
}

} // namespace setscope::train::run
