// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// What the catalogue opens by name, and the transforms a dataset spec may end with: each an
// entry that describes itself (its name, its row in the dataset lists, how to open or apply
// it). openDataset() and builtinDatasets() only walk these tables, so the catalogue names no
// dataset; adding a named dataset or a transform is one entry in Sources.cpp.

#include "core/catalog/DatasetCatalog.h"

#include <functional>
#include <string>
#include <vector>

namespace setscope::catalog {

/// A dataset known by name: "NAME" or "NAME:key=value,...".
struct NamedSource {
    std::string name;
    /// True when the name wins over a file or folder of the same name in the working folder
    /// (generated data and the Debian package); false for fetched sources (a path wins).
    bool beforePaths = false;
    /// Its row in the dataset lists (`setscope-cli datasets`, the GUI's dataset panel).
    std::function<BuiltinDataset()> describe;
    /// Opens it; `options` is the text after "NAME:" ("" when none).
    std::function<data::Dataset(const std::string& options, const plugin::Registry&, const OpenContext&)> open;
};

/// A suffix that makes another dataset of the one before it: "SPEC+SUFFIX" or
/// "SPEC+SUFFIX=ARGUMENT".
struct SpecTransform {
    std::string suffix; ///< with its '+': "+pointsets"
    std::string description;
    /// `argument`: the text after '=' ("" when none); `spec`, the whole spec, names the input in
    /// messages. Throws std::invalid_argument for a bad argument.
    std::function<data::Dataset(const data::Dataset&, const std::string& argument, const std::string& spec)> apply;
};

/// The named datasets, in the order of the lists: the fetched sources (fetch::sources(); one with
/// an installed copy, fashion-mnist's Debian package, reads that first), then synthetic.
std::vector<NamedSource> namedSources();

/// The transforms: +pointsets (images as point sets of bright pixels, data::imagesAsPointsets).
const std::vector<SpecTransform>& specTransforms();

/// The vectors file of a fetched source of kind "word-vectors" ("glove-100d"): "" when `name`
/// is no such source; sdk::InputError naming the fetch command when it is not fetched.
std::string wordVectorsFile(const std::string& name);

} // namespace setscope::catalog
