// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Dataset.h"

#include "core/util/CheckedMath.h"
#include "core/util/FloatRange.h"
#include "core/util/Hash.h"
#include "core/util/Memory.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <optional>
#include <stdexcept>

namespace setscope::data {

const char* splitName(Split s)
{
    switch (s) {
    case Split::Train: return "train";
    case Split::Val: return "val";
    case Split::Test: return "test";
    }
    return "?";
}

std::vector<std::size_t> LabelSet::counts() const
{
    std::vector<std::size_t> c(classNames.size(), 0);
    for (std::int32_t l : labels)
        if (l >= 0 && static_cast<std::size_t>(l) < c.size())
            ++c[static_cast<std::size_t>(l)];
    return c;
}

std::size_t LabelSet::unlabelledCount() const
{
    return static_cast<std::size_t>(std::count(labels.begin(), labels.end(), kUnlabelled));
}

ItemView Dataset::item(std::size_t i) const
{
    const auto b = static_cast<std::size_t>(m_offsets[i]);
    return {m_values.data() + b * static_cast<std::size_t>(m_dim), m_weights.data() + b, setSize(i), m_dim};
}

std::size_t Dataset::maxSetSize() const
{
    std::size_t m = 0;
    for (std::size_t i = 0; i < size(); ++i)
        m = std::max(m, setSize(i));
    return m;
}

bool Dataset::isVectorDataset() const { return elementCount() == size(); }

std::vector<std::int64_t> Dataset::indices(Split s) const
{
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < m_splits.size(); ++i)
        if (m_splits[i] == s)
            out.push_back(static_cast<std::int64_t>(i));
    return out;
}

std::size_t Dataset::count(Split s) const
{
    return static_cast<std::size_t>(std::count(m_splits.begin(), m_splits.end(), s));
}

const LabelSet* Dataset::labelSet(const std::string& name) const
{
    for (const auto& ls : m_labelSets)
        if (ls.name == name)
            return &ls;
    return nullptr;
}

const LabelSet& Dataset::requireLabelSet(const std::string& name) const
{
    if (const LabelSet* ls = labelSet(name))
        return *ls;
    std::string avail;
    for (const auto& ls : m_labelSets)
        avail += (avail.empty() ? "" : ", ") + ls.name;
    throw std::invalid_argument("dataset '" + m_name + "' has no label set '" + name + "' (available: " +
                                (avail.empty() ? std::string("none") : avail) + ")");
}

Dataset Dataset::withLabelSet(LabelSet ls) const&
{
    Dataset copy = *this;
    return std::move(copy).withLabelSet(std::move(ls));
}

Dataset Dataset::withLabelSet(LabelSet ls) &&
{
    if (ls.labels.size() != size())
        throw std::invalid_argument("label set '" + ls.name + "' has " + std::to_string(ls.labels.size()) +
                                    " labels for " + std::to_string(size()) + " items");
    // Every reader indexes the class names with a label: one from a project file or another
    // process is checked here, whatever path it came by.
    const auto classes = static_cast<std::int64_t>(ls.classNames.size());
    for (std::size_t i = 0; i < ls.labels.size(); ++i)
        if (ls.labels[i] < -1 || ls.labels[i] >= classes)
            throw std::invalid_argument("label set '" + ls.name + "': item " + std::to_string(i) + " has the label " +
                                        std::to_string(ls.labels[i]) + ", which is neither -1 nor a class id in [0, " +
                                        std::to_string(classes) + ")");
    auto it = std::find_if(m_labelSets.begin(), m_labelSets.end(), [&](const LabelSet& l) { return l.name == ls.name; });
    if (it != m_labelSets.end())
        *it = std::move(ls);
    else
        m_labelSets.push_back(std::move(ls));
    return std::move(*this);
}

const std::string& Dataset::elementText(std::size_t e) const
{
    static const std::string kEmpty;
    return e < m_elementText.size() ? m_elementText[e] : kEmpty;
}

std::span<const std::int32_t> Dataset::edges(std::size_t i) const
{
    if (m_edgeOffsets.empty())
        return {};
    const auto b = static_cast<std::size_t>(m_edgeOffsets[i]);
    const auto e = static_cast<std::size_t>(m_edgeOffsets[i + 1]);
    return {m_edges.data() + 2 * b, 2 * (e - b)};
}

// ---------------------------------------------------------------------------------------

DatasetBuilder::DatasetBuilder(std::string origin)
    : m_origin(std::move(origin))
{
}

void DatasetBuilder::setName(std::string_view name) { m_ds.m_name = name; }

