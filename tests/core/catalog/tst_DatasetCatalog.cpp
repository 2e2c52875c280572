// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The catalogue of built-in datasets: fetched sources opened by name with options. The
// "fetched" folders are written by the test (a MANIFEST.json like the fetcher's and the
// files the fetcher would leave), so no network and no fetch is involved.
#include "core/builtins/Builtins.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/catalog/Sources.h"
#include "core/fetch/Catalog.h"
#include "core/plugin/Registry.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
using namespace setscope;

namespace {

void writeFile(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

/// Marks dataRoot()/name as a complete fetch of the current format version.
void markFetched(const std::string& name)
{
    const fetch::SourceInfo* s = fetch::findSource(name);
    QVERIFY(s);
    nlohmann::json m;
    m["source"] = name;
    m["formatVersion"] = s->formatVersion;
    writeFile(fs::path(fetch::sourceDir(name)) / "MANIFEST.json", m.dump());
}

/// word2vec binary (the glove-100d fetcher's output format).
std::string word2vec(const std::vector<std::pair<std::string, std::vector<float>>>& words)
{
    std::string out = std::to_string(words.size()) + " " + std::to_string(words[0].second.size()) + "\n";
    for (const auto& [w, v] : words) {
        out += w + " ";
        out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
        out += "\n";
    }
    return out;
}

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

class TestDatasetCatalog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("SETSCOPE_DATA_DIR", m_dir.filePath("data").toUtf8());
        qputenv("SETSCOPE_FASHION_MNIST_DIR", m_dir.filePath("no-fashion-mnist").toUtf8());
        qputenv("XDG_CACHE_HOME", m_dir.filePath("cache").toUtf8());
        builtins::registerBuiltins(m_registry);
    }

    void listsEveryFetchableSource()
    {
        std::set<std::string> names;
        for (const auto& d : catalog::builtinDatasets()) {
            names.insert(d.name);
            if (d.name == "synthetic") {
                QVERIFY(d.available && !d.fetchable);
                continue;
            }
            QVERIFY2(d.fetchable, d.name.c_str());
            QVERIFY2(!d.available, d.name.c_str()); // nothing fetched into the empty data root
            QCOMPARE(d.howToGet, "setscope-cli fetch " + d.name);
            QVERIFY(!d.sizeNote.empty());
        }
        for (const char* n : {"fashion-mnist", "digits", "glove-100d", "furniture", "bzr", "wordnet-glosses", "brown",
                              "debian-descriptions", "synthetic"})
            QVERIFY2(names.count(n), n);
    }

    // The lists and openDataset() walk the same tables (core/catalog/Sources.cpp): every named
    // source is listed once, in order; each opens by its name (here: not fetched, so its error
    // names it, or synthetic, which is generated).
    void namedSourcesAreWhatIsListed()
    {
        std::vector<std::string> listed, named;
        for (const auto& d : catalog::builtinDatasets())
            listed.push_back(d.name);
        for (const auto& s : catalog::namedSources())
            named.push_back(s.name);
        QCOMPARE(listed, named);
        QCOMPARE(std::set<std::string>(named.begin(), named.end()).size(), named.size());
        QCOMPARE(named.back(), std::string("synthetic"));
        for (const std::string& n : named) {
            if (n == "synthetic") {
                QCOMPARE(catalog::openDataset(n + ":dim=2,points=3", m_registry).dim(), 2);
                continue;
            }
            const std::string e = errorOf([&] { catalog::openDataset(n, m_registry); });
            QVERIFY2(e.find("setscope-cli fetch " + n) != std::string::npos, e.c_str());
        }
        for (const auto& t : catalog::specTransforms())
            QVERIFY2(t.suffix.size() > 1 && t.suffix[0] == '+', t.suffix.c_str());
    }

    void notFetchedSaysHowToFetch()
    {
        const std::string e = errorOf([this] { catalog::openDataset("brown", m_registry); });
        QVERIFY2(e.find("brown is not fetched yet; run: setscope-cli fetch brown") != std::string::npos, e.c_str());
        const std::string f = errorOf([this] { catalog::openDataset("fashion-mnist", m_registry); });
        QVERIFY2(f.find("setscope-cli fetch fashion-mnist") != std::string::npos, f.c_str());
    }

