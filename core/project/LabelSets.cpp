// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/project/LabelSets.h"

#include "core/data/Csv.h"
#include "core/data/Dataset.h"
#include "core/data/LabelMapping.h"
#include "core/project/ProjectStore.h"
#include "core/util/AtomicFile.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>

namespace setscope::project {

DerivedLabelSet writeLabelSet(ProjectStore& store, std::int64_t datasetId, const std::string& name,
                              const std::vector<std::string>& classNames, const std::vector<std::int32_t>& labels,
                              const std::string& description)
{
    DerivedLabelSet out;
    const auto existing = store.findLabelSet(datasetId, name);
    if (!existing) {
        out.labelSetId = store.createLabelSet(datasetId, name, classNames, labels);
        out.created = true;
        return out;
    }
    out.labelSetId = existing->id;
    // Class ids of `classNames` in the stored set (added at the end when missing).
    std::vector<std::string> stored = existing->classNames;
    std::vector<std::int32_t> idOf(classNames.size());
    for (std::size_t k = 0; k < classNames.size(); ++k) {
        const auto it = std::find(stored.begin(), stored.end(), classNames[k]);
        if (it != stored.end()) {
            idOf[k] = static_cast<std::int32_t>(it - stored.begin());
        } else {
            idOf[k] = store.addClass(out.labelSetId, classNames[k]);
            stored.push_back(classNames[k]);
            out.addedClasses.push_back(classNames[k]);
        }
    }
    const std::vector<std::int32_t> current = store.labels(out.labelSetId);
    if (current.size() != labels.size())
        throw std::invalid_argument(std::to_string(labels.size()) + " labels for label set '" + name + "' of " +
                                    std::to_string(current.size()) + " items");
    std::vector<LabelChange> changes;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::int32_t l = labels[i];
        if (l < -1 || l >= static_cast<std::int32_t>(classNames.size()))
            throw std::invalid_argument("item " + std::to_string(i) + ": label " + std::to_string(l) +
                                        " is neither -1 nor one of the " + std::to_string(classNames.size()) +
                                        " classes");
        const std::int32_t want = l < 0 ? -1 : idOf[static_cast<std::size_t>(l)];
        if (want != current[i])
            changes.push_back({static_cast<std::int64_t>(i), want});
    }
    if (!changes.empty()) {
        out.editId = store.applyEdit(out.labelSetId, changes, description);
        out.changed = static_cast<std::int64_t>(changes.size());
    }
    return out;
}

DerivedLabelSet deriveLabelSet(ProjectStore& store, std::int64_t datasetId, const data::Dataset& dataset,
                               const data::LabelMapping& mapping)
{
    const data::LabelSet derived = mapping.apply(dataset);
    DerivedLabelSet out = writeLabelSet(store, datasetId, mapping.name, derived.classNames, derived.labels,
                                        "derived from '" + mapping.source + "' by mapping '" + mapping.name + "'");
    store.setLabelMapping(out.labelSetId, mapping.source, mapping.toJson());
    return out;
}

void writeLabelCsv(const std::string& path, const std::string& labelSetName, const std::vector<std::string>& classNames,
                   const std::vector<std::int32_t>& labels)
{
    util::writeFileAtomically(path, [&](std::ostream& out) {
        out << "item," << data::csvQuoted(labelSetName) << "\n";
        for (std::size_t i = 0; i < labels.size(); ++i)
            if (labels[i] >= 0 && static_cast<std::size_t>(labels[i]) < classNames.size())
                out << i << ',' << data::csvQuoted(classNames[static_cast<std::size_t>(labels[i])]) << "\n";
    });
}

std::vector<std::int32_t> readLabelCsv(const std::string& path, std::int64_t items, std::vector<std::string>& classNames)
{
    const data::CsvTable t = data::readCsv(path);
    if (t.header.size() != 2 || t.column("item") != 0)
        throw sdk::InputError(path, sdk::InputError::atLine(1),
                              "expected the header \"item,<label set>\" (two columns, the first named item)");
    std::vector<std::int32_t> labels(static_cast<std::size_t>(std::max<std::int64_t>(items, 0)), -1);
    std::vector<bool> seen(labels.size(), false);
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const auto& row = t.rows[r];
        const std::string where = sdk::InputError::atLine(t.rowLines[r]);
        std::int64_t item = -1;
        const std::string& cell = row[0];
        const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), item);
        if (ec != std::errc() || end != cell.data() + cell.size())
            throw sdk::InputError(path, where, "item \"" + cell + "\" is not a whole number");
        if (item < 0 || item >= items)
            throw sdk::InputError(path, where,
                                  "item " + std::to_string(item) + " is not in [0, " + std::to_string(items) + ")");
        if (seen[static_cast<std::size_t>(item)])
            throw sdk::InputError(path, where, "item " + std::to_string(item) + " is given twice");
        seen[static_cast<std::size_t>(item)] = true;
        const std::string& name = row[1];
        if (name.empty())
            continue; // an empty label: unlabelled
        auto it = std::find(classNames.begin(), classNames.end(), name);
        if (it == classNames.end()) {
            classNames.push_back(name);
            it = classNames.end() - 1;
        }
        labels[static_cast<std::size_t>(item)] = static_cast<std::int32_t>(it - classNames.begin());
    }
    return labels;
}

} // namespace setscope::project
