// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Synthetic.h"

#include "core/util/SpecOptions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

namespace setscope::data {

sdk::OptionSchema SyntheticSpec::schema()
{
    using sdk::OptionSpec;
    const SyntheticSpec d;
    constexpr double kMaxCount = 100000000;
    return {
        OptionSpec::integer("dim", d.dim, 1, 1 << 20, "dimension of the points"),
        OptionSpec::integer("coarse", d.coarseClasses, 1, kMaxCount, "coarse classes"),
        OptionSpec::integer("fine", d.finePerCoarse, 1, kMaxCount, "fine classes per coarse class"),
        OptionSpec::integer("points", d.pointsPerFine, 1, kMaxCount, "items per fine class"),
        OptionSpec::integer("set", d.setSize, 1, kMaxCount, "points per item (1: plain vectors)"),
        OptionSpec::real("coarse_spread", d.coarseSpread, -1e30, 1e30, "standard deviation of the coarse centres"),
        OptionSpec::real("fine_spread", d.fineSpread, -1e30, 1e30, "standard deviation of the fine centres around theirs"),
        OptionSpec::real("point_spread", d.pointSpread, -1e30, 1e30, "standard deviation of the points around their fine centre"),
        OptionSpec::real("test", d.testFraction, 0.0, std::nextafter(1.0, 0.0), "fraction of each fine class in the test split"),
        OptionSpec::integer("seed", static_cast<std::int64_t>(d.seed), 0, 9.0e15, "seeds the generator"),
    };
}

SyntheticSpec SyntheticSpec::fromValues(const sdk::OptionValues& v)
{
    SyntheticSpec s;
    s.dim = static_cast<int>(v.integer("dim"));
    s.coarseClasses = static_cast<int>(v.integer("coarse"));
    s.finePerCoarse = static_cast<int>(v.integer("fine"));
    s.pointsPerFine = static_cast<int>(v.integer("points"));
    s.setSize = static_cast<int>(v.integer("set"));
    s.coarseSpread = v.real("coarse_spread");
    s.fineSpread = v.real("fine_spread");
    s.pointSpread = v.real("point_spread");
    s.testFraction = v.real("test");
    s.seed = static_cast<std::uint64_t>(v.integer("seed"));
    return s;
}

SyntheticSpec SyntheticSpec::parse(const std::string& text)
{
    return fromValues(util::resolveSpecOptions(schema(), text, "synthetic"));
}

namespace {
std::vector<Split> stratifiedSplits(const std::vector<std::int32_t>& labels, double testFraction, std::uint64_t seed)
{
    std::map<std::int32_t, std::vector<std::size_t>> byClass;
    for (std::size_t i = 0; i < labels.size(); ++i)
        byClass[labels[i]].push_back(i);
    std::vector<Split> splits(labels.size(), Split::Train);
    std::mt19937_64 rng(seed);
    for (auto& [label, idx] : byClass) {
        std::shuffle(idx.begin(), idx.end(), rng);
        const auto nTest = static_cast<std::size_t>(static_cast<double>(idx.size()) * testFraction + 0.5);
        for (std::size_t k = 0; k < nTest && k < idx.size(); ++k)
            splits[idx[k]] = Split::Test;
    }
    return splits;
}
} // namespace

Dataset makeHierarchicalGaussians(const SyntheticSpec& spec)
{
    std::mt19937_64 rng(spec.seed);
    std::normal_distribution<double> n01(0.0, 1.0);
    const int d = spec.dim;
    const int nFine = spec.coarseClasses * spec.finePerCoarse;

    std::vector<double> coarse(static_cast<std::size_t>(spec.coarseClasses * d));
    for (auto& v : coarse)
        v = spec.coarseSpread * n01(rng);
    std::vector<double> fine(static_cast<std::size_t>(nFine * d));
    for (int f = 0; f < nFine; ++f)
        for (int k = 0; k < d; ++k)
            fine[static_cast<std::size_t>(f * d + k)] =
                coarse[static_cast<std::size_t>((f / spec.finePerCoarse) * d + k)] + spec.fineSpread * n01(rng);

    DatasetBuilder b("synthetic");
    b.setName("synthetic-hierarchical");
    b.setDimension(d);
    std::vector<std::string> fineNames, coarseNames;
    for (int c = 0; c < spec.coarseClasses; ++c) {
        coarseNames.push_back("C" + std::to_string(c));
        for (int f = 0; f < spec.finePerCoarse; ++f)
            fineNames.push_back("C" + std::to_string(c) + "." + std::to_string(f));
    }
    b.defineLabelSet("fine", fineNames);
    b.defineLabelSet("coarse", coarseNames);

    std::vector<float> pts(static_cast<std::size_t>(spec.setSize * d));
    for (int f = 0; f < nFine; ++f) {
        for (int p = 0; p < spec.pointsPerFine; ++p) {
            for (int e = 0; e < spec.setSize; ++e)
                for (int k = 0; k < d; ++k)
                    pts[static_cast<std::size_t>(e * d + k)] = static_cast<float>(
                        fine[static_cast<std::size_t>(f * d + k)] + spec.pointSpread * n01(rng));
            const std::size_t item = b.addItem(pts.data(), nullptr, static_cast<std::size_t>(spec.setSize), Split::Train);
            b.setLabel("fine", item, f);
            b.setLabel("coarse", item, f / spec.finePerCoarse);
        }
    }
    Dataset ds = b.finish();
    if (spec.testFraction > 0)
        return withStratifiedTestSplit(ds, "fine", spec.testFraction, spec.seed ^ 0x5eedULL);
    return ds;
}

Dataset withStratifiedTestSplit(const Dataset& ds, const std::string& labelSet, double testFraction, std::uint64_t seed)
{
    const LabelSet* ls = ds.labelSet(labelSet);
    std::vector<std::int32_t> labels = ls ? ls->labels : std::vector<std::int32_t>(ds.size(), kUnlabelled);
    const std::vector<Split> splits = stratifiedSplits(labels, testFraction, seed);

    // Rebuild through the builder so every invariant is checked in one place.
    DatasetBuilder b(ds.name());
    b.setName(ds.name());
    b.setDimension(ds.dim());
    b.reserve(ds.size(), ds.elementCount());
    for (std::size_t i = 0; i < ds.size(); ++i) {
        const ItemView it = ds.item(i);
        b.addItem(it.values, it.weights, it.count, splits[i]);
    }
    for (const auto& l : ds.labelSets()) {
        b.defineLabelSet(l.name, l.classNames);
        for (std::size_t i = 0; i < ds.size(); ++i)
            if (l.labels[i] != kUnlabelled)
                b.setLabel(l.name, i, l.labels[i]);
    }
    if (ds.hasImages()) {
        b.setImageFormat(ds.imageFormat().width, ds.imageFormat().height, ds.imageFormat().channels);
        for (std::size_t i = 0; i < ds.size(); ++i)
            b.setImage(i, ds.image(i));
    }
    if (ds.hasElementText()) {
        for (std::size_t i = 0; i < ds.size(); ++i) {
            std::vector<std::string> text;
            const auto o = static_cast<std::size_t>(ds.offsets()[i]);
            for (std::size_t e = 0; e < ds.setSize(i); ++e)
                text.push_back(ds.elementText(o + e));
            b.setElementText(i, text);
        }
    }
    if (ds.hasEdges())
        for (std::size_t i = 0; i < ds.size(); ++i) {
            const std::span<const std::int32_t> e = ds.edges(i);
            b.setElementEdges(i, e.data(), e.size() / 2);
        }
    for (const auto& f : ds.sourceFiles())
        b.addSourceFile(f);
    for (const auto& n : ds.notes())
        b.note(n);
    b.note("test split: stratified " + std::to_string(static_cast<int>(testFraction * 100 + 0.5)) + "% by '" +
           labelSet + "' (seed " + std::to_string(seed) + ")");
    return b.finish();
}

} // namespace setscope::data
