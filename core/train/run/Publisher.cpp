// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/Publisher.h"

#include "core/data/Dataset.h"
#include "core/train/SnapshotSubset.h"
#include "core/train/run/Embedding.h"
#include "core/train/run/RunContext.h"
#include "core/train/run/Stages.h"
#include "core/train/run/TorchRuntime.h"
#include "core/train/run/TrainedModelImpl.h"

#include <sstream>

namespace setscope::train::run {

Publisher::Publisher(const RunContext& ctx, const StageSchedule& stages, RunState& state)
    : m_ctx(ctx)
    , m_stages(stages)
    , m_state(state)
    , m_items(snapshotSubset(ctx.ds, ctx.labels, ctx.cfg.snapshotItems, ctx.cfg.seed))
    , m_embedder(ctx.ds, m_items, ctx.host.record().snapshots())
{
}

void Publisher::publishModel(std::int64_t atStep)
{
    const TrainerConfig& cfg = m_ctx.cfg;
    sdk::SetEncoder& enc = *m_state.enc;
    auto impl = std::make_unique<TrainedModel::Impl>();
    impl->encoder = withoutDrawing([&] { return m_ctx.plan.encoder->create(encoderSpec(m_ctx.registry, cfg, m_ctx.ds.dim())); });
    std::stringstream buf;
    {
        torch::serialize::OutputArchive out;
        enc.save(out);
        out.save_to(buf);
    }
    torch::serialize::InputArchive in;
    in.load_from(buf, m_ctx.device);
    impl->encoder->load(in);
    impl->encoder->to(m_ctx.device);
    impl->encoder->eval();
    // None before stage 1.
    impl->projection = m_state.stage.loss ? metricProjection(*m_state.stage.loss, enc.outputDim()) : torch::Tensor();
    impl->device = m_ctx.device;
    impl->config = cfg;
    impl->step = atStep;
    impl->inputDim = m_ctx.ds.dim();
    impl->datasetHash = m_ctx.ds.contentHash();
    m_ctx.host.record().setModel(std::make_shared<const TrainedModel>(std::move(impl)));
}

void Publisher::publishSnapshot(std::int64_t atStep)
{
    publishModel(atStep); // the weights, copied: the embedder works on this copy
    auto s = std::make_shared<job::EmbeddingSnapshot>();
    s->step = atStep;
    s->epoch = static_cast<int>(m_stages.epochOf(atStep));
    s->loss = m_state.lastLoss;
    s->items = m_items;
    const std::shared_ptr<const model::ModelHandle> model = m_ctx.host.record().model();
    s->dim = model->dim();
    m_embedder.submit(model, std::move(s), m_ctx.control());
}

} // namespace setscope::train::run
