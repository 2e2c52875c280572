// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/catalog/DatasetCatalog.h"

#include "core/data/IdxLoader.h"
#include "core/data/KusnerMat.h"
#include "core/util/SpecOptions.h"
#include "core/data/graph/Sdf.h"
#include "core/data/graph/TuDataset.h"
#include "core/data/mesh/PointCloudLoader.h"
#include "core/data/text/Documents.h"
#include "core/fetch/Catalog.h"
#include "core/fetch/Command.h"
#include "core/job/Job.h"
#include "core/job/JobLoadContext.h"
#include "core/data/Synthetic.h"
#include "core/data/Transform.h"
#include "core/plugin/Registry.h"

#include <cstdint>
#include <cstdlib>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>

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

mesh::PointCloudOptions pointCloudOptions(const std::string& what, const std::string& text)
{
    util::SpecOptions o(what, text);
    mesh::PointCloudOptions p;
    p.sampling.points = static_cast<int>(o.integer("points", p.sampling.points, 1, 1 << 20));
    p.sampling.seed = static_cast<std::uint64_t>(o.integer("seed", 1, 0, INT64_MAX));
    p.sampling.jitter = o.flag("jitter", p.sampling.jitter);
    p.threads = static_cast<int>(o.integer("threads", 0, 0, 1024));
    o.finish();
    return p;
}

Dataset openDocuments(const std::string& name, const std::string& corpusPath, const std::string& defaultVectors,
                      const std::string& optionText, const OpenContext& context);

