// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/StepRunner.h"

#include "core/data/Dataset.h"
#include "core/nn/Collate.h"
#include "core/ot/PairwiseMatrix.h"
#include "core/losses/MahalanobisMetric.h"
#include "core/train/PairAffinity.h"
#include "core/train/run/EpochEvaluator.h"
#include "core/train/run/GradientSync.h"
#include "core/train/run/RunContext.h"
#include "core/train/run/Stages.h"
#include "core/train/run/TorchRuntime.h"

#include <chrono>
#include <cmath>

namespace setscope::train::run {

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

} // namespace

StepRunner::StepRunner(const RunContext& ctx, RunState& state, const GradientSync& sync)
    : m_ctx(ctx)
    , m_state(state)
    , m_sync(sync)
{
}

const CachedEmd& StepRunner::cachedEmds(const data::Dataset& d)
{
    auto it = m_emdCaches.find(&d);
    if (it != m_emdCaches.end())
        return it->second;
    CachedEmd lookup;
    if (m_ctx.cfg.emdCache == "auto") {
        std::string why;
        ot::PairwiseOptions po; // exact EMD, Euclidean ground distance: what the batches solve
        lookup = cachedEmdFrom(ot::findCachedMatrix(d, po, &why));
        m_ctx.message("EMDs of '" + d.name() + "': " +
                      (lookup ? why + " (the pairs of every batch are read from it)"
                              : why + "; the pairs of each batch are solved on all cores (`setscope-cli emd-matrix "
                                      "--dataset ...` precomputes them once)"));
    }
    return m_emdCaches.emplace(&d, std::move(lookup)).first->second;
}

double StepRunner::forwardBackward(const StageRun& st, const std::vector<std::int64_t>& items, std::size_t offset,
                                   double scale, EpochStats& stats, double& emdSeconds)
{
    const data::Dataset& sds = *st.dataset;
    const torch::Device& device = m_ctx.device;
    sdk::SetEncoder& enc = *m_state.enc;
    ActiveStage& a = m_state.stage;
    const sdk::LossNeeds& needs = a.needs;
    // Optimal transport of the batch, when the loss or the augmentation reads it.
    std::unique_ptr<ExactBatchTransport> transport;
    if (needs.transport || (a.augmentation && a.augmentation->needsTransport())) {
        BatchTransportOptions topt;
        topt.threads = m_ctx.cfg.threads;
        topt.control = &m_ctx.control();
        topt.cached = cachedEmds(sds);
        transport = std::make_unique<ExactBatchTransport>(sds, items, topt);
    }
    // Augmentations work on the sets, before collation.
    std::vector<sdk::AugmentedSet> views;
    const auto tAugment = Clock::now();
    if (a.augmentation) {
        const std::vector<sdk::SetRef> refs = nn::setRefs(sds, items);
        const sdk::AugmentationBatch ab{refs, transport.get()};
        views.reserve(items.size());
        for (std::size_t i = 0; i < items.size(); ++i)
            views.push_back(a.augmentation->augment(
                ab, static_cast<std::int64_t>(i), mixSeed(m_ctx.cfg.seed, static_cast<std::uint64_t>(m_state.step), offset + i)));
    }
    stats.augment += since(tAugment);
    auto viewBatch = [&] {
        std::vector<sdk::SetRef> refs;
        for (const sdk::AugmentedSet& v : views)
            refs.push_back(v.set.ref());
        return nn::collateSets(refs, sds.dim(), device);
    };
    // An augmentation that the loss does not compare against (nor encodes keys of) replaces the input.
    const bool viewApart = needs.augmentedView || needs.momentumKeys;
    auto tPhase = Clock::now();
    const sdk::SetBatch batch = a.augmentation && !viewApart ? viewBatch() : nn::collate(sds, items, device);
    stats.realSlots += batch.mask.sum().item<std::int64_t>();
    stats.slots += batch.mask.numel();
    stats.collate += since(tPhase);

    sdk::LossContext lctx;
    tPhase = Clock::now();
    lctx.embeddings = enc.forward(batch);
    stats.forward += since(tPhase);
    lctx.items = torch::tensor(items, torch::kLong).to(device);
    lctx.labels = st.supervised ? nn::collateLabels(st.labelsOr(m_ctx.labels), items, device)
                                : torch::full({static_cast<std::int64_t>(items.size())}, -1,
                                              torch::TensorOptions().dtype(torch::kLong).device(device));
    lctx.sets = &batch;
    lctx.transport = transport.get();
    if (needs.transport) {
        const std::vector<double>& mat = transport->matrix();
        const auto b = static_cast<std::int64_t>(items.size());
        lctx.emd = torch::from_blob(const_cast<double*>(mat.data()), {b, b}, torch::kFloat64).to(torch::kFloat32).to(device);
    }
    if (viewApart) {
        // The keys of a run without augmentation are the sets' own.
        tPhase = Clock::now();
        const sdk::SetBatch vb = a.augmentation ? viewBatch() : batch;
        stats.collate += since(tPhase);
        tPhase = Clock::now();
        if (needs.augmentedView)
            lctx.augmented = enc.forward(vb);
        if (needs.momentumKeys) {
            if (a.keyEnc) {
                lctx.keys = a.keyEnc->keys(vb, enc);
            } else if (needs.augmentedView) {
                lctx.keys = lctx.augmented.detach();
            } else {
                torch::NoGradGuard noGrad;
                lctx.keys = enc.forward(vb);
            }
        }
        stats.forward += since(tPhase);
    }
    if (transport) {
        emdSeconds += transport->seconds();
        stats.emdSeconds += transport->seconds();
        stats.emdSolved += transport->solved();
        stats.emdCached += transport->cached();
    }
    sdk::LossOutput out;
    tPhase = Clock::now();
    if (a.affinityLoss) {
        std::vector<float> w = a.affinitySampler->batchAffinity(items);
        const auto b = static_cast<std::int64_t>(items.size());
        out = a.affinityLoss->forward(lctx, torch::from_blob(w.data(), {b, b}, torch::kFloat32).clone().to(device));
    } else {
        out = a.loss->forward(lctx);
    }
    stats.loss += since(tPhase);
    tPhase = Clock::now();
    if (scale == 1.0)
        out.loss.backward();
    else
        (out.loss * scale).backward();
    stats.backward += since(tPhase);
    return out.loss.item<double>();
}