    void documentsWithWordVectorsAndOptions()
    {
        // glove-100d: four 2-d words; brown: a corpus of three documents in two classes.
        writeFile(fs::path(fetch::sourceDir("glove-100d")) / "vectors.bin",
                  word2vec({{"cat", {1, 0}}, {"dog", {0, 1}}, {"sat", {1, 1}}, {"ran", {2, 0}}}));
        markFetched("glove-100d");
        writeFile(fs::path(fetch::sourceDir("brown")) / "corpus.tsv",
                  "# setscope corpus brown (test)\n"
                  "pets\tThe cat sat, the cat sat; the dog!\n"
                  "pets\tdog ran zebra\n"
                  "verbs\tsat ran ran ran\n");
        markFetched("brown");

        const data::Dataset ds = catalog::openDataset("brown", m_registry);
        QCOMPARE(ds.name(), std::string("brown"));
        QCOMPARE(ds.size(), std::size_t(3));
        QCOMPARE(ds.dim(), 2);
        // Document 0: cat x2, sat x2, dog x1 ("the" is a stop word): nBOW 2/5, 2/5, 1/5.
        const data::ItemView d0 = ds.item(0);
        QCOMPARE(d0.count, std::size_t(3));
        std::map<std::string, float> w;
        for (std::size_t e = 0; e < d0.count; ++e)
            w[ds.elementText(static_cast<std::size_t>(ds.offsets()[0]) + e)] = d0.weights[e];
        QCOMPARE(w.size(), std::size_t(3));
        QVERIFY(std::abs(w["cat"] - 0.4f) < 1e-6f && std::abs(w["sat"] - 0.4f) < 1e-6f && std::abs(w["dog"] - 0.2f) < 1e-6f);
        // "zebra" has no vector: counted in a note, not silently dropped.
        bool oovNoted = false;
        for (const auto& n : ds.notes())
            oovNoted |= n.find("out of vocabulary") != std::string::npos && n.find("zebra") != std::string::npos;
        QVERIFY(oovNoted);
        QCOMPARE(ds.requireLabelSet("fine").classNames, (std::vector<std::string>{"pets", "verbs"}));

        // tf=1 appends the normalised frequency (the papers' 300 + 1).
        const data::Dataset tf = catalog::openDataset("brown:tf=1", m_registry);
        QCOMPARE(tf.dim(), 3);
        for (std::size_t e = 0; e < tf.item(0).count; ++e)
            QCOMPARE(tf.item(0).element(e)[2], tf.item(0).weights[e]);

        // balanced=1 keeps one document per class.
        QCOMPARE(catalog::openDataset("brown:balanced=1", m_registry).size(), std::size_t(2));

        // vectors=FILE takes any word-vector file instead of glove-100d.
        const fs::path own = fs::path(m_dir.path().toStdString()) / "own.txt";
        writeFile(own, "cat 5 5 5\ndog 1 2 3\nsat 0 0 1\nran 1 0 0\n");
        QCOMPARE(catalog::openDataset("brown:vectors=" + own.string(), m_registry).dim(), 3);
        // The same options on a corpus file of one's own: PATH?key=value.
        const std::string corpus = fs::path(fetch::sourceDir("brown")) / "corpus.tsv";
        const data::Dataset mine = catalog::openDataset(corpus + "?vectors=" + own.string() + ",tf=1", m_registry);
        QCOMPARE(mine.dim(), 4);
        QCOMPARE(mine.size(), std::size_t(3));

        const std::string e = errorOf([this] { catalog::openDataset("brown:vectorz=x", m_registry); });
        QCOMPARE(e, std::string("brown: loader corpus-tsv has no option 'vectorz' (it has: vectors, tf, min-count, "
                                "numbers, stopwords, balanced, test, seed, dim, epochs)"));
    }

