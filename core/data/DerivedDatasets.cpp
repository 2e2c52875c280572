// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/DerivedDatasets.h"

#include <cmath>
#include <stdexcept>

namespace setscope::data {

namespace {

/// Copies labels, images and, when `elementData` (the items keep their elements), element
/// text and edges of `items` into `b` (items already added).
void copyMeta(const Dataset& ds, const std::vector<std::int64_t>& items, DatasetBuilder& b, bool elementData)
{
    for (const auto& ls : ds.labelSets()) {
        b.defineLabelSet(ls.name, ls.classNames);
        for (std::size_t k = 0; k < items.size(); ++k) {
            const std::int32_t l = ls.labels[static_cast<std::size_t>(items[k])];
            if (l != kUnlabelled)
                b.setLabel(ls.name, k, l);
        }
    }
    if (ds.hasImages()) {
        b.setImageFormat(ds.imageFormat().width, ds.imageFormat().height, ds.imageFormat().channels);
        for (std::size_t k = 0; k < items.size(); ++k)
            b.setImage(k, ds.image(static_cast<std::size_t>(items[k])));
    }
    if (elementData && ds.hasEdges())
        for (std::size_t k = 0; k < items.size(); ++k) {
            const std::span<const std::int32_t> e = ds.edges(static_cast<std::size_t>(items[k]));
            b.setElementEdges(k, e.data(), e.size() / 2);
        }
    if (elementData && ds.hasElementText())
        for (std::size_t k = 0; k < items.size(); ++k) {
            const auto i = static_cast<std::size_t>(items[k]);
            std::vector<std::string> text;
            const auto o = static_cast<std::size_t>(ds.offsets()[i]);
            for (std::size_t e = 0; e < ds.setSize(i); ++e)
                text.push_back(ds.elementText(o + e));
            b.setElementText(k, text);
        }
    for (const auto& f : ds.sourceFiles())
        b.addSourceFile(f);
    for (const auto& n : ds.notes())
        b.note(n);
}

} // namespace

Dataset imagesAsPointsets(const Dataset& ds, float threshold)
{
    int w = 0, h = 0, ch = 1;
    const bool images = ds.hasImages();
    if (images) {
        w = ds.imageFormat().width;
        h = ds.imageFormat().height;
        ch = ds.imageFormat().channels;
    } else {
        const int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(ds.dim()))));
        if (!ds.isVectorDataset() || side * side != ds.dim())
            throw std::invalid_argument("dataset '" + ds.name() +
                                        "' has no images and its vectors are not square images; it cannot become "
                                        "point sets of pixels");
        w = h = side;
    }
    if (!(threshold >= 0.0f && threshold < 1.0f))
        throw std::invalid_argument("pixel threshold must be in [0, 1)");

    DatasetBuilder b(ds.name() + "+pointsets");
    b.setName(ds.name() + "+pointsets");
    b.setDimension(2);
    std::vector<float> pts, wts;
    std::vector<std::int64_t> all(ds.size());
    for (std::size_t i = 0; i < ds.size(); ++i) {
        all[i] = static_cast<std::int64_t>(i);
        pts.clear();
        wts.clear();
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                float v;
                if (images) {
                    const std::uint8_t* px = ds.image(i) + (static_cast<std::size_t>(y) * w + x) * ch;
                    int sum = 0;
                    for (int c = 0; c < std::min(ch, 3); ++c)
                        sum += px[c];
                    v = static_cast<float>(sum) / (255.0f * static_cast<float>(std::min(ch, 3)));
                } else {
                    v = ds.item(i).values[y * w + x];
                }
                if (v > threshold) {
                    pts.push_back(static_cast<float>(x));
                    pts.push_back(static_cast<float>(y));
                    wts.push_back(v);
                }
            }
        if (wts.empty())
            throw InputError(ds.name(), InputError::atRecord(i),
                             "image has no pixel above the threshold " + std::to_string(threshold) +
                                 " (it would be an empty set)");
        // Normalised intensities: every image has mass 1, so the EMD compares intensity
        // distributions (Rubner et al.) instead of fitting a dim image inside a bright one
        // (the partial transport seed 001's definition would do for unequal masses).
        double total = 0;
        for (float x : wts)
            total += x;
        for (float& x : wts)
            x = static_cast<float>(x / total);
        b.addItem(pts.data(), wts.data(), wts.size(), ds.split(i));
    }
    copyMeta(ds, all, b, false);
    b.note("images as point sets: pixels above " + std::to_string(threshold) +
           " as (x, y) points weighted by intensity, normalised per image");
    return b.finish();
}

Dataset subset(const Dataset& ds, const std::vector<std::int64_t>& items)
{
    DatasetBuilder b(ds.name());
    b.setName(ds.name());
    b.setDimension(ds.dim());
    for (std::int64_t i : items) {
        if (i < 0 || static_cast<std::size_t>(i) >= ds.size())
            throw std::out_of_range("item " + std::to_string(i) + " is not in dataset '" + ds.name() + "' (" +
                                    std::to_string(ds.size()) + " items)");
        const ItemView it = ds.item(static_cast<std::size_t>(i));
        b.addItem(it.values, it.weights, it.count, ds.split(static_cast<std::size_t>(i)));
    }
    copyMeta(ds, items, b, true);
    return b.finish();
}

} // namespace setscope::data
