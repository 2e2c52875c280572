// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace setscope::project {

/// Any failure of the project store: a file that is not a setscope project (or is damaged,
/// or was written by a newer setscope), a write SQLite refused (disk full, another program
/// holding the write lock longer than the busy timeout), or an invalid request (unknown id,
/// label out of range). what() is "<project file>: <what failed>: <detail>", fit to show a
/// user as is. The store's state is unchanged when a write throws.
class ProjectError : public std::runtime_error {
public:
    using runtime_error::runtime_error;
    ProjectError(std::string file, const std::string& message)
        : std::runtime_error(file + ": " + message)
        , m_file(std::move(file))
    {
    }

    /// The project file the error is about ("" when built from a bare message).
    const std::string& file() const noexcept { return m_file; }

private:
    std::string m_file;
};

/// A dataset the project refers to. The store keeps the reference, never the data.
struct DatasetRecord {
    std::int64_t id = 0;
    std::string name;
    std::string path;        ///< as given to addDataset (callers pass absolute paths)
    std::string contentHash; ///< hex, see data::Dataset::contentHash()
    std::int64_t items = 0;  ///< number of items; label sets have one label per item
    std::string addedAt;     ///< ISO-8601 UTC, "2026-01-31T12:34:56.789Z"
};

struct LabelSetRecord {
    std::int64_t id = 0;
    std::int64_t datasetId = 0;
    std::string name;
    std::vector<std::string> classNames; ///< index = class id
};

/// The new label of one item in an edit: a class id or -1 (unlabelled).
struct LabelChange {
    std::int64_t item = 0;
    std::int32_t label = -1;
};

/// One undoable step of a label set's history.
struct EditRecord {
    std::int64_t id = 0; ///< increases with every edit; never reused, also after a redo stack is discarded
    std::int64_t labelSetId = 0;
    std::string description;
    std::int64_t changes = 0; ///< number of items the edit changed
    bool undone = false;      ///< true while the edit sits on the redo stack
    std::string createdAt;    ///< ISO-8601 UTC
};

/// The mapping a label set was derived by (data::LabelMapping's JSON), kept with it.
struct LabelMappingRecord {
    std::int64_t labelSetId = 0;
    std::string source;      ///< the label set it was derived from
    std::string mappingJson; ///< as written by data::LabelMapping::toJson()
    std::string updatedAt;   ///< ISO-8601 UTC
};

/// What one edit did to one item (both labels are class ids or -1).
struct EditChangeRecord {
    std::int64_t item = 0;
    std::int32_t oldLabel = -1;
    std::int32_t newLabel = -1;
};

struct RunRecord {
    std::int64_t id = 0;
    std::int64_t datasetId = 0;
    std::string configJson;
    std::string status; ///< "running", "finished", "cancelled" or "failed"
    std::string note;
    std::string startedAt;  ///< ISO-8601 UTC
    std::string finishedAt; ///< ISO-8601 UTC, "" while running
};

struct MetricRecord {
    std::int64_t runId = 0;
    int epoch = 0;
    std::int64_t step = 0; ///< optimiser steps since the run started
    std::string name;
    double value = 0.0; ///< NaN and infinities round-trip
};

struct CheckpointRecord {
    std::int64_t id = 0;
    std::int64_t runId = 0;
    std::int64_t step = 0;
    std::string path; ///< as given to addCheckpoint (usually a file under checkpointDir())
    std::string createdAt;
};

/// The project store: one SQLite file per project (`*.setscope`) holding the datasets the
/// project refers to, label sets with their undo history, training runs, their metrics and
/// their checkpoints. The file format is described in docs/PROJECT_STORE.md.
///
/// Durability: every write is one transaction (BEGIN IMMEDIATE ... COMMIT, WAL journal,
/// synchronous=FULL). When a write function returns, its change is on disk; when it throws
/// or the process dies before it returns, none of its change is.
///
/// Threads: every function may be called from any thread; calls on one object are
/// serialised by an internal mutex. Functions block on disk I/O (a write waits for fsync)
/// and, when another connection holds the write lock, for up to the busy timeout (5 s), so
/// do not call them from per-frame GUI code. Several ProjectStore objects, in one process
/// or in several, may open the same file at once (local file systems only: WAL needs
/// shared memory, which network file systems do not provide).
///
/// Unknown ids: queries answer empty / false / std::nullopt, writes throw ProjectError.
class ProjectStore {
public:
    /// The newest schema version this build reads and writes.
    static constexpr int kSchemaVersion = 2;
    /// How long a write waits for another connection's write lock before it fails.
    static constexpr int kBusyTimeoutMs = 5000;

    /// Opens the project at `path`, or creates it when no file is there. A new project is
    /// built under a temporary name beside `path` and linked into place when complete, so
    /// `path` never holds a half-made project. Throws ProjectError naming the file when it
    /// is not a setscope project (not SQLite, an empty file, another program's database),
    /// is damaged or truncated, or has a newer schema version; the file is not modified
    /// then. Checks the header, schema version and tables, not every page (that is
    /// integrityProblems()); damage elsewhere surfaces as a ProjectError from the call that
    /// reads it. Blocking.
    static std::unique_ptr<ProjectStore> open(const std::string& path);
    ~ProjectStore();
    ProjectStore(const ProjectStore&) = delete;
    ProjectStore& operator=(const ProjectStore&) = delete;

