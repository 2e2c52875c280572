// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Errors.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace setscope::data {

using sdk::InputError;
using sdk::kUnlabelled;
using sdk::Split;

const char* splitName(Split s);

/// A named labelling of every item: `labels[i]` is a class id in [0, classNames.size())
/// or kUnlabelled (-1).
struct LabelSet {
    std::string name;
    std::vector<std::string> classNames;
    std::vector<std::int32_t> labels;

    int numClasses() const { return static_cast<int>(classNames.size()); }
    /// Items per class (index = class id); unlabelled items are not counted.
    std::vector<std::size_t> counts() const;
    std::size_t unlabelledCount() const;
};

/// One item viewed in place: `count` elements of `dim` floats and their weights.
struct ItemView {
    const float* values = nullptr;
    const float* weights = nullptr;
    std::size_t count = 0;
    int dim = 0;

    std::span<const float> element(std::size_t e) const { return {values + e * dim, static_cast<std::size_t>(dim)}; }
};

/// Per-item display data for images (8-bit pixels, row-major, `channels` interleaved).
struct ImageFormat {
    int width = 0;
    int height = 0;
    int channels = 0;
    std::size_t bytesPerItem() const { return static_cast<std::size_t>(width) * height * channels; }
    bool valid() const { return width > 0 && height > 0 && channels > 0; }
};

/// The dataset model: N items, each a weighted set of float32 vectors of one dimension D.
/// Storage is ragged: all elements of all items in one contiguous row-major array,
/// item i owning elements [offsets[i], offsets[i+1]). A plain vector dataset is the case
/// where every set has one element of weight 1 (one code path, not two).
///
/// A Dataset is immutable once built (DatasetBuilder builds it); share it between threads
/// as std::shared_ptr<const Dataset>. Label edits live in the project store, which
/// produces a new LabelSet to attach with withLabelSet().
class Dataset {
public:
    const std::string& name() const { return m_name; }
    int dim() const { return m_dim; }
    std::size_t size() const { return m_offsets.size() - 1; }
    std::size_t elementCount() const { return m_weights.size(); }
    bool empty() const { return size() == 0; }

    ItemView item(std::size_t i) const;
    std::size_t setSize(std::size_t i) const { return static_cast<std::size_t>(m_offsets[i + 1] - m_offsets[i]); }
    std::size_t maxSetSize() const;
    /// True when every item has exactly one element (a plain vector dataset).
    bool isVectorDataset() const;

    const std::vector<float>& values() const { return m_values; }
    const std::vector<float>& weights() const { return m_weights; }
    const std::vector<std::int64_t>& offsets() const { return m_offsets; }

    Split split(std::size_t i) const { return m_splits[i]; }
    const std::vector<Split>& splits() const { return m_splits; }
    /// Indices of the items in split `s`, ascending.
    std::vector<std::int64_t> indices(Split s) const;
    std::size_t count(Split s) const;

    const std::vector<LabelSet>& labelSets() const { return m_labelSets; }
    /// nullptr when there is no label set of that name.
    const LabelSet* labelSet(const std::string& name) const;
    /// Like labelSet() but throws std::invalid_argument naming the available sets.
    const LabelSet& requireLabelSet(const std::string& name) const;
    /// A copy of this dataset with `ls` added or replacing the set of the same name. Throws
    /// std::invalid_argument, naming the first bad item, when `ls` has not one label per item or
    /// a label is neither -1 nor a class id (< classNames.size()).
    Dataset withLabelSet(LabelSet ls) const&;
    /// The same without a copy: this dataset's storage moves into the result.
    Dataset withLabelSet(LabelSet ls) &&;

    const ImageFormat& imageFormat() const { return m_image; }
    bool hasImages() const { return m_image.valid(); }
    /// Pixels of item i (imageFormat().bytesPerItem() bytes). Requires hasImages().
    const std::uint8_t* image(std::size_t i) const { return m_pixels.data() + i * m_image.bytesPerItem(); }

    bool hasElementText() const { return !m_elementText.empty(); }
    /// Display string of element e (global element index), "" when none.
    const std::string& elementText(std::size_t e) const;

