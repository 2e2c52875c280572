// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace setscope::data {
class Dataset;
}

namespace setscope::workspace {

/// `i` as an index of `ds`, or std::invalid_argument "WHAT i is not an item of 'NAME' (0..N-1)"
/// ("WHAT" left out when empty): the one check every workspace function, the CLI and the
/// views make of an item a person named.
std::size_t requireItem(const data::Dataset& ds, std::int64_t i, std::string_view what = "item");

/// The label set views show and score by when a person has not chosen one: "fine" when the
/// dataset has it, else its first label set, else "fine" (which then names no set, so labels
/// read as "-" and label-based scores are left out).
std::string primaryLabelSet(const data::Dataset& ds);

/// Item i's class name in label set `labelSet`; "-" when the set is missing or i is unlabelled.
std::string labelOf(const data::Dataset& ds, std::size_t i, const std::string& labelSet);

/// What element `e` of item `item` is, for people: its word when the dataset has element
/// text, else its first coordinates ("(0.12, -3.4, ...)").
std::string describeElement(const data::Dataset& ds, std::size_t item, std::int64_t e);

/// The items an item is compared with (retrieval candidates, augmentation partners): the
/// train split, or every item when there is none (or when `all`), without `self`.
/// `pool`, when given, names the choice ("train split", "dataset").
std::vector<std::int64_t> otherItems(const data::Dataset& ds, std::int64_t self, bool all = false,
                                     std::string* pool = nullptr);

/// The dataset's words (distinct element texts, each with the vector of its first
/// occurrence), to name an interpolated vector by its nearest word as seed 001 Table 12 does
/// for PointMixup. Empty for datasets without element text.
class Vocabulary {
public:
    explicit Vocabulary(const data::Dataset& ds);
    bool empty() const { return m_first.empty(); }
    std::size_t size() const { return m_first.size(); }
    /// The word whose vector is nearest (Euclidean) to the dim()-vector `v`; "" when empty().
    std::string nearest(const float* v) const;

private:
    const data::Dataset& m_ds;
    std::vector<std::size_t> m_first; ///< global element index of each word's first occurrence
};

} // namespace setscope::workspace
