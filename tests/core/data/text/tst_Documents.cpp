// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/builtins/Builtins.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/data/text/Documents.h"
#include "core/plugin/Registry.h"

#include <setscope/sdk/Errors.h>

#include <fasttext/fasttext.h>

#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace setscope::data;
namespace catalog = setscope::catalog;
using setscope::sdk::InputError;
using setscope::sdk::Split;

namespace fs = std::filesystem;

namespace {

// 2-d vectors chosen by hand so that every element can be recognised.
WordVectors table()
{
    return WordVectors::fromData({"cat", "dog", "mat", "sun", "rain"}, {1, 0, 0, 1, 2, 2, 3, 3, -1, 4}, 2);
}

Corpus corpusOf(std::vector<std::pair<std::string, std::string>> docs)
{
    Corpus c;
    for (std::size_t i = 0; i < docs.size(); ++i) {
        c.ids.push_back("doc" + std::to_string(i));
        c.labels.push_back(docs[i].first);
        c.texts.push_back(docs[i].second);
    }
    c.sourceFiles.push_back("/nowhere/test.tsv");
    return c;
}

bool hasNote(const Dataset& ds, const QString& part)
{
    for (const auto& n : ds.notes())
        if (QString::fromStdString(n).contains(part))
            return true;
    return false;
}

QString notes(const Dataset& ds)
{
    QString s;
    for (const auto& n : ds.notes())
        s += QString::fromStdString(n) + " | ";
    return s;
}

std::vector<std::string> elementWords(const Dataset& ds, std::size_t item)
{
    std::vector<std::string> out;
    for (auto e = ds.offsets()[item]; e < ds.offsets()[item + 1]; ++e)
        out.push_back(ds.elementText(static_cast<std::size_t>(e)));
    return out;
}

} // namespace

class TestDocuments : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void nbowWeights();
    void termFrequencyFeature();
    void oovCounted();
    void emptyDocumentsDropped();
    void allEmptyIsAnError();
    void labelsSortedAndDeterministic();
    void minCount();
    void splitsFromCorpus();
    void stratifiedSplitCounts();
    void stratifiedSplitDeterministic();
    void subwordVectorsForOov();
    void loadWithTrainedFastText();
    void sourceSpec();
    void builtinLoaderUsesEnvironment();

private:
    QTemporaryDir m_dir;
    fs::path root() const { return m_dir.path().toStdString(); }
};

void TestDocuments::nbowWeights()
{
    // "the", "and" are stop words; "cat" twice, "dog" once: nBOW = 2/3, 1/3.
    const Corpus c = corpusOf({{"pets", "The cat, the cat and the dog."}, {"weather", "Sun sun sun rain"}});
    DatasetBuilder b;
    const DocumentStats st = buildDocuments(c, table(), {}, b);
    const Dataset ds = b.finish();
    QCOMPARE(ds.size(), std::size_t(2));
    QCOMPARE(ds.dim(), 2);
    QCOMPARE(elementWords(ds, 0), (std::vector<std::string>{"cat", "dog"}));
    const ItemView a = ds.item(0);
    QCOMPARE(a.count, std::size_t(2));
    QCOMPARE(a.weights[0], 2.0f / 3.0f);
    QCOMPARE(a.weights[1], 1.0f / 3.0f);
    QCOMPARE(a.values[0], 1.0f); // cat = (1, 0)
    QCOMPARE(a.values[1], 0.0f);
    QCOMPARE(a.values[2], 0.0f); // dog = (0, 1)
    QCOMPARE(a.values[3], 1.0f);
    const ItemView w = ds.item(1);
    QCOMPARE(elementWords(ds, 1), (std::vector<std::string>{"sun", "rain"}));
    QCOMPARE(w.weights[0], 0.75f);
    QCOMPARE(w.weights[1], 0.25f);
    QCOMPARE(w.values[2], -1.0f);
    QCOMPARE(st.tokens, std::size_t(7));
    QCOMPARE(st.inVocabTokens, std::size_t(7));
    QCOMPARE(st.vocabulary, std::size_t(4));
    QCOMPARE(st.minSetSize, std::size_t(2));
    QCOMPARE(st.maxSetSize, std::size_t(2));
    QVERIFY(ds.hasElementText());
}

