// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/Workspace.h"

#include "core/data/Dataset.h"
#include "core/data/SetMeans.h"
#include "core/project/ProjectStore.h"
#include "core/train/SnapshotSubset.h"
#include "core/train/TrainerConfig.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/RunLaunch.h"

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace setscope::workspace {

std::vector<std::int64_t> mapItems(const data::Dataset& ds, const std::string& labelSet, int maxItems,
                                   std::uint64_t seed)
{
    // The same subset TrainingJob snapshots, so the first training snapshot has the very
    // items of this map and t-SNE warm-starts from it.
    const data::LabelSet* ls = ds.labelSet(labelSet);
    if (!ls && !ds.labelSets().empty())
        ls = &ds.labelSets().front();
    const std::vector<std::int32_t> labels = ls ? ls->labels : std::vector<std::int32_t>(ds.size(), data::kUnlabelled);
    return train::snapshotSubset(ds, labels, maxItems, seed);
}

std::shared_ptr<const job::EmbeddingSnapshot> rawSnapshot(const data::Dataset& ds,
                                                          const std::vector<std::int64_t>& items)
{
    auto s = std::make_shared<job::EmbeddingSnapshot>();
    s->items = items;
    s->dim = ds.dim();
    s->vectors = data::weightedMeans(ds, items);
    return s;
}

Workspace::Workspace(const plugin::Registry& registry)
    : m_registry(registry)
{
}

Workspace::~Workspace() = default;

void Workspace::openProject(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path file = fs::absolute(fs::path(path), ec);
    if (ec)
        throw std::runtime_error("project " + path + ": " + ec.message());
    file = file.lexically_normal();
    const fs::path folder = file.parent_path();
    if (!folder.empty() && !fs::exists(folder, ec)) {
        fs::create_directories(folder, ec);
        if (ec)
            throw std::runtime_error("cannot create the folder " + folder.string() + " for the project " +
                                     file.string() + ": " + ec.message());
    }
    std::shared_ptr<project::ProjectStore> store = project::ProjectStore::open(file.string());
    // The dataset was attached to the old project: its id means nothing in the new one.
    // A run of the old project that is still stopping holds that store through its
    // RunRecorder, so letting go of it here cannot pull it from under that thread.
    m_project = std::move(store);
    m_datasetId = 0;
}

std::string Workspace::projectPath() const
{
    return m_project ? m_project->path() : std::string();
}

void Workspace::adoptDataset(std::shared_ptr<const data::Dataset> source, std::string spec)
{
    m_dataset = source;
    m_source = std::move(source);
    m_spec = std::move(spec);
    m_datasetId = 0;
}

void Workspace::adoptAttached(std::shared_ptr<const data::Dataset> source, project::AttachedDataset attached,
                              std::string spec)
{
    if (!m_project)
        throw std::logic_error("Workspace::adoptAttached: no project is open");
    if (!attached.dataset || attached.datasetId == 0)
        throw std::logic_error("Workspace::adoptAttached: the dataset was not attached");
    m_source = std::move(source);
    m_dataset = std::move(attached.dataset);
    m_datasetId = attached.datasetId;
    m_spec = std::move(spec);
}

void Workspace::attach(std::shared_ptr<const data::Dataset> source, std::string spec)
{
    if (!m_project)
        throw std::logic_error("Workspace::attach: no project is open");
    if (!source)
        throw std::logic_error("Workspace::attach: no dataset");
    project::AttachedDataset attached = project::attachDataset(*m_project, *source, spec);
    adoptAttached(std::move(source), std::move(attached), std::move(spec));
}

std::shared_ptr<const data::Dataset> Workspace::reloadLabelSet(const std::string& name)
{
    if (!inProject())
        throw std::logic_error("no dataset is open in a project");
    const std::string where = "project " + m_project->path();
    std::optional<project::LabelSetRecord> rec;
    std::shared_ptr<const data::Dataset> out;
    try {
        rec = m_project->findLabelSet(m_datasetId, name);
        if (rec) {
            data::LabelSet ls;
            ls.name = rec->name;
            ls.classNames = rec->classNames;
            ls.labels = m_project->labels(rec->id);
            out = std::make_shared<const data::Dataset>(m_dataset->withLabelSet(std::move(ls)));
        }
    } catch (const std::exception& e) {
        throw std::runtime_error(where + ", label set '" + name + "': " + e.what());
    }
    if (!rec)
        throw std::runtime_error(where + " has no label set '" + name + "' for dataset '" + m_dataset->name() + "'");
    m_dataset = out;
    return out;
}

std::vector<std::int64_t> Workspace::mapItems(const std::string& labelSet, int maxItems, std::uint64_t seed) const
{
    return m_dataset ? workspace::mapItems(*m_dataset, labelSet, maxItems, seed) : std::vector<std::int64_t>{};
}

std::shared_ptr<const job::EmbeddingSnapshot> Workspace::rawSnapshot(const std::vector<std::int64_t>& items) const
{
    return m_dataset ? workspace::rawSnapshot(*m_dataset, items) : nullptr;
}

project::TrainingRun Workspace::prepareRun(const train::TrainerConfig& config,
                                           std::shared_ptr<const data::Dataset> external,
                                           train::TrainingSink* sink) const
{
    // The same decision as the GUI's launch job: recorded exactly when the dataset is in the
    // project (RunLaunch::from; throws std::logic_error without a dataset).
    const RunLaunch run = RunLaunch::from(*this, config);
    return project::prepareTrainingRun(run.store, run.datasetId, run.dataset, run.config, m_registry, std::move(external),
                                       sink);
}

std::shared_ptr<const data::Dataset> Workspace::external(const std::string& spec) const
{
    return m_external && m_externalSpec == spec ? m_external : nullptr;
}

void Workspace::rememberExternal(const std::string& spec, std::shared_ptr<const data::Dataset> dataset)
{
    m_externalSpec = spec;
    m_external = std::move(dataset);
}

} // namespace setscope::workspace
