// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/catalog/Sources.h"

#include "core/catalog/OpenWith.h"
#include "core/data/DerivedDatasets.h"
#include "core/data/Synthetic.h"
#include "core/data/text/WordVectors.h"
#include "core/fetch/Catalog.h"
#include "core/plugin/Registry.h"
#include "core/util/SpecOptions.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace setscope::catalog {

namespace {

/// The folder of a fetched source; a clear error naming the fetch command when it is not there.
std::string fetchedDir(const std::string& name)
{
    if (!fetch::isFetched(name))
        throw sdk::InputError(fetch::sourceDir(name), "",
                              name + " is not fetched yet; run: setscope-cli fetch " + name +
                                  " (or use Fetch in the GUI's dataset panel)");
    return fetch::fetchedLocation(name);
}

BuiltinDataset fetchedRow(const fetch::SourceInfo& src)
{
    BuiltinDataset d;
    d.name = src.name;
    d.description = src.title + " (" + src.origin + "; licence: " + src.licence + ")";
    d.fetchable = true;
    d.sizeNote = src.sizeNote;
    d.howToGet = "setscope-cli fetch " + src.name;
    d.available = fetch::isFetched(src.name);
    d.location = d.available ? fetch::fetchedLocation(src.name) : fetch::sourceDir(src.name);
    return d;
}

/// Word vectors (a source of kind "word-vectors") as a dataset of words: one element each, the
/// word as its text, in the file's order (by frequency); option words=N keeps the first N.
data::Dataset openWords(const std::string& name, const std::string& optionText, const OpenContext& context)
{
    const sdk::OptionValues o = util::resolveSpecOptions(
        {sdk::OptionSpec::integer("words", 0, 0, 9.0e15, "keep the N most frequent words (0: all)")}, optionText, name);
    const auto limit = static_cast<std::size_t>(o.integer("words"));
    const std::string path = (fs::path(fetchedDir(name)) / "vectors.bin").string();
    if (context.sink)
        context.sink->progress(0, 0, "reading word vectors " + path);
    const data::WordVectors wv = data::loadWordVectors(path);
    const std::size_t n = limit ? std::min(limit, wv.size()) : wv.size();
    data::DatasetBuilder b(path);
    b.setName(name);
    b.setDimension(wv.dim());
    b.reserve(n, n);
    b.addSourceFile(path);
    for (std::size_t i = 0; i < n; ++i) {
        b.addItem(wv.vector(i), nullptr, 1, sdk::Split::Train);
        b.setElementText(i, {wv.words()[i]});
    }
    b.note(std::to_string(n) + " of " + std::to_string(wv.size()) + " words, unlabelled");
    return b.finish();
}

/// A fetched source: its entry, read by the loader that accepts it, with the source's option
/// defaults; word vectors as words.
/// A source with an installed copy (fashion-mnist: the Debian package) reads that first and wins
/// over a path of the same name, as generated data does.
NamedSource fetchedSource(const fetch::SourceInfo& src)
{
    NamedSource s;
    s.name = src.name;
    const fetch::InstalledCopy* installed = fetch::installedCopy(src.name);
    s.beforePaths = installed != nullptr;
    s.describe = [src, installed] {
        BuiltinDataset d = fetchedRow(src);
        if (const std::string dir = installed ? installed->dir() : std::string(); !dir.empty()) {
            d.available = true;
            d.location = dir;
        }
        return d;
    };
    s.open = [src, installed](const std::string& options, const plugin::Registry& registry, const OpenContext& context) {
        if (src.kind == "word-vectors")
            return openWords(src.name, options, context);
        std::string dir = installed ? installed->dir() : std::string();
        if (dir.empty() && installed && !fetch::isFetched(src.name))
            throw sdk::InputError(fetch::sourceDir(src.name), "",
                                  src.name + " is not here; run: setscope-cli fetch " + src.name + ", or " + installed->hint);
        if (dir.empty())
            dir = fetchedDir(src.name);
        const std::string path = src.entry.empty() ? dir : (fs::path(dir) / src.entry).string();
        return openWith(registry.loaderFor(path), path, options, util::parseSpecOptions(src.name, src.optionDefaults),
                        src.name, context, src.name);
    };
    return s;
}

/// Hierarchical Gaussian clusters, generated: "synthetic:dim=3,coarse=4,...".
NamedSource syntheticSource()
{
    NamedSource s;
    s.name = "synthetic";
    s.beforePaths = true;
    s.describe = [] {
        BuiltinDataset d;
        d.name = "synthetic";
        d.description = "Hierarchical Gaussian clusters (fine classes nested in coarse ones, as in Weak Metric "
                        "Learning's toy data); options: synthetic:dim=3,coarse=4,fine=2,points=150,set=1";
        d.available = true;
        return d;
    };
    s.open = [](const std::string& options, const plugin::Registry&, const OpenContext&) {
        return data::makeHierarchicalGaussians(data::SyntheticSpec::parse(options));
    };
    return s;
}

/// "SPEC+pointsets" or "SPEC+pointsets=THRESHOLD": images (or square vectors) as point sets.
SpecTransform pointsetsTransform()
{
    return {"+pointsets", "images (or square vectors) as point sets of the pixels above THRESHOLD (default 0)",
            [](const data::Dataset& ds, const std::string& argument, const std::string& spec) {
                float threshold = 0.0f;
                if (!argument.empty()) {
                    std::size_t used = 0;
                    try {
                        threshold = std::stof(argument, &used);
                    } catch (const std::exception&) {
                        used = 0;
                    }
                    if (used == 0 || used != argument.size())
                        throw std::invalid_argument("'" + spec + "': expected SPEC+pointsets or SPEC+pointsets=THRESHOLD");
                }
                return data::imagesAsPointsets(ds, threshold);
            }};
}

} // namespace

std::vector<NamedSource> namedSources()
{
    std::vector<NamedSource> out;
    for (const fetch::SourceInfo& src : fetch::sources())
        out.push_back(fetchedSource(src));
    out.push_back(syntheticSource());
    return out;
}

const std::vector<SpecTransform>& specTransforms()
{
    static const std::vector<SpecTransform> transforms{pointsetsTransform()};
    return transforms;
}

std::string wordVectorsFile(const std::string& name)
{
    const fetch::SourceInfo* src = fetch::findSource(name);
    if (!src || src->kind != "word-vectors")
        return {};
    return (fs::path(fetchedDir(name)) / "vectors.bin").string();
}

} // namespace setscope::catalog