    void corpusOptionsReachTheLoader()
    {
        // (brown and glove-100d fetched by documentsWithWordVectorsAndOptions) Tokens after
        // stop words: pets "cat sat cat sat dog", pets "dog ran zebra", verbs "sat ran ran ran";
        // in the corpus: cat 2, sat 3, dog 2, ran 4, zebra 1 (no vector).
        auto sizes = [](const data::Dataset& ds) {
            std::vector<std::size_t> n;
            for (std::size_t i = 0; i < ds.size(); ++i)
                n.push_back(ds.setSize(i));
            return n;
        };
        QCOMPARE(sizes(catalog::openDataset("brown", m_registry)), (std::vector<std::size_t>{3, 2, 2}));
        // min-count=3 keeps sat and ran only.
        QCOMPARE(sizes(catalog::openDataset("brown:min-count=3", m_registry)), (std::vector<std::size_t>{1, 1, 2}));
        // A stop-word file of its own replaces the English list: "the" has no vector, cat goes.
        const fs::path stop = fs::path(m_dir.path().toStdString()) / "stop.txt";
        writeFile(stop, "cat\n");
        QCOMPARE(sizes(catalog::openDataset("brown:stopwords=" + stop.string(), m_registry)),
                 (std::vector<std::size_t>{2, 2, 2}));
        // The corpus has no split column: per class round(n x test) documents are test, at least one stays train.
        auto testCount = [](const data::Dataset& ds) {
            std::size_t n = 0;
            for (std::size_t i = 0; i < ds.size(); ++i)
                n += ds.split(i) == sdk::Split::Test;
            return n;
        };
        QCOMPARE(testCount(catalog::openDataset("brown", m_registry)), std::size_t(1)); // test=0.3: pets 2 x 0.3 -> 1
        QCOMPARE(testCount(catalog::openDataset("brown:test=0", m_registry)), std::size_t(0));
        // Out of range or not one of the choices: refused, naming the source, the loader and what is allowed.
        QCOMPARE(errorOf([this] { catalog::openDataset("brown:test=0.96", m_registry); }),
                 std::string("brown: loader corpus-tsv: option test=0.96: outside [0, 0.95]"));
        QCOMPARE(errorOf([this] { catalog::openDataset("brown:dim=1", m_registry); }),
                 std::string("brown: loader corpus-tsv: option dim=1: outside [2, 1000]"));
        QCOMPARE(errorOf([this] { catalog::openDataset("brown:numbers=some", m_registry); }),
                 std::string("brown: loader corpus-tsv: option numbers=some: not one of drop|keep|hash"));
        QCOMPARE(errorOf([this] { catalog::openDataset("brown:balanced=-1", m_registry); }),
                 std::string("brown: loader corpus-tsv: option balanced=-1: outside [0, 2147483647]"));
    }

    void whichWordVectorsACorpusUses()
    {
        // A corpus file of one's own: without vectors= the loader takes $SETSCOPE_WORD_VECTORS,
        // with or without other options; a built-in corpus takes glove-100d.
        const std::string corpus = fs::path(fetch::sourceDir("brown")) / "corpus.tsv";
        const fs::path own = fs::path(m_dir.path().toStdString()) / "own3.txt";
        writeFile(own, "cat 5 5 5\ndog 1 2 3\nsat 0 0 1\nran 1 0 0\n");
        qputenv("SETSCOPE_WORD_VECTORS", QByteArray::fromStdString("file " + own.string()));
        QCOMPARE(catalog::openDataset(corpus, m_registry).dim(), 3);
        QCOMPARE(catalog::openDataset(corpus + "?tf=1", m_registry).dim(), 4);
        QCOMPARE(catalog::openDataset("brown", m_registry).dim(), 2); // glove-100d's, whatever the environment says
        QCOMPARE(catalog::openDataset(corpus + "?vectors=glove-100d", m_registry).dim(), 2);
        qunsetenv("SETSCOPE_WORD_VECTORS");
        // Without either: fastText trained on the corpus, dim=100 unless given.
        QCOMPARE(catalog::openDataset(corpus + "?epochs=1", m_registry).dim(), 100);
        QCOMPARE(catalog::openDataset(corpus + "?vectors=train,dim=8,epochs=1", m_registry).dim(), 8);
        QCOMPARE(catalog::openDataset("brown:vectors=train,dim=4,epochs=1", m_registry).dim(), 4);
    }