StepRunner::Result StepRunner::step(const StageRun& st, const std::vector<std::int64_t>& batch, EpochStats& stats)
{
    ActiveStage& a = m_state.stage;
    const int shards = m_ctx.cfg.batchShards;
    const std::int64_t step = m_state.step;
    const auto tStep = Clock::now();
    Result r;
    a.opt->zero_grad();
    double lossSum = 0.0;
    if (shards == 1) {
        lossSum = forwardBackward(st, batch, 0, 1.0, stats, r.emdSeconds);
    } else {
        // This rank's parts of the batch (docs/DISTRIBUTED.md): consecutive cuts, each with its
        // own generator seed, so dropout draws the same numbers on any number of ranks.
        const std::size_t b = batch.size();
        const auto [first, last] = m_sync.parts();
        for (int part = first; part < last; ++part) {
            const std::size_t p0 = b * static_cast<std::size_t>(part) / static_cast<std::size_t>(shards);
            const std::size_t p1 = b * static_cast<std::size_t>(part + 1) / static_cast<std::size_t>(shards);
            if (p1 - p0 < 2)
                continue; // the short last batch of an epoch: no pairs in this part, no gradient from it
            const std::vector<std::int64_t> items(batch.begin() + static_cast<std::ptrdiff_t>(p0),
                                                  batch.begin() + static_cast<std::ptrdiff_t>(p1));
            {
                std::lock_guard lock(initMutex());
                torch::manual_seed(mixSeed(m_ctx.cfg.seed ^ 0x5a4d, static_cast<std::uint64_t>(step), static_cast<std::uint64_t>(part)));
            }
            lossSum += forwardBackward(st, items, p0, 1.0 / shards, stats, r.emdSeconds);
        }
    }
    r.loss = lossSum / shards;
    if (m_sync.distributed()) {
        const auto a0 = Clock::now();
        r.loss = m_sync.sumGradients(a, lossSum) / shards;
        stats.allreduceSeconds += since(a0);
    }
    if (m_ctx.cfg.schedule == "cosine") {
        const std::int64_t local = step - st.firstStep;
        const double f = 0.5 * (1.0 + std::cos(M_PI * static_cast<double>(local) / static_cast<double>(st.steps)));
        for (std::size_t g = 0; g < a.opt->param_groups().size(); ++g)
            a.opt->param_groups()[g].options().set_lr(a.baseLr[g] * f);
    }
    const auto tOptimizer = Clock::now();
    a.loss->afterBackward(a.opt->param_groups().front().options().get_lr()); // seed 004: L's Stiefel step
    a.opt->step();
    stats.optimizer += since(tOptimizer);
    if (a.keyEnc)
        a.keyEnc->update(*m_state.enc); // θ_k <- m θ_k + (1 - m) θ_q
    stats.steps += since(tStep);
    return r;
}

} // namespace setscope::train::run
