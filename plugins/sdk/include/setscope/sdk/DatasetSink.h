// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace setscope::sdk {

/// Which part of the data an item belongs to.
enum class Split : std::uint8_t { Train = 0, Val = 1, Test = 2 };

/// Label value for "no label".
inline constexpr std::int32_t kUnlabelled = -1;

/// What a loader writes a dataset into. The host implements it; a loader calls it from the
/// loader's thread (whatever thread called the loader) and never keeps the pointer.
///
/// A dataset is N items; each item is a set of `dimension()` float32 vectors with one
/// weight per element. A plain vector dataset is the case of sets of size 1.
class DatasetSink {
public:
    virtual ~DatasetSink() = default;

    virtual void setName(std::string_view name) = 0;
    /// Must be called once, before the first addItem().
    virtual void setDimension(int dim) = 0;
    /// Optional capacity hint.
    virtual void reserve(std::size_t items, std::size_t elements) = 0;

    /// Appends one item of `count` elements: `values` holds count * dim floats, row-major;
    /// `weights` holds `count` weights, or is nullptr for uniform weights of 1.
    /// Returns the item's index. Values are copied.
    virtual std::size_t addItem(const float* values, const float* weights, std::size_t count, Split split) = 0;

    /// Declares a label set (e.g. "fine", "coarse"); class ids index `classNames`.
    /// Items not given a label in this set are unlabelled (kUnlabelled).
    virtual void defineLabelSet(std::string_view name, const std::vector<std::string>& classNames) = 0;
    virtual void setLabel(std::string_view labelSet, std::size_t item, std::int32_t label) = 0;

    /// Display data for images: declare once, then give each item's pixels
    /// (width * height * channels bytes, row-major, 8-bit).
    virtual void setImageFormat(int width, int height, int channels) = 0;
    virtual void setImage(std::size_t item, const std::uint8_t* pixels) = 0;

    /// Display data for documents / named elements: one string per element of the item.
    virtual void setElementText(std::size_t item, const std::vector<std::string>& text) = 0;

    /// Graph structure (ABI 7): the undirected edges between the elements of item `item`
    /// (an existing item), `edgeCount` pairs of element indices within the item, `pairs`
    /// holding 2 * edgeCount ints (a0, b0, a1, b1, ...), each index in [0, the item's count).
    /// At most one call per item, in any item order; a == b is a self-loop. Items without a
    /// call have no edges; a dataset with no call at all is not a graph dataset. Values are
    /// copied.
    virtual void setElementEdges(std::size_t item, const std::int32_t* pairs, std::size_t edgeCount) = 0;

    /// Records an input file (for the content hash that keys caches and the project store).
    virtual void addSourceFile(const std::string& path) = 0;

    /// A note for the user (counts dropped, defaults applied).
    virtual void note(const std::string& message) = 0;
};

} // namespace setscope::sdk
