// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/EpochEvaluator.h"

#include "core/data/Dataset.h"
#include "core/eval/Knn.h"
#include "core/eval/Metrics.h"
#include "core/job/Job.h"
#include "core/train/run/Checkpointer.h"
#include "core/train/run/Embedding.h"
#include "core/train/run/RunContext.h"
#include "core/train/run/Stages.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace setscope::train::run {

EpochEvaluator::EpochEvaluator(const RunContext& ctx, RunState& state, Checkpointer& checkpoints, std::int64_t total)
    : m_ctx(ctx)
    , m_state(state)
    , m_checkpoints(checkpoints)
    , m_total(total)
{
}

void EpochEvaluator::reportInitialSpread()
{
    const std::vector<std::int64_t>& pool = m_ctx.pool;
    const std::vector<std::int64_t> probe(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(pool.size(), 256)));
    sdk::SetEncoder& enc = *m_state.enc;
    const int dim = static_cast<int>(enc.outputDim());
    const std::vector<float> z = embedItems(enc, m_ctx.ds, probe, m_ctx.device, &m_ctx.control());
    double sum = 0.0;
    std::int64_t pairs = 0;
    for (std::size_t a = 0; a < probe.size(); ++a)
        for (std::size_t b = a + 1; b < probe.size(); ++b, ++pairs) {
            double d2 = 0.0;
            for (int k = 0; k < dim; ++k) {
                const double diff = double(z[a * dim + k]) - double(z[b * dim + k]);
                d2 += diff * diff;
            }
            sum += std::sqrt(d2);
        }
    m_ctx.message("initial embedding: mean pairwise distance " + std::to_string(pairs ? sum / double(pairs) : 0.0) +
                  " over the first " + std::to_string(probe.size()) + " training items (spread)");
}

double EpochEvaluator::validationKnn(const std::vector<float>& all, int dim) const
{
    const std::vector<std::int32_t>& labels = m_ctx.labels;
    std::vector<std::int64_t> refs;
    for (std::int64_t i : m_ctx.pool)
        if (labels[static_cast<std::size_t>(i)] >= 0)
            refs.push_back(i);
    const eval::MatrixView allView{all.data(), static_cast<std::int64_t>(m_ctx.ds.size()), dim};
    const std::vector<float> r = eval::gatherRows(allView, refs), q = eval::gatherRows(allView, m_ctx.validation);
    std::vector<std::int32_t> rl, ql;
    for (std::int64_t i : refs)
        rl.push_back(labels[static_cast<std::size_t>(i)]);
    for (std::int64_t i : m_ctx.validation)
        ql.push_back(labels[static_cast<std::size_t>(i)]);
    return eval::knnClassify({r.data(), static_cast<std::int64_t>(refs.size()), dim}, rl,
                             {q.data(), static_cast<std::int64_t>(m_ctx.validation.size()), dim}, ql, 10, false,
                             &m_ctx.control())
        .accuracy;
}

void EpochEvaluator::evaluate(int epoch, double meanLoss, const std::string& stageName, bool finalStage,
                              const std::vector<std::string>& extra, bool scored, const EpochStats& stats)
{
    const TrainerConfig& cfg = m_ctx.cfg;
    sdk::SetEncoder& enc = *m_state.enc;
    EpochMetrics m;
    m.epoch = epoch;
    m.step = m_state.step;
    m.meanLoss = meanLoss;
    m.stage = stageName;
    const bool bestRow = !finalStage && stageName.rfind("best", 0) == 0;
    if (cfg.evaluateEachEpoch && m_ctx.labelSet && scored) {
        m_ctx.host.progress(m_state.step, m_total, "evaluating epoch " + std::to_string(epoch));
        int dim = static_cast<int>(enc.outputDim());
        // The space the loss measures: z L for seed 004's metric, else z.
        const std::vector<float> all =
            projectRows(embedItems(enc, m_ctx.ds, allItems(m_ctx.ds), m_ctx.device, &m_ctx.control()), dim,
                        m_state.stage.loss ? metricProjection(*m_state.stage.loss, enc.outputDim()) : torch::Tensor());
        // kNN accuracy, both Recall@K (the papers' share of the class, seed 000 Table II /
        // seed 001 Table 9, and "at least one") and precision@K, by their registry names.
        // spread: how bunched the map is (a start semi-hard mining cannot leave, docs/LOSSES.md).
        eval::MetricRequest standard = eval::standardMetrics();
        standard.metrics.push_back("spread");
        for (const eval::MetricValue& v : eval::evaluateMetrics(m_ctx.ds, all.data(), dim, cfg.labelSet, standard, &m_ctx.control()))
            m.values.emplace_back(v.name, v.value);
        if (!extra.empty()) {
            eval::MetricRequest request;
            request.metrics = extra;
            for (const eval::MetricValue& v : eval::evaluateMetrics(m_ctx.ds, all.data(), dim, cfg.labelSet, request, &m_ctx.control()))
                m.values.emplace_back(v.name, v.value);
        }
        if (!m_ctx.validation.empty()) {
            const double v = validationKnn(all, dim);
            m.values.emplace_back("validation-knn", v);
            // The best validation epoch of the last stage is the run's model.
            if (finalStage)
                m_checkpoints.offerBest(v, epoch);
        }
    }
    if ((stats.emdSolved > 0 || stats.emdCached > 0) && !bestRow) {
        m.values.emplace_back("emd-seconds", stats.emdSeconds);
        m.values.emplace_back("emd-solved", static_cast<double>(stats.emdSolved));
        m.values.emplace_back("emd-cached", static_cast<double>(stats.emdCached));
    }
    if (m_ctx.comm && !bestRow)
        m.values.emplace_back("allreduce-seconds", stats.allreduceSeconds);
    if (stats.slots > 0 && !bestRow)
        m.values.emplace_back("padding-share", 1.0 - static_cast<double>(stats.realSlots) / static_cast<double>(stats.slots));
    if (stats.steps > 0 && !bestRow) {
        m.values.emplace_back("step-seconds", stats.steps);
        m.values.emplace_back("augment-seconds", stats.augment);
        m.values.emplace_back("collate-seconds", stats.collate);
        m.values.emplace_back("forward-seconds", stats.forward);
        m.values.emplace_back("loss-seconds", stats.loss);
        m.values.emplace_back("backward-seconds", stats.backward);
        m.values.emplace_back("optimizer-seconds", stats.optimizer);
    }
    m.seconds = std::chrono::duration<double>(Clock::now() - m_ctx.t0).count();
    m_ctx.host.record().appendEpoch(m);
    if (TrainingSink* sink = m_ctx.host.trainingSink())
        sink->epochMetrics(m);
}

} // namespace setscope::train::run
