// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/Dataset.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace setscope::data {

/// How a label set is derived from another one by merging classes (weak metric learning,
/// seed 003: coarse labels over fine ones). Every class of the source set belongs to exactly
/// one target class; unlabelled items stay unlabelled. Stored as JSON (docs/LABELS.md):
///
///     {"name": "garment", "from": "fine",
///      "classes": {"tops": ["T-shirt/top", "Pullover", "Dress", "Coat", "Shirt"],
///                  "trouser": ["Trouser"],
///                  "footwear": ["Sandal", "Sneaker", "Ankle boot"],
///                  "bag": ["Bag"]}}
///
/// Target class ids follow the order of "classes" as written.
struct LabelMapping {
    std::string name;   ///< the derived label set
    std::string source; ///< the label set it is derived from
    /// Target class name -> the source class names it takes, in target-id order.
    std::vector<std::pair<std::string, std::vector<std::string>>> classes;

    /// Parses the JSON above. Throws sdk::InputError naming `origin` (a file name, or
    /// "mapping") and what is wrong: not JSON, an unknown key, a missing or empty
    /// name/from/classes, a class name that is empty or given twice (also as a repeated JSON
    /// key), a source class under two targets, the derived set named like its source.
    static LabelMapping fromJson(const std::string& text, const std::string& origin = "mapping");
    /// The JSON above (one line per target class), which fromJson() reads back.
    std::string toJson() const;

    std::vector<std::string> classNames() const;
    /// For each class id of `from` (a label set named `source`), its target class id.
    /// Throws std::invalid_argument naming the source classes the mapping does not place and
    /// the mapping's source classes `from` does not have.
    std::vector<std::int32_t> targetOf(const LabelSet& from) const;
    /// The derived label set of `ds` (its label set `source`, which must exist: else
    /// std::invalid_argument naming the sets there are).
    LabelSet apply(const Dataset& ds) const;
};

/// Reads a mapping file (LabelMapping::fromJson, errors naming the file).
LabelMapping readLabelMapping(const std::string& path);

/// Every class of `from` its own target class of the same name: where the GUI's mapping
/// editor starts before classes are merged.
LabelMapping identityMapping(const LabelSet& from, const std::string& name);

} // namespace setscope::data