void TestDocuments::termFrequencyFeature()
{
    const Corpus c = corpusOf({{"pets", "cat cat dog mat"}});
    DocumentOptions o;
    o.appendTermFrequency = true;
    o.testFraction = 0.0;
    DatasetBuilder b;
    const DocumentStats st = buildDocuments(c, table(), o, b);
    const Dataset ds = b.finish();
    QCOMPARE(ds.dim(), 3); // D + 1, the papers' 300 + 1
    QCOMPARE(st.dim, 3);
    const ItemView it = ds.item(0);
    const float expected[3][3] = {{1, 0, 0.5f}, {0, 1, 0.25f}, {2, 2, 0.25f}};
    for (int e = 0; e < 3; ++e)
        for (int k = 0; k < 3; ++k)
            QCOMPARE(it.element(std::size_t(e))[std::size_t(k)], expected[e][k]);
    QCOMPARE(it.weights[0], 0.5f);
}

void TestDocuments::oovCounted()
{
    // zebra x2 and yak are not in the table: 3 OOV tokens of 2 types, reported with examples.
    const Corpus c = corpusOf({{"pets", "cat zebra zebra"}, {"pets", "dog yak"}});
    DatasetBuilder b;
    const DocumentStats st = buildDocuments(c, table(), {}, b);
    const Dataset ds = b.finish();
    QCOMPARE(st.oovTokens, std::size_t(3));
    QCOMPARE(st.oovTypes, std::size_t(2));
    QCOMPARE(st.inVocabTokens, std::size_t(2));
    QCOMPARE(st.oovExamples, (std::vector<std::string>{"zebra (2)", "yak (1)"}));
    QCOMPARE(ds.item(0).weights[0], 1.0f); // the OOV words do not count in the nBOW
    QVERIFY2(hasNote(ds, "out of vocabulary: 3 of 5 tokens (60.0%), 2 word types"), qPrintable(notes(ds)));
    QVERIFY2(hasNote(ds, "zebra (2), yak (1)"), qPrintable(notes(ds)));
}

void TestDocuments::emptyDocumentsDropped()
{
    const Corpus c = corpusOf({{"a", "cat"}, {"b", "the and of"}, {"a", ""}, {"b", "zebra"}, {"b", "dog"}});
    DatasetBuilder b;
    const DocumentStats st = buildDocuments(c, table(), {}, b);
    const Dataset ds = b.finish();
    QCOMPARE(ds.size(), std::size_t(2));
    QCOMPARE(st.droppedEmpty, std::size_t(3));
    QCOMPARE(st.droppedIds, (std::vector<std::string>{"doc1", "doc2", "doc3"}));
    QVERIFY2(hasNote(ds, "3 documents had no word with a vector and were dropped (first: doc1, doc2, doc3)"),
             qPrintable(notes(ds)));
    QCOMPARE(elementWords(ds, 1), std::vector<std::string>{"dog"});
    QCOMPARE(ds.requireLabelSet("fine").labels, (std::vector<std::int32_t>{0, 1}));
}

void TestDocuments::allEmptyIsAnError()
{
    const Corpus c = corpusOf({{"a", "the"}, {"b", "zebra 123"}});
    DatasetBuilder b;
    try {
        buildDocuments(c, table(), {}, b);
        QFAIL("no error");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains("no document has a word with a vector"), e.what());
        QVERIFY2(QString::fromStdString(e.what()).contains("zebra (1)"), e.what());
    }
}

void TestDocuments::labelsSortedAndDeterministic()
{
    const Corpus c = corpusOf({{"zoo", "cat"}, {"art", "dog"}, {"Mid", "sun"}, {"zoo", "mat"}});
    DatasetBuilder b;
    buildDocuments(c, table(), {}, b);
    const Dataset ds = b.finish();
    const LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames, (std::vector<std::string>{"Mid", "art", "zoo"})); // bytewise
    QCOMPARE(fine.labels, (std::vector<std::int32_t>{2, 1, 0, 2}));
    DatasetBuilder b2;
    buildDocuments(c, table(), {}, b2);
    QCOMPARE(b2.finish().contentHash(), ds.contentHash());
}

void TestDocuments::minCount()
{
    // In the whole corpus: cat 3, dog 2, mat 1. minCount 2 removes mat (1 token, 1 type).
    const Corpus c = corpusOf({{"a", "cat cat mat"}, {"a", "cat dog dog"}});
    DocumentOptions o;
    o.minCount = 2;
    DatasetBuilder b;
    const DocumentStats st = buildDocuments(c, table(), o, b);
    const Dataset ds = b.finish();
    QCOMPARE(st.belowMinCountTokens, std::size_t(1));
    QCOMPARE(st.belowMinCountTypes, std::size_t(1));
    QCOMPARE(elementWords(ds, 0), std::vector<std::string>{"cat"});
    QCOMPARE(ds.item(0).weights[0], 1.0f);
    QVERIFY(hasNote(ds, "removed 1 tokens of 1 rare word types"));
    QCOMPARE(tokenizeCorpus(c, o), (std::vector<std::vector<std::string>>{{"cat", "cat"}, {"cat", "dog", "dog"}}));
}

