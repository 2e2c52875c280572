// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
struct LabelMapping;
} // namespace setscope::data

namespace setscope::project {

class ProjectStore;

/// What deriveLabelSet() did.
struct DerivedLabelSet {
    std::int64_t labelSetId = 0;
    bool created = false;      ///< a new label set; otherwise an existing one was re-derived
    std::int64_t editId = 0;   ///< the undoable edit that re-derived it (0: created, or no label changed)
    std::int64_t changed = 0;  ///< items whose label the edit changed
    std::vector<std::string> addedClasses; ///< classes added to an existing set
};

/// Derives label set `mapping.name` of a project's dataset from its label set
/// `mapping.source` (data::LabelMapping::apply on `dataset`, which should carry the project's
/// labels: project::withProjectLabels) and records the mapping with it.
///  - No such label set yet: it is created with the derived labels.
///  - It exists (derived before, or made by hand): classes the mapping names that it lacks
///    are added, and every item whose label differs from the derived one is changed in one
///    undoable edit ("derived from 'fine' by mapping 'coarse'"), so re-deriving after the
///    mapping changed keeps the history, and undo brings the previous labels back.
/// Each step is one transaction of the store; the labels are written before the mapping, so
/// a crash in between leaves the labels and the previous mapping (re-derive to update it).
/// Throws std::invalid_argument for a mapping that does not fit the source set,
/// ProjectError for store failures.
DerivedLabelSet deriveLabelSet(ProjectStore& store, std::int64_t datasetId, const data::Dataset& dataset,
                               const data::LabelMapping& mapping);

/// Labels as "item,label" CSV (header "item,<label set>"; class names quoted, unlabelled
/// items left out) and back. readLabelCsv() returns one label per item (-1 where the file
/// has none) against `classNames`, appending class names it meets that are not there yet.
/// Errors name the file and line (sdk::InputError): a bad item number, an item twice, an
/// item outside [0, items).
void writeLabelCsv(const std::string& path, const std::string& labelSetName, const std::vector<std::string>& classNames,
                   const std::vector<std::int32_t>& labels);
std::vector<std::int32_t> readLabelCsv(const std::string& path, std::int64_t items, std::vector<std::string>& classNames);

/// Sets label set `name` of a project's dataset to `labels` (one per item, ids into
/// `classNames`): creates it, or changes the items that differ in one undoable edit
/// (`description`), adding classes it lacks. Returns as deriveLabelSet().
DerivedLabelSet writeLabelSet(ProjectStore& store, std::int64_t datasetId, const std::string& name,
                              const std::vector<std::string>& classNames, const std::vector<std::int32_t>& labels,
                              const std::string& description);

} // namespace setscope::project