    /// The path as given to open().
    const std::string& path() const;
    /// Folder for checkpoints beside the file: "<path without extension>.checkpoints".
    /// Not created here; callers create it when they write the first checkpoint.
    std::string checkpointDir() const;

    /// Runs SQLite's integrity_check and foreign_key_check plus the store's own checks
    /// (label vectors have one label per item, undone edits form the tail of each history).
    /// Returns one line per problem; empty when the file is sound. Reads the whole file.
    std::vector<std::string> integrityProblems() const;
    bool integrityCheck() const { return integrityProblems().empty(); }

    // --- datasets: referenced by path and content hash ---------------------------------

    /// Returns the id of the dataset with this (path, contentHash), adding it first when it
    /// is not there yet (an existing record keeps its name). `items` >= 0.
    std::int64_t addDataset(const std::string& name, const std::string& path, const std::string& contentHash,
                            std::int64_t items);
    /// All datasets, by id.
    std::vector<DatasetRecord> datasets() const;
    std::optional<DatasetRecord> dataset(std::int64_t id) const;
    std::optional<DatasetRecord> findDataset(const std::string& path, const std::string& contentHash) const;

    // --- label sets and their edit history ----------------------------------------------

    /// Creates a label set for a dataset: class names non-empty and distinct, name unique
    /// within the dataset, `initialLabels` one per item (size = the dataset's items), each
    /// -1 or a class id. The initial labels are not an undoable edit. Returns its id.
    std::int64_t createLabelSet(std::int64_t datasetId, const std::string& name,
                                const std::vector<std::string>& classNames,
                                const std::vector<std::int32_t>& initialLabels);
    /// The dataset's label sets, by id.
    std::vector<LabelSetRecord> labelSets(std::int64_t datasetId) const;
    std::optional<LabelSetRecord> labelSet(std::int64_t labelSetId) const;
    std::optional<LabelSetRecord> findLabelSet(std::int64_t datasetId, const std::string& name) const;
    /// Current labels, one per item (index = item). Throws for an unknown label set.
    std::vector<std::int32_t> labels(std::int64_t labelSetId) const;

    /// Appends a class and returns its id (= the previous class count). Not an undoable
    /// edit, and it leaves the undo and redo stacks as they are: classes are never removed,
    /// so every edit on either stack stays valid. The name must be non-empty and new.
    std::int32_t addClass(std::int64_t labelSetId, const std::string& className);

    /// Applies one undoable edit: all changes in one transaction. Every item must be in
    /// [0, items) and appear once, every label -1 or a class id, `changes` non-empty; else
    /// ProjectError and nothing changes. Discards the redo stack (the undone edits).
    /// Returns the edit's id.
    std::int64_t applyEdit(std::int64_t labelSetId, const std::vector<LabelChange>& changes,
                           const std::string& description);
    bool canUndo(std::int64_t labelSetId) const;
    bool canRedo(std::int64_t labelSetId) const;
    /// Reverts the latest edit that is not undone; false when there is none.
    bool undo(std::int64_t labelSetId);
    /// Re-applies the earliest undone edit; false when there is none.
    bool redo(std::int64_t labelSetId);

    /// Records (or replaces) the mapping label set `labelSetId` was derived by. The text is
    /// stored as given (callers pass data::LabelMapping::toJson()); `source` names the label
    /// set it maps from. Throws for an unknown label set or an empty source or text.
    void setLabelMapping(std::int64_t labelSetId, const std::string& source, const std::string& mappingJson);
    /// The mapping recorded for a label set; std::nullopt when it was not derived by one.
    std::optional<LabelMappingRecord> labelMapping(std::int64_t labelSetId) const;
    /// The label set's edits, oldest first, undone ones included (they are the tail).
    std::vector<EditRecord> history(std::int64_t labelSetId) const;
    /// What edit `editId` changed, by item.
    std::vector<EditChangeRecord> editChanges(std::int64_t editId) const;

    // --- training runs --------------------------------------------------------------------

    /// Records a run of a dataset with status "running". `configJson` must be valid JSON.
    std::int64_t createRun(std::int64_t datasetId, const std::string& configJson);
    /// Ends a running run. `status`: "finished", "cancelled" or "failed". Throws when the
    /// run is unknown or not running. A run whose process died stays "running" until some
    /// caller finishes it (e.g. as "failed").
    void finishRun(std::int64_t runId, const std::string& status, const std::string& note);
    /// All runs, by id.
    std::vector<RunRecord> runs() const;
    std::optional<RunRecord> run(std::int64_t id) const;
    /// Records metric values of one step in one transaction (an empty list writes nothing).
    void addMetrics(std::int64_t runId, int epoch, std::int64_t step,
                    const std::vector<std::pair<std::string, double>>& values);
    /// The run's metrics in the order they were added.
    std::vector<MetricRecord> metrics(std::int64_t runId) const;
    /// Records a checkpoint file written at `step`; the store does not touch the file.
    std::int64_t addCheckpoint(std::int64_t runId, std::int64_t step, const std::string& path);
    /// The run's checkpoints, by id.
    std::vector<CheckpointRecord> checkpoints(std::int64_t runId) const;

private:
    struct Impl;
    explicit ProjectStore(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace setscope::project
