// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/TrainedModel.h"

#include "core/data/Dataset.h"
#include "core/plugin/Registry.h"
#include "core/train/CheckedLoad.h"
#include "core/train/TrainingJob.h"
#include "core/train/run/CheckpointFile.h"
#include "core/train/run/Embedding.h"
#include "core/train/run/TrainedModelImpl.h"

#include <setscope/sdk/Errors.h>

#include <stdexcept>

namespace setscope::train {

using run::allItems;
using run::encoderSpec;
using run::openArchive;
using run::projectRows;
using run::readHeader;

TrainedModel::TrainedModel(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}
TrainedModel::~TrainedModel() = default;

int TrainedModel::dim() const
{
    return static_cast<int>(m_impl->projection.defined() ? m_impl->projection.size(1) : m_impl->encoder->outputDim());
}
std::int64_t TrainedModel::inputDim() const { return m_impl->inputDim; }
const TrainerConfig& TrainedModel::config() const { return m_impl->config; }
std::int64_t TrainedModel::step() const { return m_impl->step; }
const std::string& TrainedModel::datasetHash() const { return m_impl->datasetHash; }
const std::string& TrainedModel::labelSet() const { return m_impl->config.labelSet; }

std::shared_ptr<const TrainedModel> TrainedModel::fromCheckpoint(const std::string& path, const plugin::Registry& registry,
                                                                 job::JobControl* control)
{
    auto ar = openArchive(path, torch::kCPU, control);
    const run::CheckpointHeader h = readHeader(ar, path, control);
    auto impl = std::make_unique<Impl>();
    impl->device = torch::Device(resolveDevice(h.config.device == "auto" ? "auto" : "cpu"));
    impl->encoder = registry.requireEncoder(h.config.model).create(encoderSpec(registry, h.config, h.inputDim));
    torch::serialize::InputArchive m;
    ar.read("model", m);
    try {
        loadChecked(*impl->encoder, m, path, "the checkpoint's weights do not fit model " + h.config.model);
    } catch (const c10::Error& e) {
        throw sdk::InputError(path, "", "the checkpoint's weights do not fit model " + h.config.model + ": " +
                                            std::string(e.what_without_backtrace()));
    }
    impl->encoder->to(impl->device);
    impl->encoder->eval();
    if (torch::Tensor p; ar.try_read("embedding_projection", p, /*is_buffer=*/true)) {
        if (p.dim() != 2 || p.size(0) != impl->encoder->outputDim() || p.size(1) < 1)
            throw sdk::InputError(path, "embedding_projection", "a " + std::to_string(p.dim()) + "-d tensor where a " +
                                                                    std::to_string(impl->encoder->outputDim()) +
                                                                    " x l matrix is expected");
        impl->projection = p.to(torch::kCPU, torch::kFloat32).contiguous();
    }
    impl->config = h.config;
    impl->step = h.step;
    impl->inputDim = h.inputDim;
    impl->datasetHash = h.datasetHash;
    return std::make_shared<const TrainedModel>(std::move(impl));
}

std::vector<float> TrainedModel::embedSets(std::span<const sdk::SetRef> sets) const
{
    for (const sdk::SetRef& s : sets)
        if (s.dim != m_impl->inputDim)
            throw std::invalid_argument("the model expects " + std::to_string(m_impl->inputDim) + "-d elements, a set has " +
                                        std::to_string(s.dim) + "-d");
    std::lock_guard lock(m_mutex);
    int d = static_cast<int>(m_impl->encoder->outputDim());
    return projectRows(run::embedSets(*m_impl->encoder, sets, m_impl->inputDim, m_impl->device, nullptr), d,
                       m_impl->projection);
}

std::vector<float> TrainedModel::embedItems(const data::Dataset& ds, const std::vector<std::int64_t>& items,
                                            job::JobControl* control) const
{
    if (ds.dim() != m_impl->inputDim)
        throw std::invalid_argument("the model expects " + std::to_string(m_impl->inputDim) + "-d elements, dataset '" +
                                    ds.name() + "' has " + std::to_string(ds.dim()) + "-d");
    std::lock_guard lock(m_mutex);
    int d = static_cast<int>(m_impl->encoder->outputDim());
    return projectRows(run::embedItems(*m_impl->encoder, ds, items.empty() ? allItems(ds) : items, m_impl->device, control),
                       d, m_impl->projection);
}

Embeddings embedWithCheckpoint(const std::string& checkpoint, const data::Dataset& ds, const plugin::Registry& registry,
                               job::JobControl* control)
{
    const std::shared_ptr<const TrainedModel> model = TrainedModel::fromCheckpoint(checkpoint, registry, control);
    if (model->inputDim() != ds.dim())
        throw std::runtime_error("checkpoint " + checkpoint + " expects " + std::to_string(model->inputDim()) +
                                 "-d input, dataset '" + ds.name() + "' is " + std::to_string(ds.dim()) + "-d");
    Embeddings e;
    e.dim = model->dim();
    e.data = model->embed(ds, {}, control);
    e.config = model->config().toJson().dump();
    return e;
}

} // namespace setscope::train