    /// True for a graph dataset: its loader gave the edges between elements
    /// (DatasetSink::setElementEdges). A dataset without edges stores nothing for them.
    bool hasEdges() const { return !m_edgeOffsets.empty(); }
    /// The undirected edges of item i as 2 * edgeCount(i) element indices within the item
    /// (a0, b0, a1, b1, ...), each in [0, setSize(i)); empty without edges.
    std::span<const std::int32_t> edges(std::size_t i) const;
    std::size_t edgeCount(std::size_t i) const { return edges(i).size() / 2; }
    /// All edges, CSR-like: item i's pairs are edgePairs()[2 * edgeOffsets()[i] ..
    /// 2 * edgeOffsets()[i + 1]); both empty without edges.
    const std::vector<std::int32_t>& edgePairs() const { return m_edges; }
    const std::vector<std::int64_t>& edgeOffsets() const { return m_edgeOffsets; }

    const std::vector<std::string>& sourceFiles() const { return m_sourceFiles; }
    /// Hex content hash (xxh3-128) of the values, weights, set boundaries, shipped labels and
    /// splits; set by DatasetBuilder::finish(). Keys caches and the project store's records.
    const std::string& contentHash() const { return m_contentHash; }
    const std::vector<std::string>& notes() const { return m_notes; }

private:
    friend class DatasetBuilder;

    std::string m_name;
    int m_dim = 0;
    std::vector<float> m_values;
    std::vector<float> m_weights;
    std::vector<std::int64_t> m_offsets{0};
    std::vector<Split> m_splits;
    std::vector<LabelSet> m_labelSets;
    ImageFormat m_image;
    std::vector<std::uint8_t> m_pixels;
    std::vector<std::string> m_elementText;
    /// Edges: size() + 1 offsets (in edges) into m_edges (2 ints per edge); both empty for
    /// a dataset without edges.
    std::vector<std::int64_t> m_edgeOffsets;
    std::vector<std::int32_t> m_edges;
    std::vector<std::string> m_sourceFiles;
    std::string m_contentHash;
    std::vector<std::string> m_notes;
};

/// Builds a Dataset through the SDK's DatasetSink interface (what every loader, built-in
/// or plugin, writes into). finish() validates: no NaN or infinity, no empty set, weights
/// non-negative with a positive sum, labels within their class range; setElementEdges()
/// refuses an element index outside its item at once.
class DatasetBuilder final : public sdk::DatasetSink {
public:
    /// `origin` names the input in error messages (usually the path being loaded).
    explicit DatasetBuilder(std::string origin = {});

    void setName(std::string_view name) override;
    void setDimension(int dim) override;
    void reserve(std::size_t items, std::size_t elements) override;
    std::size_t addItem(const float* values, const float* weights, std::size_t count, Split split) override;
    void defineLabelSet(std::string_view name, const std::vector<std::string>& classNames) override;
    void setLabel(std::string_view labelSet, std::size_t item, std::int32_t label) override;
    void setImageFormat(int width, int height, int channels) override;
    void setImage(std::size_t item, const std::uint8_t* pixels) override;
    void setElementText(std::size_t item, const std::vector<std::string>& text) override;
    void setElementEdges(std::size_t item, const std::int32_t* pairs, std::size_t edgeCount) override;
    void addSourceFile(const std::string& path) override;
    void note(const std::string& message) override;

    /// Validates and returns the dataset; the builder is empty afterwards.
    /// Throws InputError naming the origin and the offending item.
    Dataset finish();

private:
    LabelSet& findLabelSet(std::string_view name);

    /// Edges as given, per call: (item, first int in m_pendingPairs, edge count); packed
    /// into the dataset's CSR arrays in item order by finish().
    struct PendingEdges {
        std::size_t item;
        std::size_t begin;
        std::size_t count;
    };

    std::string m_origin;
    Dataset m_ds;
    bool m_dimSet = false;
    std::vector<PendingEdges> m_pendingEdges;
    std::vector<std::int32_t> m_pendingPairs;
};

} // namespace setscope::data