void DatasetBuilder::setDimension(int dim)
{
    if (dim <= 0)
        throw InputError(m_origin, "", "dimension must be positive, got " + std::to_string(dim));
    if (m_dimSet && dim != m_ds.m_dim)
        throw InputError(m_origin, "", "dimension set twice (" + std::to_string(m_ds.m_dim) + " then " +
                                           std::to_string(dim) + ")");
    m_ds.m_dim = dim;
    m_dimSet = true;
}

void DatasetBuilder::reserve(std::size_t items, std::size_t elements)
{
    // Loaders pass counts read from files: a product that does not fit is refused, and a
    // hint the machine cannot honour is dropped (the items bring their own data).
    const std::optional<std::size_t> offsets = util::checkedAdd<std::size_t>(items, 1);
    const std::optional<std::size_t> values =
        util::checkedMul(elements, static_cast<std::size_t>(m_dimSet ? m_ds.m_dim : 1));
    if (!offsets || !values)
        throw InputError(m_origin, "",
                         "the loader asked for room for " + std::to_string(items) + " items with " +
                             std::to_string(elements) + " elements: more values than fit in 64 bits");
    // The counts are the loader's (exact, from the file's header): the whole dataset is weighed
    // against the memory budget here, before its values arrive (docs/RELIABILITY.md, "Memory").
    // What is already here (an earlier reserve or earlier items) does not count twice.
    const std::uint64_t newItems = items - std::min(items, m_ds.size());
    const std::uint64_t newElements = elements - std::min(elements, m_ds.m_weights.size());
    const std::uint64_t bytes =
        (newElements * static_cast<std::uint64_t>(m_dimSet ? m_ds.m_dim : 1) + newElements) * sizeof(float) +
        newItems * (sizeof(std::int64_t) + sizeof(Split) + m_ds.m_image.bytesPerItem());
    if (m_dimSet)
        util::requireMemory(m_origin, bytes,
                            std::to_string(items) + " items with " + std::to_string(elements) + " elements of dimension " +
                                std::to_string(m_ds.m_dim) + " as float32" +
                                (m_ds.m_image.bytesPerItem() ? std::string(", with their images") : std::string()));
    try {
        m_ds.m_offsets.reserve(*offsets);
        m_ds.m_splits.reserve(items);
        m_ds.m_weights.reserve(elements);
        if (m_dimSet)
            m_ds.m_values.reserve(*values);
        if (const std::size_t bpi = m_ds.m_image.bytesPerItem())
            m_ds.m_pixels.reserve(util::checkedMul(items, bpi).value_or(0));
    } catch (const std::bad_alloc&) {
        // only a hint: dropped
    } catch (const std::length_error&) {
        // only a hint: dropped
    }
}

std::size_t DatasetBuilder::addItem(const float* values, const float* weights, std::size_t count, Split split)
{
    const std::size_t item = m_ds.size();
    if (!m_dimSet)
        throw InputError(m_origin, InputError::atRecord(item), "setDimension() must precede the first item");
    if (count == 0)
        throw InputError(m_origin, InputError::atRecord(item), "empty set (an item needs at least one element)");
    const auto d = static_cast<std::size_t>(m_ds.m_dim);
    const std::optional<std::size_t> n = util::checkedMul(count, d);
    if (!n)
        throw InputError(m_origin, InputError::atRecord(item),
                         "a set of " + std::to_string(count) + " elements of dimension " + std::to_string(d) +
                             " has more values than fit in 64 bits");
    // A loader that did not reserve grows the values as items arrive: each time the vector would
    // reallocate, the new buffer is weighed against the memory budget first, so that a file too
    // large for the machine stops loading with a message instead of swapping.
    if (const std::size_t cap = m_ds.m_values.capacity(); cap - m_ds.m_values.size() < *n) {
        const std::uint64_t next = std::max<std::uint64_t>(2 * static_cast<std::uint64_t>(cap), m_ds.m_values.size() + *n);
        if (next * sizeof(float) > (std::uint64_t(64) << 20))
            util::requireMemory(m_origin, next * sizeof(float),
                                "growing to " + std::to_string(next) + " float32 values at item " + std::to_string(item));
    }
    m_ds.m_values.insert(m_ds.m_values.end(), values, values + *n);
    if (weights)
        m_ds.m_weights.insert(m_ds.m_weights.end(), weights, weights + count);
    else
        m_ds.m_weights.insert(m_ds.m_weights.end(), count, 1.0f);
    m_ds.m_offsets.push_back(static_cast<std::int64_t>(m_ds.m_weights.size()));
    m_ds.m_splits.push_back(split);
    for (auto& ls : m_ds.m_labelSets)
        ls.labels.push_back(kUnlabelled);
    return item;
}