/// A file or folder, with "?options" for the loaders that take them.
Dataset openPath(const std::string& spec, const plugin::Registry& registry, const OpenContext& context)
{
    std::string path = spec, options;
    std::error_code ec;
    if (const auto q = spec.rfind('?'); q != std::string::npos && q > 0 && !fs::exists(spec, ec)) {
        path = spec.substr(0, q);
        options = spec.substr(q + 1);
    }
    const sdk::LoaderInfo& loader = registry.loaderFor(path);
    DatasetBuilder b(path);
    if (loader.name == "tudataset") {
        loadTuDataset(path, b, GraphOptions::parse(options));
    } else if (loader.name == "sdf") {
        loadSdf(path, b, GraphOptions::parse(options));
    } else if (loader.name == "mesh") {
        mesh::loadMeshFile(path, b, pointCloudOptions(path, options));
    } else if ((loader.name == "corpus-tsv" || loader.name == "corpus-folder") && !options.empty()) {
        // Without options the registered loader runs ($SETSCOPE_WORD_VECTORS or fastText).
        const DocumentSource env = DocumentSource::fromEnvironment();
        const std::string vectors = env.kind == DocumentSource::Kind::File ? env.path : "train";
        std::string name = fs::path(path).stem().string();
        return openDocuments(name.empty() ? std::string("documents") : name, path, vectors, options, context);
    } else if (loader.name == "wmd-mat") {
        util::SpecOptions o(path, options);
        KusnerMatOptions k;
        k.split = static_cast<int>(o.integer("split", k.split, 1, 1000));
        k.appendTermFrequency = o.flag("tf", k.appendTermFrequency);
        o.finish();
        loadKusnerMat(path, b, k);
    } else if (loader.name == "pointcloud-folder") {
        job::JobLoadContext jobContext(context.sink, context.control);
        mesh::loadPointCloudFolder(path, b, pointCloudOptions(path, options), &jobContext);
    } else {
        if (!options.empty())
            throw std::invalid_argument("'" + spec + "': the " + loader.name + " loader takes no options");
        loader.load(path, b);
    }
    return b.finish();
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

/// At most `perClass` documents per class, chosen by a seeded hash of their ids (not the
/// first ones in the file), in corpus order.
Corpus capPerClass(const Corpus& c, std::size_t perClass, std::uint64_t seed)
{
    std::vector<std::size_t> order(c.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::vector<std::uint64_t> key(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
        key[i] = XXH3_64bits_withSeed(c.ids[i].data(), c.ids[i].size(), seed);
    std::stable_sort(order.begin(), order.end(), [&key](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    std::map<std::string, std::size_t> taken;
    std::vector<bool> keep(c.size(), false);
    for (std::size_t i : order)
        if (taken[c.labels[i]]++ < perClass)
            keep[i] = true;
    Corpus out;
    out.sourceFiles = c.sourceFiles;
    out.notes = c.notes;
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (!keep[i])
            continue;
        out.ids.push_back(c.ids[i]);
        out.labels.push_back(c.labels[i]);
        out.texts.push_back(c.texts[i]);
        if (c.hasSplits())
            out.splits.push_back(c.splits[i]);
    }
    out.notes.push_back("balanced subset: at most " + std::to_string(perClass) + " documents per class (" +
                        std::to_string(out.size()) + " of " + std::to_string(c.size()) + ")");
    return out;
}

/// A text corpus (corpus.tsv or a class folder) as documents: options vectors (glove-100d | train | a file),
/// tf, min-count, numbers, stopwords, balanced, test, seed, dim (fastText).
Dataset openDocuments(const std::string& name, const std::string& corpusPath, const std::string& defaultVectors,
                      const std::string& optionText, const OpenContext& context)
{
    util::SpecOptions o(name, optionText);
    const std::string vectors = o.string("vectors", defaultVectors);
    DocumentOptions d;
    d.name = name;
    d.appendTermFrequency = o.flag("tf", false);
    d.minCount = static_cast<int>(o.integer("min-count", 1, 1, 1000000));
    d.tok.numbers = parseNumberMode(o.string("numbers", "drop"));
    d.tok.stopWordFile = o.string("stopwords", "");
    d.testFraction = o.number("test", 0.3, 0.0, 0.95);
    d.splitSeed = static_cast<std::uint64_t>(o.integer("seed", 1, 0, INT64_MAX));
    const auto balanced = static_cast<std::size_t>(o.integer("balanced", 0, 0, INT32_MAX));
    const int ftDim = static_cast<int>(o.integer("dim", 100, 2, 1000));
    const int ftEpochs = static_cast<int>(o.integer("epochs", 5, 1, 1000));
    o.finish();

    if (context.sink)
        context.sink->progress(0, 0, "reading " + corpusPath);
    Corpus corpus = readCorpus(corpusPath);
    if (balanced > 0)
        corpus = capPerClass(corpus, balanced, d.splitSeed);
    if (context.control)
        context.control->checkpoint();

    WordVectors wv = [&] {
        if (vectors == "train" || vectors == "fasttext") {
            FastTextOptions ft;
            ft.dim = ftDim;
            ft.epoch = ftEpochs;
            job::JobLoadContext jobContext(context.sink, context.control);
            return trainWordVectors(tokenizeCorpus(corpus, d), ft, "", &jobContext);
        }
        const std::string path = vectors == "glove-100d" ? (fs::path(fetchedDir("glove-100d")) / "vectors.bin").string()
                                                         : vectors;
        if (context.sink)
            context.sink->progress(0, 0, "reading word vectors " + path);
        return loadWordVectors(path);
    }();
    if (context.control)
        context.control->checkpoint();
    if (context.sink)
        context.sink->progress(0, 0, "building documents");
    DatasetBuilder b(corpusPath);
    buildDocuments(corpus, wv, d, b); // its counts (OOV, dropped documents) arrive as notes
    b.note("word vectors: " + (vectors == "train" || vectors == "fasttext" ? std::string("fastText skip-gram trained on the corpus")
                                                                          : vectors) +
           ", " + std::to_string(wv.size()) + " words of dimension " + std::to_string(wv.dim()));
    return b.finish();
}

/// The glove-100d vectors as a dataset of words (one element each, the word as its text),
/// in the file's order (by frequency); option words=N keeps the first N.
Dataset openWordVectors(const std::string& name, const std::string& optionText, const OpenContext& context)
{
    const std::string path = (fs::path(fetchedDir(name)) / "vectors.bin").string();
    util::SpecOptions o(name, optionText);
    const auto limit = static_cast<std::size_t>(o.integer("words", 0, 0, INT64_MAX));
    o.finish();
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

/// Opens a fetched built-in source by name (with options after a colon).
Dataset openFetched(const std::string& name, const std::string& options, const plugin::Registry& registry,
                    const OpenContext& context)
{
    const fetch::SourceInfo* src = fetch::findSource(name);
    if (src->kind == "documents")
        return openDocuments(name, (fs::path(fetchedDir(name)) / "corpus.tsv").string(), "glove-100d", options, context);
    if (src->kind == "word-vectors")
        return openWordVectors(name, options, context);
    const std::string dir = fetchedDir(name);
    DatasetBuilder b(dir);
    if (name == "bzr") {
        // setscope's own class: ACTIVITY (pIC50-like) >= 7 is "active"; both can be changed.
        std::map<std::string, std::string> kv{{"class", "ACTIVITY"}, {"threshold", "7"}};
        util::SpecOptions given(name, options);
        for (const char* k : {"repr", "rw", "folds", "fold", "seed", "class", "threshold"})
            if (given.has(k))
                kv[k] = given.string(k, "");
        given.finish();
        std::string merged;
        for (const auto& [k, v] : kv)
            merged += (merged.empty() ? "" : ",") + k + "=" + v;
        loadSdf((fs::path(dir) / "bzr.sdf").string(), b, GraphOptions::parse(merged));
    } else if (name == "furniture") {
        job::JobLoadContext jobContext(context.sink, context.control);
        mesh::loadPointCloudFolder(dir, b, pointCloudOptions(name, options), &jobContext);
    } else {
        if (!options.empty())
            throw std::invalid_argument("'" + name + "' takes no options");
        registry.loaderFor(dir).load(dir, b);
    }
    b.setName(name);
    return b.finish();
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
        DatasetBuilder b(dir);
        registry.loaderFor(dir).load(dir, b);
        b.setName("fashion-mnist");
        return b.finish();
    }
    if (spec == "synthetic" || spec.rfind("synthetic:", 0) == 0)
        return makeHierarchicalGaussians(SyntheticSpec::parse(spec.size() > 10 ? spec.substr(10) : std::string()));
    // A fetched built-in source: "NAME" or "NAME:key=value,..." (a path that exists wins).
    {
        const auto [name, options] = util::splitSpec(spec);
        std::error_code ec;
        if (fetch::findSource(name) && !fs::exists(spec, ec))
            return openFetched(name, options, registry, context);
    }
    return openPath(spec, registry, context);
}

} // namespace setscope::catalog
