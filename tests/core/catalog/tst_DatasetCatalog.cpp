// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The catalogue of built-in datasets: fetched sources opened by name with options. The
// "fetched" folders are written by the test (a MANIFEST.json like the fetcher's and the
// files the fetcher would leave), so no network and no fetch is involved.
#include "Builtin.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/fetch/Catalog.h"
#include "core/plugin/Registry.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

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
        builtin::registerBuiltins(m_registry);
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
    }

private:
    QTemporaryDir m_dir;
    plugin::Registry m_registry;
};

QTEST_GUILESS_MAIN(TestDatasetCatalog)
#include "tst_DatasetCatalog.moc"