void TestDocuments::splitsFromCorpus()
{
    Corpus c = corpusOf({{"a", "cat"}, {"a", "zebra"}, {"b", "dog"}});
    c.splits = {Split::Test, Split::Train, Split::Val};
    DatasetBuilder b;
    buildDocuments(c, table(), {}, b);
    const Dataset ds = b.finish();
    // The dropped document's split goes with it.
    QCOMPARE(ds.splits(), (std::vector<Split>{Split::Test, Split::Val}));
}

void TestDocuments::stratifiedSplitCounts()
{
    std::vector<std::int32_t> labels(10, 0);
    labels.insert(labels.end(), 3, 1);
    labels.push_back(2);
    const auto s = stratifiedSplit(labels, 0.3, 7);
    auto tests = [&](std::int32_t c) {
        int n = 0;
        for (std::size_t i = 0; i < labels.size(); ++i)
            n += labels[i] == c && s[i] == Split::Test;
        return n;
    };
    QCOMPARE(tests(0), 3); // round(10 * 0.3)
    QCOMPARE(tests(1), 1); // round(0.9)
    QCOMPARE(tests(2), 0); // a single item stays in train
    std::vector<std::int32_t> two{5, 5};
    const auto s2 = stratifiedSplit(two, 0.9, 1);
    QCOMPARE(int(std::count(s2.begin(), s2.end(), Split::Test)), 1); // at least one stays in train
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stratifiedSplit(two, 1.0, 1));
}

void TestDocuments::stratifiedSplitDeterministic()
{
    std::vector<std::int32_t> labels;
    for (int i = 0; i < 200; ++i)
        labels.push_back(i % 4);
    const auto a = stratifiedSplit(labels, 0.3, 42);
    QCOMPARE(stratifiedSplit(labels, 0.3, 42), a);
    QVERIFY(stratifiedSplit(labels, 0.3, 43) != a);
    QCOMPARE(int(std::count(a.begin(), a.end(), Split::Test)), 60);
}

void TestDocuments::subwordVectorsForOov()
{
    const fs::path text = root() / "ft.txt";
    {
        std::ofstream f(text);
        for (int r = 0; r < 30; ++r)
            f << "cat cats catty dog dogs sun rain\n";
    }
    fasttext::Args a;
    a.input = text.string();
    a.model = fasttext::model_name::sg;
    a.dim = 6;
    a.epoch = 1;
    a.minn = 2;
    a.maxn = 4;
    a.bucket = 5000;
    // libfasttext 0.9.2 initialises only thread/10 of the input matrix (DenseMatrix::uniform);
    // 10 threads give every n-gram bucket a random start, so OOV vectors are not zero.
    a.thread = 10;
    a.verbose = 0;
    fasttext::FastText ft;
    ft.train(a);
    const fs::path model = root() / "sub.bin";
    ft.saveModel(model.string());
    WordVectorOptions wo;
    wo.cacheDir = (root() / "cache").string();
    const WordVectors wv = loadWordVectors(model.string(), wo);

    const Corpus c = corpusOf({{"a", "cat catz catz"}, {"b", "dog"}});
    DatasetBuilder b;
    const DocumentStats st = buildDocuments(c, wv, {}, b);
    const Dataset ds = b.finish();
    QVERIFY(wv.hasSubwords());
    QVERIFY(!wv.find("catz"));
    QCOMPARE(st.subwordTokens, std::size_t(2));
    QCOMPARE(st.subwordTypes, std::size_t(1));
    QCOMPARE(st.oovTokens, std::size_t(0));
    QCOMPARE(elementWords(ds, 0), (std::vector<std::string>{"cat", "catz"}));
    QCOMPARE(ds.item(0).weights[1], 2.0f / 3.0f);
    fasttext::Vector v(6);
    ft.getWordVector(v, "catz");
    for (int k = 0; k < 6; ++k)
        QCOMPARE(ds.item(0).element(1)[std::size_t(k)], v[k]);
    QVERIFY2(hasNote(ds, "OOV with subword vector: 2 tokens of 1 word types"), qPrintable(notes(ds)));

    DocumentOptions off;
    off.useSubwordVectors = false;
    DatasetBuilder b2;
    QCOMPARE(buildDocuments(c, wv, off, b2).oovTokens, std::size_t(2));
}