void DatasetBuilder::defineLabelSet(std::string_view name, const std::vector<std::string>& classNames)
{
    if (name.empty())
        throw InputError(m_origin, "", "a label set needs a name");
    for (const auto& ls : m_ds.m_labelSets)
        if (ls.name == name)
            throw InputError(m_origin, "", "label set '" + std::string(name) + "' defined twice");
    LabelSet ls;
    ls.name = name;
    ls.classNames = classNames;
    ls.labels.assign(m_ds.size(), kUnlabelled);
    m_ds.m_labelSets.push_back(std::move(ls));
}

LabelSet& DatasetBuilder::findLabelSet(std::string_view name)
{
    for (auto& ls : m_ds.m_labelSets)
        if (ls.name == name)
            return ls;
    throw InputError(m_origin, "", "label set '" + std::string(name) + "' used before defineLabelSet()");
}

void DatasetBuilder::setLabel(std::string_view labelSet, std::size_t item, std::int32_t label)
{
    LabelSet& ls = findLabelSet(labelSet);
    if (item >= ls.labels.size())
        throw InputError(m_origin, InputError::atRecord(item), "label for an item that does not exist");
    if (label != kUnlabelled && (label < 0 || label >= ls.numClasses()))
        throw InputError(m_origin, InputError::atRecord(item),
                         "label " + std::to_string(label) + " outside [0, " + std::to_string(ls.numClasses()) +
                             ") of label set '" + ls.name + "'");
    ls.labels[item] = label;
}

void DatasetBuilder::setImageFormat(int width, int height, int channels)
{
    if (width <= 0 || height <= 0 || (channels != 1 && channels != 3 && channels != 4))
        throw InputError(m_origin, "", "bad image format " + std::to_string(width) + "x" + std::to_string(height) +
                                           "x" + std::to_string(channels));
    m_ds.m_image = {width, height, channels};
}

void DatasetBuilder::setImage(std::size_t item, const std::uint8_t* pixels)
{
    const std::size_t bpi = m_ds.m_image.bytesPerItem();
    if (bpi == 0)
        throw InputError(m_origin, InputError::atRecord(item), "setImage() before setImageFormat()");
    if (item >= m_ds.size()) // the pixel buffer grows to (item + 1) images
        throw InputError(m_origin, InputError::atRecord(item), "image for an item that does not exist");
    if (m_ds.m_pixels.size() < (item + 1) * bpi)
        m_ds.m_pixels.resize((item + 1) * bpi, 0);
    std::copy(pixels, pixels + bpi, m_ds.m_pixels.begin() + static_cast<std::ptrdiff_t>(item * bpi));
}

void DatasetBuilder::setElementText(std::size_t item, const std::vector<std::string>& text)
{
    if (item >= m_ds.size())
        throw InputError(m_origin, InputError::atRecord(item), "text for an item that does not exist");
    if (text.size() != m_ds.setSize(item))
        throw InputError(m_origin, InputError::atRecord(item),
                         std::to_string(text.size()) + " strings for a set of " + std::to_string(m_ds.setSize(item)));
    m_ds.m_elementText.resize(m_ds.elementCount());
    const auto b = static_cast<std::size_t>(m_ds.m_offsets[item]);
    std::copy(text.begin(), text.end(), m_ds.m_elementText.begin() + static_cast<std::ptrdiff_t>(b));
}

void DatasetBuilder::setElementEdges(std::size_t item, const std::int32_t* pairs, std::size_t edgeCount)
{
    if (item >= m_ds.size())
        throw InputError(m_origin, InputError::atRecord(item), "edges for an item that does not exist");
    const std::size_t n = m_ds.setSize(item);
    const std::optional<std::size_t> ints = util::checkedMul<std::size_t>(edgeCount, 2);
    if (!ints || (edgeCount > 0 && !pairs))
        throw InputError(m_origin, InputError::atRecord(item),
                         "bad edge list (" + std::to_string(edgeCount) + " edges)");
    for (std::size_t k = 0; k < *ints; ++k)
        if (pairs[k] < 0 || static_cast<std::size_t>(pairs[k]) >= n)
            throw InputError(m_origin, InputError::atRecord(item),
                             "edge " + std::to_string(k / 2) + " (" + std::to_string(pairs[k - k % 2]) + ", " +
                                 std::to_string(pairs[k - k % 2 + 1]) + ") names element " +
                                 std::to_string(pairs[k]) + " of a set of " + std::to_string(n) +
                                 " elements (indices are 0 .. " + std::to_string(n - 1) + ")");
    m_pendingEdges.push_back({item, m_pendingPairs.size(), edgeCount});
    m_pendingPairs.insert(m_pendingPairs.end(), pairs, pairs + *ints);
}

void DatasetBuilder::addSourceFile(const std::string& path) { m_ds.m_sourceFiles.push_back(path); }

void DatasetBuilder::note(const std::string& message) { m_ds.m_notes.push_back(message); }

