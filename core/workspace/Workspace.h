// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/EmbeddingSnapshot.h"
#include "core/project/RunRecorder.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::plugin {
class Registry;
}
namespace setscope::project {
class ProjectStore;
}
namespace setscope::train {
struct TrainerConfig;
}

namespace setscope::workspace {

/// The items of a map before training, chosen like TrainingJob's snapshot subset
/// (train::snapshotSubset): every item for `maxItems` 0; else at most `maxItems` of the test
/// split when it has items, else of all; classes of `labelSet` (the dataset's first label set
/// when it has no such set, one class when it has none) in proportion, order fixed by `seed`.
/// So the first training snapshot holds exactly these items and its map warm-starts from
/// this one item by item.
std::vector<std::int64_t> mapItems(const data::Dataset& ds, const std::string& labelSet, int maxItems,
                                   std::uint64_t seed = 1);

/// A snapshot of the raw vectors of `items` (a set is represented by the weighted mean of its
/// elements, data::weightedMeans), step 0, epoch 0: what a map shows before training.
std::shared_ptr<const job::EmbeddingSnapshot> rawSnapshot(const data::Dataset& ds,
                                                          const std::vector<std::int64_t>& items);

/// What a person works on, without the jobs: the open project, the open dataset (as loaded
/// and as shown, i.e. with the project's labels), its id in the project, and the external
/// dataset kept for runs that pre-train on one. The rules that tie these together live here,
/// so the CLI's commands and the GUI's session apply the same ones: a dataset is "in the
/// project" only once attached to the project that is open now, label sets are reloaded from
/// that project, and a run is recorded only for a dataset in the project.
///
/// Not a job and owns no thread: its owner's thread (the GUI thread, or the CLI's main
/// thread) calls every method, and several of them block on SQLite (say which). Slow work on
/// a dataset (attaching it on a worker, AttachJob; training, TrainingJob) is started by the
/// owner with what the workspace hands out, and its result given back (adoptAttached()).
///
/// Ownership: the project store is shared (a run still stopping, or an attach in flight,
/// keeps the store it started with after the workspace lets go of it); datasets are shared
/// immutable objects.
class Workspace {
public:
    /// `registry` must outlive the workspace (the runs it prepares read it on their threads).
    explicit Workspace(const plugin::Registry& registry);
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    const plugin::Registry& registry() const { return m_registry; }

    // --- the project ------------------------------------------------------------------------

    /// Opens the project file at `path` (made absolute), creating it and any missing parent
    /// folders when it is not there. Replaces the open project; the open dataset stays open
    /// but is no longer in a project (projectDatasetId() is 0) until it is attached to the new
    /// one (attach(), or adoptAttached() after an AttachJob). On failure throws (ProjectError
    /// naming the file when it is not a usable project, std::runtime_error naming the folder
    /// that could not be made) and nothing changes. Blocking (opens or creates the SQLite file).
    void openProject(const std::string& path);
    /// The open project's store (null when none). Shared so that jobs can keep it.
    const std::shared_ptr<project::ProjectStore>& project() const { return m_project; }
    /// The open project's file ("" when none).
    std::string projectPath() const;

    // --- the open dataset ---------------------------------------------------------------------

    /// Makes `source` the open dataset as it is, outside any project (also when a project is
    /// open, e.g. because attaching it failed): shown as loaded, projectDatasetId() 0.
    /// A null `source` closes the dataset.
    void adoptDataset(std::shared_ptr<const data::Dataset> source, std::string spec);
    /// Makes `source` the open dataset as attached to the open project (project::attachDataset,
    /// done here by attach() or on a worker by project::AttachJob): shown is
    /// `attached.dataset` (the project's labels), its id `attached.datasetId`. Throws
    /// std::logic_error without a project or when `attached` is empty.
    void adoptAttached(std::shared_ptr<const data::Dataset> source, project::AttachedDataset attached, std::string spec);
    /// project::attachDataset() then adoptAttached(): registers `source` in the open project
    /// under `spec` (a path is stored absolute) and opens it with the project's labels.
    /// Blocking (SQLite writes with fsync, one copy of the dataset): for the CLI; the GUI does
    /// it on a worker. Throws std::logic_error without a project, the store's errors (which
    /// name the file) otherwise; nothing changes then.
    void attach(std::shared_ptr<const data::Dataset> source, std::string spec);

    /// The open dataset as shown (with the project's labels when in the project); null when none.
    const std::shared_ptr<const data::Dataset>& dataset() const { return m_dataset; }
    /// The open dataset as loaded, before any project's labels (what a new project attaches).
    const std::shared_ptr<const data::Dataset>& sourceDataset() const { return m_source; }
    /// The spec it was opened with ("fashion-mnist", "synthetic:...", a path).
    const std::string& spec() const { return m_spec; }
    /// The open dataset's id in the open project (0 when it is not in one).
    std::int64_t projectDatasetId() const { return m_datasetId; }
    /// True when a dataset is open and attached to the open project.
    bool inProject() const { return m_project && m_datasetId != 0 && m_dataset; }

    /// Replaces label set `name` of the shown dataset by the project's current labels of that
    /// name (after an edit, an undo, a derive or an import): the shown dataset becomes a copy
    /// with the new labels (other label sets and the items unchanged) and is returned.
    /// Throws std::logic_error when no dataset is in the project, std::runtime_error naming
    /// the project and the label set when the project has no such set for the dataset or the
    /// store fails; nothing changes then. Blocking (one SQLite read, one copy of the dataset's
    /// item table).
    std::shared_ptr<const data::Dataset> reloadLabelSet(const std::string& name);

    /// workspace::mapItems() of the shown dataset (empty when none).
    std::vector<std::int64_t> mapItems(const std::string& labelSet, int maxItems, std::uint64_t seed = 1) const;
    /// workspace::rawSnapshot() of the shown dataset (null when none).
    std::shared_ptr<const job::EmbeddingSnapshot> rawSnapshot(const std::vector<std::int64_t>& items) const;

    // --- runs ---------------------------------------------------------------------------------

    /// project::prepareTrainingRun() for `config` on the shown dataset, with the recording
    /// rule: the run is recorded in the project (config, metrics, checkpoints in the project's
    /// folder) exactly when the dataset is in it (inProject()); otherwise it runs unrecorded.
    /// `external`: the dataset of the recipe's external stages, or null. `sink` (may be null)
    /// gets every report. Throws std::logic_error without a dataset, std::invalid_argument for
    /// a bad configuration. Blocking (one SQLite insert when recorded).
    project::TrainingRun prepareRun(const train::TrainerConfig& config, std::shared_ptr<const data::Dataset> external,
                                    train::TrainingSink* sink) const;

    /// The external dataset opened for `spec` by an earlier run (null when none is kept).
    /// Only the last one is kept: datasets are large and runs rarely alternate between two.
    std::shared_ptr<const data::Dataset> external(const std::string& spec) const;
    /// Keeps `dataset`, opened for `spec`, for later runs (replaces the one kept before).
    void rememberExternal(const std::string& spec, std::shared_ptr<const data::Dataset> dataset);

private:
    const plugin::Registry& m_registry;
    std::shared_ptr<project::ProjectStore> m_project;
    std::shared_ptr<const data::Dataset> m_source;  ///< as loaded
    std::shared_ptr<const data::Dataset> m_dataset; ///< as shown
    std::string m_spec;
    std::int64_t m_datasetId = 0;
    std::string m_externalSpec;
    std::shared_ptr<const data::Dataset> m_external;
};

} // namespace setscope::workspace