void TestDocuments::loadWithTrainedFastText()
{
    const fs::path tsv = root() / "corpus.tsv";
    {
        std::ofstream f(tsv);
        f << "# two topics\n";
        for (int r = 0; r < 20; ++r) {
            f << "pets\tThe cat sat on the mat and the dog barked at the cat.\n";
            f << "weather\tRain fell, then the sun came out over the hills.\n";
        }
    }
    DocumentSource src = DocumentSource::parse("train fasttext");
    src.fastText.dim = 10;
    src.fastText.epoch = 2;
    src.fastText.threads = 1;
    src.cacheDir = (root() / "ftcache").string();
    DocumentOptions o;
    o.appendTermFrequency = true;
    DatasetBuilder b;
    const DocumentStats st = loadDocuments(tsv.string(), src, o, b);
    const Dataset ds = b.finish();
    QCOMPARE(ds.size(), std::size_t(40));
    QCOMPARE(ds.dim(), 11);
    QCOMPARE(st.oovTokens, std::size_t(0)); // trained on this very corpus
    QCOMPARE(ds.name(), std::string(QDir(m_dir.path()).dirName().toStdString())); // corpus.tsv: named after its folder
    QVERIFY2(hasNote(ds, "fastText skip-gram trained on this corpus"), qPrintable(notes(ds)));
    QCOMPARE(ds.count(Split::Test), std::size_t(12)); // round(20 * 0.3) per class
    QCOMPARE(ds.requireLabelSet("fine").classNames, (std::vector<std::string>{"pets", "weather"}));
    // Second load: the vectors come from the cache.
    DatasetBuilder b2;
    loadDocuments(tsv.string(), src, o, b2);
    const Dataset again = b2.finish();
    QVERIFY2(hasNote(again, "from the cache"), qPrintable(notes(again)));
    QCOMPARE(again.contentHash(), ds.contentHash());
}

void TestDocuments::sourceSpec()
{
    QVERIFY(DocumentSource::parse("train fasttext").kind == DocumentSource::Kind::TrainFastText);
    QVERIFY(DocumentSource::parse(" fasttext ").kind == DocumentSource::Kind::TrainFastText);
    const DocumentSource f = DocumentSource::parse("file /x/glove.6B.100d.txt");
    QVERIFY(f.kind == DocumentSource::Kind::File);
    QCOMPARE(f.path, std::string("/x/glove.6B.100d.txt"));
    QCOMPARE(DocumentSource::parse("/y/w.bin").path, std::string("/y/w.bin"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DocumentSource::parse("file "));
}

void TestDocuments::builtinLoaderUsesEnvironment()
{
    const fs::path vec = root() / "w.txt";
    std::ofstream(vec) << "cat 1 0\ndog 0 1\nsun 2 2\n";
    const fs::path dir = root() / "bydir";
    fs::create_directories(dir / "pets");
    fs::create_directories(dir / "sky");
    std::ofstream(dir / "pets" / "1.txt") << "A cat and a dog.";
    std::ofstream(dir / "sky" / "1.txt") << "The sun!";
    const fs::path tsv = root() / "small.tsv";
    std::ofstream(tsv) << "pets\tcat dog\ttrain\nsky\tsun\ttest\n";

    qputenv("SETSCOPE_WORD_VECTORS", QByteArray("file ") + QByteArray::fromStdString(vec.string()));
    qputenv("XDG_CACHE_HOME", m_dir.filePath("xdg").toUtf8());
    setscope::plugin::Registry r;
    setscope::builtins::registerBuiltins(r);
    const Dataset a = catalog::openDataset(tsv.string(), r);
    QCOMPARE(a.size(), std::size_t(2));
    QCOMPARE(a.dim(), 2);
    QCOMPARE(a.elementText(0), std::string("cat"));
    QCOMPARE(a.splits(), (std::vector<Split>{Split::Train, Split::Test}));
    QVERIFY2(hasNote(a, "word vectors: " + QString::fromStdString(vec.string())), qPrintable(notes(a)));
    const Dataset f = catalog::openDataset(dir.string(), r);
    QCOMPARE(f.size(), std::size_t(2));
    QCOMPARE(f.requireLabelSet("fine").classNames, (std::vector<std::string>{"pets", "sky"}));
    // Options reach both corpus loaders; the vectors stay the environment's (2-d, + 1 with tf).
    QCOMPARE(catalog::openDataset(tsv.string() + "?tf=1", r).dim(), 3);
    QCOMPARE(catalog::openDataset(dir.string() + "?tf=1", r).dim(), 3);
    // min-count=2 keeps no word of these one-word-each documents: nothing is left to load.
    QVERIFY_THROWS_EXCEPTION(InputError, catalog::openDataset(dir.string() + "?min-count=2", r));
    qunsetenv("SETSCOPE_WORD_VECTORS");
}

QTEST_GUILESS_MAIN(TestDocuments)
#include "tst_Documents.moc"