Dataset DatasetBuilder::finish()
{
    Dataset& ds = m_ds;
    if (ds.empty())
        throw InputError(m_origin, "", "no items");
    const auto d = static_cast<std::size_t>(ds.m_dim);
    const double bound = util::maxSafeMagnitude(ds.m_dim);
    for (std::size_t i = 0; i < ds.size(); ++i) {
        const ItemView it = ds.item(i);
        double wsum = 0.0;
        for (std::size_t e = 0; e < it.count; ++e) {
            const float w = it.weights[e];
            if (!std::isfinite(w) || w < 0.0f || w > util::maxSafeWeight())
                throw InputError(m_origin, InputError::atRecord(i),
                                 "element " + std::to_string(e) + " has weight " + util::formatValue(w) +
                                     " (weights must be finite, non-negative and at most " +
                                     util::formatValue(util::maxSafeWeight()) + ")");
            wsum += w;
            // Finite is not enough: a value whose squared distances overflow float makes FAISS
            // answer id -1 and the cost matrices infinite (issue 29 §2). Refused here, whatever
            // the loader (built-in or plugin), naming the record.
            for (std::size_t k = 0; k < d; ++k)
                if (!(std::fabs(it.values[e * d + k]) <= bound)) // also NaN
                    throw InputError(m_origin, InputError::atRecord(i),
                                     "element " + std::to_string(e) + ", component " + std::to_string(k) + " is " +
                                         util::valueProblem(it.values[e * d + k], ds.m_dim));
        }
        if (!(wsum > 0.0))
            throw InputError(m_origin, InputError::atRecord(i), "total weight is zero");
    }
    if (ds.m_image.valid() && ds.m_pixels.size() != ds.size() * ds.m_image.bytesPerItem())
        ds.m_pixels.resize(ds.size() * ds.m_image.bytesPerItem(), 0);
    if (ds.m_name.empty())
        ds.m_name = m_origin.empty() ? std::string("dataset") : m_origin;
    if (!m_pendingEdges.empty()) {
        // CSR in item order, whatever order the loader gave the items' edges in.
        std::sort(m_pendingEdges.begin(), m_pendingEdges.end(),
                  [](const PendingEdges& a, const PendingEdges& b) { return a.item < b.item; });
        // Checked here, not per call: a per-call search would be quadratic in the items.
        for (std::size_t k = 1; k < m_pendingEdges.size(); ++k)
            if (m_pendingEdges[k].item == m_pendingEdges[k - 1].item)
                throw InputError(m_origin, InputError::atRecord(m_pendingEdges[k].item), "edges given twice for one item");
        ds.m_edgeOffsets.assign(ds.size() + 1, 0);
        ds.m_edges.clear();
        ds.m_edges.reserve(m_pendingPairs.size());
        std::size_t next = 0;
        for (std::size_t i = 0; i < ds.size(); ++i) {
            if (next < m_pendingEdges.size() && m_pendingEdges[next].item == i) {
                const PendingEdges& p = m_pendingEdges[next++];
                const auto first = m_pendingPairs.begin() + static_cast<std::ptrdiff_t>(p.begin);
                ds.m_edges.insert(ds.m_edges.end(), first, first + static_cast<std::ptrdiff_t>(2 * p.count));
            }
            ds.m_edgeOffsets[i + 1] = static_cast<std::int64_t>(ds.m_edges.size() / 2);
        }
    }

    // The hash is of the content itself (what every cache keyed by it depends on), not of
    // the files: a transformed dataset (e.g. images as point sets) hashes differently from
    // its source. XXH3 runs at memory speed: ~25 ms for Fashion-MNIST's 220 MB.
    util::ContentHasher h;
    const std::int64_t dim = ds.m_dim;
    h.update(&dim, sizeof dim);
    h.update(ds.m_values.data(), ds.m_values.size() * sizeof(float));
    h.update(ds.m_weights.data(), ds.m_weights.size() * sizeof(float));
    h.update(ds.m_offsets.data(), ds.m_offsets.size() * sizeof(std::int64_t));
    // Labels shipped with the data are part of its identity (user edits are not: they
    // live in the project store).
    for (const auto& ls : ds.m_labelSets) {
        h.update(ls.name);
        h.update(ls.labels.data(), ls.labels.size() * sizeof(std::int32_t));
    }
    h.update(ds.m_splits.data(), ds.m_splits.size());
    ds.m_contentHash = h.hex();

    // Edges are display data like images and element text: not part of the hash, so a
    // graph dataset keeps the hash (and the project records) it had before edges were kept.
    Dataset out = std::move(m_ds);
    m_ds = Dataset{};
    m_dimSet = false;
    m_pendingEdges.clear();
    m_pendingPairs.clear();
    return out;
}

} // namespace setscope::data
