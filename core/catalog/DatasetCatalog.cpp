// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/catalog/DatasetCatalog.h"

#include "core/data/IdxLoader.h"
#include "core/data/Synthetic.h"
#include "core/data/Transform.h"
#include "core/data/text/Documents.h"
#include "core/fetch/Catalog.h"
#include "core/job/JobLoadContext.h"
#include "core/plugin/Registry.h"
#include "core/util/SpecOptions.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace fs = std::filesystem;

namespace setscope::catalog {

using namespace data;

std::vector<BuiltinDataset> builtinDatasets()
{
    std::vector<BuiltinDataset> out;
    for (const fetch::SourceInfo& src : fetch::sources()) {
        BuiltinDataset d;
        d.name = src.name;
        d.description = src.title + " (" + src.origin + "; licence: " + src.licence + ")";
        d.fetchable = true;
        d.sizeNote = src.sizeNote;
        d.howToGet = "setscope-cli fetch " + src.name;
        std::error_code ec;
        if (src.name == "fashion-mnist" && looksLikeIdx(data::fashionMnistDir()) && fs::is_directory(data::fashionMnistDir(), ec)) {
            d.available = true; // the Debian package is installed
            d.location = data::fashionMnistDir();
        } else {
            d.available = fetch::isFetched(src.name);
            d.location = d.available ? fetch::fetchedLocation(src.name) : fetch::sourceDir(src.name);
        }
        out.push_back(d);
    }
    {
        BuiltinDataset d;
        d.name = "synthetic";
        d.description = "Hierarchical Gaussian clusters (fine classes nested in coarse ones, as in Weak Metric "
                        "Learning's toy data); options: synthetic:dim=3,coarse=4,fine=2,points=150,set=1";
        d.available = true;
        out.push_back(d);
    }
    return out;
}

namespace {

/// Reads `path` with `loader`: `optionText` ("key=value,...") is resolved against the
/// options the loader declares, with `defaults` in place of the loader's own where given.
/// `what` names the input in messages (the path, or the built-in source's name); `name`, when
/// given, replaces the name the loader gave the dataset.
Dataset openWith(const sdk::LoaderInfo& loader, const std::string& path, const std::string& optionText,
                 const std::map<std::string, std::string>& defaults, const std::string& what, const OpenContext& context,
                 const std::string& name = {})
{
    const std::string owner = what + ": loader " + loader.name;
    const sdk::OptionValues values =
        util::resolveSpecOptions(util::withDefaults(loader.options, defaults, owner), optionText, owner);
    DatasetBuilder b(path);
    job::JobLoadContext jobContext(context.sink, context.control);
    try {
        loader.load(path, values, b, jobContext);
    } catch (const std::invalid_argument& e) {
        // A loader's own checks of its options (fold < folds, threshold a number) name it too.
        throw std::invalid_argument(owner + ": " + e.what());
    }
    if (!name.empty())
        b.setName(name);
    return b.finish();
}

/// A file or folder, with "?options" for its loader.
Dataset openPath(const std::string& spec, const plugin::Registry& registry, const OpenContext& context)
{
    std::string path = spec, options;
    std::error_code ec;
    if (const auto q = spec.rfind('?'); q != std::string::npos && q > 0 && !fs::exists(spec, ec)) {
        path = spec.substr(0, q);
        options = spec.substr(q + 1);
    }
    return openWith(registry.loaderFor(path), path, options, {}, path, context);
}

/// The folder of a fetched built-in source; a clear error naming the fetch command when
/// it is not there.
std::string fetchedDir(const std::string& name)
{
    if (!fetch::isFetched(name))
        throw sdk::InputError(fetch::sourceDir(name), "",
                              name + " is not fetched yet; run: setscope-cli fetch " + name +
                                  " (or use Fetch in the GUI's dataset panel)");
    return fetch::fetchedLocation(name);
}

/// The glove-100d vectors as a dataset of words (one element each, the word as its text),
/// in the file's order (by frequency); option words=N keeps the first N.
Dataset openWordVectors(const std::string& name, const std::string& optionText, const OpenContext& context)
{
    const sdk::OptionValues o = util::resolveSpecOptions(
        {sdk::OptionSpec::integer("words", 0, 0, 9.0e15, "keep the N most frequent words (0: all)")}, optionText, name);
    const auto limit = static_cast<std::size_t>(o.integer("words"));
    const std::string path = (fs::path(fetchedDir(name)) / "vectors.bin").string();
    if (context.sink)
        context.sink->progress(0, 0, "reading word vectors " + path);
    const WordVectors wv = loadWordVectors(path);
    const std::size_t n = limit ? std::min(limit, wv.size()) : wv.size();
    DatasetBuilder b(path);
    b.setName(name);
    b.setDimension(wv.dim());
    b.reserve(n, n);
    b.addSourceFile(path);
    for (std::size_t i = 0; i < n; ++i) {
        b.addItem(wv.vector(i), nullptr, 1, Split::Train);
        b.setElementText(i, {wv.words()[i]});
    }
    b.note(std::to_string(n) + " of " + std::to_string(wv.size()) + " words, unlabelled");
    return b.finish();
}

/// Opens a fetched built-in source by name (with options after a colon): its entry, read by
/// the loader that accepts it, with the source's option defaults.
Dataset openFetched(const fetch::SourceInfo& src, const std::string& options, const plugin::Registry& registry,
                    const OpenContext& context)
{
    if (src.kind == "word-vectors")
        return openWordVectors(src.name, options, context);
    const std::string dir = fetchedDir(src.name);
    const std::string path = src.entry.empty() ? dir : (fs::path(dir) / src.entry).string();
    return openWith(registry.loaderFor(path), path, options, util::parseSpecOptions(src.name, src.optionDefaults),
                    src.name, context, src.name);
}

} // namespace

Dataset openDataset(const std::string& spec, const plugin::Registry& registry, const OpenContext& context)
{
    // "SPEC+pointsets" or "SPEC+pointsets=0.2": images (or square vectors) as point sets.
    if (const auto plus = spec.rfind("+pointsets"); plus != std::string::npos && plus > 0) {
        const std::string rest = spec.substr(plus + 10);
        float threshold = 0.0f;
        if (!rest.empty()) {
            std::size_t used = 0;
            try {
                if (rest[0] != '=')
                    throw std::invalid_argument("");
                threshold = std::stof(rest.substr(1), &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used + 1 != rest.size())
                throw std::invalid_argument("'" + spec + "': expected SPEC+pointsets or SPEC+pointsets=THRESHOLD");
        }
        return imagesAsPointsets(openDataset(spec.substr(0, plus), registry, context), threshold);
    }
    if (spec == "fashion-mnist") {
        std::string dir = data::fashionMnistDir();
        std::error_code ec;
        if ((!fs::is_directory(dir, ec) || !looksLikeIdx(dir)) && fetch::isFetched("fashion-mnist"))
            dir = fetch::fetchedLocation("fashion-mnist");
        if (!fs::is_directory(dir, ec) || !looksLikeIdx(dir))
            throw sdk::InputError(dir, "", "Fashion-MNIST is not here; run: setscope-cli fetch fashion-mnist, or "
                                           "apt-get install dataset-fashion-mnist (or set SETSCOPE_FASHION_MNIST_DIR "
                                           "to a folder with its IDX files)");
        return openWith(registry.loaderFor(dir), dir, "", {}, spec, context, spec);
    }
    if (spec == "synthetic" || spec.rfind("synthetic:", 0) == 0)
        return makeHierarchicalGaussians(SyntheticSpec::parse(spec.size() > 10 ? spec.substr(10) : std::string()));
    // A fetched built-in source: "NAME" or "NAME:key=value,..." (a path that exists wins).
    {
        const auto [name, options] = util::splitSpec(spec);
        std::error_code ec;
        if (const fetch::SourceInfo* src = fetch::findSource(name); src && !fs::exists(spec, ec))
            return openFetched(*src, options, registry, context);
    }
    return openPath(spec, registry, context);
}

DocumentSource wordVectorSource(const std::string& spec)
{
    if (spec.empty())
        return DocumentSource::fromEnvironment();
    if (spec == "glove-100d") {
        DocumentSource s;
        s.kind = DocumentSource::Kind::File;
        s.path = (fs::path(fetchedDir(spec)) / "vectors.bin").string();
        return s;
    }
    return DocumentSource::parse(spec);
}

} // namespace setscope::catalog