    void wordVectorsAsWords()
    {
        // (glove-100d fetched by the previous function)
        const data::Dataset all = catalog::openDataset("glove-100d", m_registry);
        QCOMPARE(all.size(), std::size_t(4));
        QVERIFY(all.isVectorDataset());
        QCOMPARE(all.elementText(3), std::string("ran"));
        QCOMPARE(all.item(3).element(0)[0], 2.0f);
        QCOMPARE(catalog::openDataset("glove-100d:words=2", m_registry).size(), std::size_t(2));
    }

    void bzrHasSetscopesThresholdAndTakesOthers()
    {
        // Three one-atom molecules with activities 6.5, 7.0 and 8.
        std::string sdf;
        for (const char* act : {"6.5", "7.0", "8"}) {
            sdf += "mol\n  test\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"
                   "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n"
                   "> <ACTIVITY>\n" + std::string(act) + "\n\n$$$$\n";
        }
        writeFile(fs::path(fetch::sourceDir("bzr")) / "bzr.sdf", sdf);
        markFetched("bzr");
        auto activeCount = [](const data::Dataset& ds) {
            const data::LabelSet& fine = ds.requireLabelSet("fine");
            std::size_t n = 0;
            for (std::size_t i = 0; i < ds.size(); ++i)
                n += fine.classNames[static_cast<std::size_t>(fine.labels[i])].find(">=") != std::string::npos;
            return n;
        };
        const data::Dataset ds = catalog::openDataset("bzr", m_registry);
        QCOMPARE(ds.size(), std::size_t(3));
        QCOMPARE(activeCount(ds), std::size_t(2)); // 7.0 and 8 are >= 7
        QCOMPARE(activeCount(catalog::openDataset("bzr:threshold=7.5", m_registry)), std::size_t(1));
        QCOMPARE(catalog::openDataset("bzr:folds=3,fold=2", m_registry).requireLabelSet("cv-fold").numClasses(), 3);

        // bzr's class and threshold are the source's defaults, not the sdf loader's: the same
        // file opened by its path is unlabelled until told.
        const std::string path = fs::path(fetch::sourceDir("bzr")) / "bzr.sdf";
        const data::LabelSet* fine = catalog::openDataset(path, m_registry).labelSet("fine");
        QVERIFY(!fine || std::all_of(fine->labels.begin(), fine->labels.end(), [](std::int32_t l) { return l < 0; }));
        QCOMPARE(activeCount(catalog::openDataset(path + "?class=ACTIVITY,threshold=7.5", m_registry)), std::size_t(1));
        // Without a threshold the value itself is the class: three values, three classes.
        QCOMPARE(catalog::openDataset("bzr:threshold=", m_registry).requireLabelSet("fine").numClasses(), 3);
        QCOMPARE(errorOf([this] { catalog::openDataset("bzr:fold=10", m_registry); }),
                 std::string("bzr: loader sdf: graph option fold=10: expected 0..9 (folds=10)"));
        QCOMPARE(errorOf([this] { catalog::openDataset("bzr:threshold=high", m_registry); }),
                 std::string("bzr: loader sdf: graph option threshold=high: expected a number"));
        QCOMPARE(errorOf([this] { catalog::openDataset("bzr:rw=-1", m_registry); }),
                 std::string("bzr: loader sdf: option rw=-1: outside [0, 64]"));
    }

    void loadersWithoutOptionsRefuseThem()
    {
        const fs::path csv = fs::path(m_dir.path().toStdString()) / "table.csv";
        writeFile(csv, "a,b,label\n1,2,x\n3,4,y\n");
        QCOMPARE(catalog::openDataset(csv.string(), m_registry).size(), std::size_t(2));
        QCOMPARE(errorOf([&] { catalog::openDataset(csv.string() + "?header=0", m_registry); }),
                 csv.string() + ": loader csv has no option 'header' (it has none)");
        // A path with '?' in its name that exists is a path, not options.
        const fs::path odd = fs::path(m_dir.path().toStdString()) / "odd?x=1.csv";
        writeFile(odd, "a,label\n1,x\n");
        QCOMPARE(catalog::openDataset(odd.string(), m_registry).size(), std::size_t(1));
    }

private:
    QTemporaryDir m_dir;
    plugin::Registry m_registry;
};

QTEST_GUILESS_MAIN(TestDatasetCatalog)
#include "tst_DatasetCatalog.moc"
