// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/text/FastTextTrainer.h"
#include "core/data/text/WordVectors.h"
#include "core/job/Job.h"
#include "core/job/JobLoadContext.h"
#include "tests/core/data/AllocationCap.h"

#include <setscope/sdk/Errors.h>

#include <fasttext/fasttext.h>

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

using namespace setscope::data;
using setscope::sdk::InputError;

namespace fs = std::filesystem;

namespace {

// Three words, dimension 3, values exactly representable in decimal and binary.
const std::vector<std::string> kWords{"cat", "dog", "London"};
const std::vector<float> kValues{0.5f, -1.25f, 2.0f, 0.0f, 3.75f, -0.125f, 1.0f, 1.5f, -2.5f};

void writeBytes(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

std::string textLines(bool header, bool trailingSpace)
{
    std::string s = header ? "3 3\n" : "";
    for (std::size_t i = 0; i < kWords.size(); ++i) {
        s += kWords[i];
        for (int k = 0; k < 3; ++k) {
            char buf[32];
            std::snprintf(buf, sizeof buf, " %g", double(kValues[i * 3 + k]));
            s += buf;
        }
        s += trailingSpace ? " \n" : "\n";
    }
    return s;
}

std::string w2vBinary(bool newline, const std::vector<float>& values = kValues, const std::string& header = "3 3\n")
{
    std::string s = header;
    for (std::size_t i = 0; i < kWords.size(); ++i) {
        s += kWords[i] + " ";
        s.append(reinterpret_cast<const char*>(values.data() + i * 3), 3 * sizeof(float));
        if (newline)
            s += "\n";
    }
    return s;
}

void checkTable(const WordVectors& wv)
{
    QCOMPARE(wv.dim(), 3);
    QCOMPARE(wv.size(), std::size_t(3));
    QCOMPARE(wv.words(), kWords);
    for (std::size_t i = 0; i < kWords.size(); ++i) {
        const float* v = wv.find(kWords[i]);
        QVERIFY(v);
        for (int k = 0; k < 3; ++k)
            QCOMPARE(v[k], kValues[i * 3 + k]);
    }
    QVERIFY(wv.find("horse") == nullptr);
}

QString errorOf(const fs::path& p, const WordVectorOptions& o)
{
    try {
        loadWordVectors(p.string(), o);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

/// Trains a real fastText model with libfasttext (the reference implementation) on a tiny corpus.
fs::path trainFastTextModel(const fs::path& dir, int maxn)
{
    const fs::path corpus = dir / "ft-corpus.txt";
    {
        std::ofstream f(corpus);
        for (int r = 0; r < 50; ++r)
            f << "the cat sat on the mat while the dog ran after the cat\n"
                 "a dog and a cat are animals and the mat is a thing\n";
    }
    fasttext::Args a;
    a.input = corpus.string();
    a.model = fasttext::model_name::sg;
    a.loss = fasttext::loss_name::ns;
    a.dim = 8;
    a.epoch = 2;
    a.minCount = 1;
    a.minn = maxn > 0 ? 2 : 0;
    a.maxn = maxn;
    a.bucket = maxn > 0 ? 1000 : 0;
    a.thread = 1;
    a.verbose = 0;
    fasttext::FastText ft;
    ft.train(a);
    const fs::path out = dir / "model.bin";
    ft.saveModel(out.string());
    return out;
}

/// Offsets in a fastText .bin (libfasttext 0.9.2 layout), found by walking its dictionary.
struct FastTextLayout {
    std::size_t inputAt = 0;  ///< the input matrix's quant byte; m (int64) and n (int64) follow
    std::size_t outputAt = 0; ///< the output matrix's quant byte
    std::int32_t nwords = 0;
};

FastTextLayout fastTextLayout(const std::string& b)
{
    FastTextLayout l;
    std::int32_t dsize = 0;
    std::memcpy(&dsize, b.data() + 64, 4);
    std::memcpy(&l.nwords, b.data() + 68, 4);
    std::size_t pos = 64 + 4 + 4 + 4 + 8 + 8;
    for (std::int32_t i = 0; i < dsize; ++i)
        pos = b.find('\0', pos) + 1 + 9; // word, NUL, int64 count, int8 type
    l.inputAt = pos;
    std::int64_t m = 0, n = 0;
    std::memcpy(&m, b.data() + pos + 1, 8);
    std::memcpy(&n, b.data() + pos + 9, 8);
    l.outputAt = pos + 17 + static_cast<std::size_t>(m * n * 4);
    return l;
}

template <class T>
void poke(std::string& b, std::size_t at, T v)
{
    std::memcpy(b.data() + at, &v, sizeof v);
}

class CountingSink : public setscope::job::ProgressSink {
public:
    int progressCalls = 0;
    std::vector<std::string> messages;
    void progress(std::int64_t, std::int64_t, const std::string&) override { ++progressCalls; }
    void message(const std::string& m) override { messages.push_back(m); }
};

} // namespace

class TestWordVectors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_opts = {};
        m_opts.cacheDir = (root() / "cache").string();
        fs::remove_all(m_opts.cacheDir);
    }
    void formats_data();
    void formats();
    void lowercaseFallback();
    void cacheHitAndInvalidation();
    void cacheFileIsCompactAndValidated();
    void fastTextBin();
    void fastTextBinWithoutSubwords();
    void fastTextBinTruncated();
    void fastTextBinCraftedHeaders_data();
    void fastTextBinCraftedHeaders();
    void badInput_data();
    void badInput();
    void duplicatesKeepFirst();
    void trainOnCorpusAndCache();
    void trainCancel();
    void trainedVectorsAllStartRandom();
    void trainEmptyVocabulary();

private:
    fs::path root() const { return m_dir.path().toStdString(); }
    QTemporaryDir m_dir;
    WordVectorOptions m_opts;
};

void TestWordVectors::formats_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("format");
    QTest::newRow("word2vec binary with newline") << QByteArray::fromStdString(w2vBinary(true))
                                                  << int(WordVectorFormat::Word2VecBinary);
    QTest::newRow("word2vec binary without newline") << QByteArray::fromStdString(w2vBinary(false))
                                                     << int(WordVectorFormat::Word2VecBinary);
    QTest::newRow("word2vec text") << QByteArray::fromStdString(textLines(true, false)) << int(WordVectorFormat::Word2VecText);
    QTest::newRow("fastText .vec (trailing spaces)") << QByteArray::fromStdString(textLines(true, true))
                                                    << int(WordVectorFormat::Word2VecText);
    QTest::newRow("GloVe text") << QByteArray::fromStdString(textLines(false, false)) << int(WordVectorFormat::GloveText);
    QTest::newRow("GloVe text, CRLF and blank end") << QByteArray::fromStdString("cat 0.5 -1.25 2\r\ndog 0 3.75 -0.125\r\nLondon 1 1.5 -2.5\r\n\r\n")
                                                    << int(WordVectorFormat::GloveText);
}

void TestWordVectors::formats()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, format);
    const fs::path p = root() / "vectors.any";
    writeBytes(p, bytes.toStdString());
    const WordVectors wv = loadWordVectors(p.string(), m_opts);
    QCOMPARE(int(wv.format()), format);
    checkTable(wv);
    QVERIFY(!wv.hasSubwords());
    QCOMPARE(wv.duplicates(), std::size_t(0));
    // Forcing the detected format gives the same table.
    WordVectorOptions forced = m_opts;
    forced.format = static_cast<WordVectorFormat>(format);
    checkTable(loadWordVectors(p.string(), forced));
}

void TestWordVectors::lowercaseFallback()
{
    const fs::path p = root() / "v.txt";
    writeBytes(p, textLines(false, false));
    const WordVectors wv = loadWordVectors(p.string(), m_opts);
    QVERIFY(wv.find("london") == wv.find("London"));
    QCOMPARE(wv.indexOf("london"), std::int64_t(2));
    WordVectorOptions strict = m_opts;
    strict.lowercaseFallback = false;
    QVERIFY(loadWordVectors(p.string(), strict).find("london") == nullptr);
    // An exact lower-case entry wins over the fallback.
    const WordVectors both = WordVectors::fromData({"Apple", "apple"}, {1, 2}, 1);
    QCOMPARE(both.find("apple")[0], 2.0f);
    QCOMPARE(both.find("Apple")[0], 1.0f);
}

void TestWordVectors::cacheHitAndInvalidation()
{
    const fs::path p = root() / "glove.txt";
    writeBytes(p, textLines(false, false));
    const WordVectors first = loadWordVectors(p.string(), m_opts);
    QVERIFY(!first.fromCache());
    QCOMPARE(std::distance(fs::directory_iterator(m_opts.cacheDir), fs::directory_iterator()), 1);
    const WordVectors second = loadWordVectors(p.string(), m_opts);
    QVERIFY(second.fromCache());
    QCOMPARE(int(second.format()), int(WordVectorFormat::GloveText));
    checkTable(second);
    QCOMPARE(second.contentKey(), first.contentKey());

    // Same size, same modification time, different content: the content hash catches it.
    const auto mtime = fs::last_write_time(p);
    std::string changed = textLines(false, false);
    changed.replace(changed.find("0.5"), 3, "0.7");
    writeBytes(p, changed);
    fs::last_write_time(p, mtime);
    QCOMPARE(fs::file_size(p), std::size_t(textLines(false, false).size()));
    const WordVectors third = loadWordVectors(p.string(), m_opts);
    QVERIFY(!third.fromCache());
    QCOMPARE(third.find("cat")[0], 0.7f);
    QVERIFY(third.contentKey() != first.contentKey());
    QVERIFY(loadWordVectors(p.string(), m_opts).fromCache());
    // Still one cache file per source path (replaced, not accumulated).
    QCOMPARE(std::distance(fs::directory_iterator(m_opts.cacheDir), fs::directory_iterator()), 1);

    WordVectorOptions noCache = m_opts;
    noCache.useCache = false;
    QVERIFY(!loadWordVectors(p.string(), noCache).fromCache());
}

void TestWordVectors::cacheFileIsCompactAndValidated()
{
    const fs::path p = root() / "glove.txt";
    writeBytes(p, textLines(false, false));
    loadWordVectors(p.string(), m_opts);
    const fs::path cache = fs::directory_iterator(m_opts.cacheDir)->path();
    // header + 9 floats + "cat\0dog\0London\0" + end marker
    QVERIFY(fs::file_size(cache) < 200);
    // The cache file can be opened directly.
    checkTable(loadWordVectors(cache.string(), m_opts));
    // A damaged cache (cut short) is ignored and rebuilt from the source...
    fs::resize_file(cache, fs::file_size(cache) - 5);
    const WordVectors again = loadWordVectors(p.string(), m_opts);
    QVERIFY(!again.fromCache());
    checkTable(again);
    // ... and opening a cut cache directly is an input error.
    fs::resize_file(cache, fs::file_size(cache) - 5);
    QVERIFY(errorOf(cache, m_opts).contains("damaged or truncated"));
}

void TestWordVectors::fastTextBin()
{
    const fs::path model = trainFastTextModel(root(), 3);
    fasttext::FastText ref;
    ref.loadModel(model.string());
    const WordVectors wv = loadWordVectors(model.string(), m_opts);
    QCOMPARE(int(wv.format()), int(WordVectorFormat::FastTextBin));
    QCOMPARE(wv.dim(), 8);
    QVERIFY(wv.hasSubwords());
    // Every corpus word is there ("</s>" is fastText's line end, not a word).
    QCOMPARE(wv.size(), std::size_t(ref.getDictionary()->nwords() - 1));
    QVERIFY(wv.find("</s>") == nullptr);
    fasttext::Vector v(8);
    for (const char* w : {"cat", "mat", "animals"}) {
        ref.getWordVector(v, w);
        const float* got = wv.find(w);
        QVERIFY2(got, w);
        for (int k = 0; k < 8; ++k)
            QCOMPARE(got[k], v[k]);
    }
    // OOV word: the subword vector libfasttext computes from its n-grams.
    QVERIFY(wv.find("cats") == nullptr);
    std::vector<float> sub(8);
    QVERIFY(wv.subwordVector("cats", sub.data()));
    ref.getWordVector(v, "cats");
    for (int k = 0; k < 8; ++k)
        QCOMPARE(sub[std::size_t(k)], v[k]);
}

void TestWordVectors::fastTextBinWithoutSubwords()
{
    const fs::path model = trainFastTextModel(root(), 0);
    const WordVectors wv = loadWordVectors(model.string(), m_opts);
    QVERIFY(!wv.hasSubwords());
    std::vector<float> sub(8);
    QVERIFY(!wv.subwordVector("cats", sub.data()));
    QVERIFY(wv.find("dog"));
}

void TestWordVectors::fastTextBinTruncated()
{
    const fs::path model = trainFastTextModel(root(), 3);
    std::ifstream in(model, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Cut in the header, the arguments, the dictionary, the input matrix and the output matrix.
    for (std::size_t cut : {std::size_t(6), std::size_t(40), std::size_t(100), bytes.size() / 2, bytes.size() - 3}) {
        const fs::path p = root() / "cut.bin";
        writeBytes(p, bytes.substr(0, cut));
        const QString msg = errorOf(p, m_opts);
        QVERIFY2(msg.contains("truncated") && msg.contains("byte offset"), qPrintable(QString::number(cut) + ": " + msg));
    }
    const fs::path extra = root() / "extra.bin";
    writeBytes(extra, bytes + "xx");
    QVERIFY(errorOf(extra, m_opts).contains("unexpected bytes"));
}

void TestWordVectors::fastTextBinCraftedHeaders_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expect"); // %1 = the input matrix's offset, %2 = nwords
    // 2^59 x 8 floats = 2^64 bytes: wrapped to 0, so an input matrix without data passed
    // the size walk and libfasttext was left to allocate 2^62 floats.
    QTest::newRow("input matrix bytes wrap 2^64")
        << 0 << "(byte offset %1): input matrix of 576460752303423488 x 8 needs more bytes than fit in 64 bits";
    // bucket 0 with maxn 3: libfasttext computes hash % bucket (SIGFPE).
    QTest::newRow("no buckets for subwords") << 1 << "(byte offset 8): inconsistent training arguments (dim 8, bucket 0, maxn 3)";
    // More buckets than the input matrix has rows for: libfasttext would read subword rows
    // past the end of the matrix.
    QTest::newRow("more buckets than rows") << 2 << "does not match the model (dimension 8, at least %2 rows)";
    // Vectors of 64 floats read from rows of 8.
    QTest::newRow("dimension wider than the rows") << 3 << "x 8 does not match the model (dimension 64";
    // The input matrix's quantization flag is a C++ bool on disk: 3 is no bool, and reading
    // it as one is undefined behaviour (UBSan in the word_vectors fuzz target, issue 12).
    QTest::newRow("quantization flag neither 0 nor 1")
        << 4 << "(byte offset %1): the input matrix's quantization flag is 3, not 0 or 1 (a damaged model)";
}

void TestWordVectors::fastTextBinCraftedHeaders()
{
    QFETCH(int, kind);
    QFETCH(QString, expect);
    const fs::path model = trainFastTextModel(root(), 3); // dim 8, bucket 1000, maxn 3
    std::ifstream in(model, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const FastTextLayout l = fastTextLayout(bytes);
    constexpr std::size_t kBucketAt = 8 + 8 * 4, kDimAt = 8;
    switch (kind) {
    case 0:
        bytes = bytes.substr(0, l.inputAt + 17) + bytes.substr(l.outputAt);
        poke<std::int64_t>(bytes, l.inputAt + 1, std::int64_t(1) << 59);
        break;
    case 1: poke<std::int32_t>(bytes, kBucketAt, 0); break;
    case 2: poke<std::int32_t>(bytes, kBucketAt, 5000); break;
    case 3: poke<std::int32_t>(bytes, kDimAt, 64); break;
    case 4: bytes[l.inputAt] = 3; break;
    }
    const fs::path p = root() / "crafted.bin";
    writeBytes(p, bytes);
    QString msg;
    {
        const setscope::testing::AllocationCap cap;
        QVERIFY(cap.active());
        msg = errorOf(p, m_opts);
    }
    QVERIFY2(msg.startsWith(QString::fromStdString(p.string())), qPrintable(msg));
    expect.replace("%1", QString::number(kind == 4 ? l.inputAt : l.inputAt + 1)).replace("%2", QString::number(l.nwords + 5000));
    QVERIFY2(msg.contains(expect), qPrintable(msg));
}

void TestWordVectors::badInput_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const std::string bin = w2vBinary(true);
    QTest::newRow("binary cut inside a vector") << QByteArray::fromStdString(bin.substr(0, bin.size() - 6))
                                                << "(record 3, byte offset 38): file ends inside the vector of 'London'";
    // Cut early enough that 3 records of at least 2 + 4 x 3 bytes no longer fit: refused
    // at the header, before anything is reserved for them.
    QTest::newRow("binary cut inside a word")
        << QByteArray::fromStdString(bin.substr(0, 4 + 17 + 2))
        << "(byte offset 0): the header says 3 words of dimension 3, at least 42 bytes, but only 19 bytes follow it";
    std::string longWord = "2 1\n" + std::string(20, 'a') + " ";
    longWord.append(reinterpret_cast<const char*>(kValues.data()), sizeof(float));
    longWord += "\nbb";
    QTest::newRow("binary cut inside a later word")
        << QByteArray::fromStdString(longWord) << "(record 2, byte offset 30): file ends inside record 2 of 2";
    QTest::newRow("binary header says more")
        << QByteArray::fromStdString(w2vBinary(true, kValues, "4 3\n"))
        << "(byte offset 0): the header says 4 words of dimension 3, at least 56 bytes, but only 54 bytes follow it";
    // Crafted headers: the counts are refused against the file size, not allocated (the old
    // reader reserved 10^9 strings = 32 GB, or 2^31 - 1 floats, first).
    std::string huge = "1000000000 300\ncat ";
    huge.append(reinterpret_cast<const char*>(kValues.data()), 3 * sizeof(float));
    QTest::newRow("binary header 10^9 x 300 in a tiny file")
        << QByteArray::fromStdString(huge)
        << "(byte offset 0): the header says 1000000000 words of dimension 300, at least 1202000000000 bytes, but only 16 "
           "bytes follow it";
    std::string wide = "1 2147483647\ncat ";
    wide.append(reinterpret_cast<const char*>(kValues.data()), 3 * sizeof(float));
    QTest::newRow("binary header dimension 2^31 - 1")
        << QByteArray::fromStdString(wide)
        << "(byte offset 0): the header says 1 words of dimension 2147483647, at least 8589934590 bytes";
    QTest::newRow("text header 10^9 x 3 in a tiny file")
        << QByteArray("1000000000 3\ncat 1 2 3\ndog 1 2 3\n")
        << "(line 1): the header says 1000000000 words of dimension 3, at least 7000000000 bytes, but only 20 bytes "
           "follow it";
    // A cache header whose count x dimension x 4 wraps to 0 matched the file size, and the
    // reader then resized to 2^62 floats.
    std::string cache(8, '\0');
    std::memcpy(cache.data(), "SSWVCACH", 8);
    auto append = [&cache](auto v) { cache.append(reinterpret_cast<const char*>(&v), sizeof v); };
    append(std::uint32_t(1));          // version
    append(std::int32_t(1));           // dim
    append(std::uint64_t(1) << 62);    // count
    append(std::uint64_t(0));          // source size
    append(std::int64_t(0));           // source mtime
    cache.append(32, '0');             // source hash
    cache.append(8, '\0');             // format, padding
    append(std::uint64_t(0));          // duplicates
    append(std::uint64_t(0));          // word bytes
    cache.append("SSWVEND\0", 8);
    QTest::newRow("cache count wraps 2^64") << QByteArray::fromStdString(cache)
                                             << "damaged or truncated setscope word-vector cache";
    QTest::newRow("binary header says fewer") << QByteArray::fromStdString(w2vBinary(true, kValues, "2 3\n"))
                                              << "(byte offset 38): the header says 2 words but the file continues";
    std::vector<float> nan = kValues;
    nan[4] = std::numeric_limits<float>::quiet_NaN();
    QTest::newRow("binary NaN") << QByteArray::fromStdString(w2vBinary(true, nan)) << "(record 2, byte offset 21): NaN or infinite";
    std::vector<float> inf = kValues;
    inf[8] = std::numeric_limits<float>::infinity();
    QTest::newRow("binary inf") << QByteArray::fromStdString(w2vBinary(true, inf)) << "(record 3, byte offset 38): NaN or infinite";
    QTest::newRow("text wrong count") << QByteArray("3 3\ncat 1 2 3\ndog 1 2\nLondon 1 2 3\n")
                                      << "(line 3): expected 3 values after the word, found 2";
    QTest::newRow("glove wrong count") << QByteArray("cat 1 2 3\ndog 1 2 3 4\n") << "(line 2): expected 3 values after the word, found 4";
    QTest::newRow("text header says more") << QByteArray("4 3\ncat 1 2 3\ndog 1 2 3\nLondon 1 2 3\n")
                                           << "the header says 4 words but the file has 3 (truncated?)";
    QTest::newRow("text header says fewer") << QByteArray("2 3\ncat 1 2 3\ndog 1 2 3\nLondon 1 2 3\n")
                                            << "(line 4): the header says 2 words but the file has more";
    // Issue 29 §2: finite values whose squared distances overflow float (beyond 5.33e18 in 3-d).
    std::vector<float> beyond = kValues;
    beyond[4] = 1e20f;
    QTest::newRow("binary 1e20") << QByteArray::fromStdString(w2vBinary(true, beyond))
                                 << "(record 2, byte offset 21): the vector of 'dog' holds the value 1e+20, beyond";
    QTest::newRow("text 1e20") << QByteArray("cat 1 1e20 3\n") << "(line 1): value 1e+20, beyond \u00b15.33e+18";
    QTest::newRow("text nan") << QByteArray("cat 1 nan 3\n") << "(line 1): NaN or infinite value";
    QTest::newRow("text inf") << QByteArray("cat 1 2 3\ndog -inf 2 3\n") << "(line 2): NaN or infinite value";
    QTest::newRow("text not a number") << QByteArray("cat 1 2 3\ndog 1 x2 3\n") << "(line 2): 'x2' is not a number";
    QTest::newRow("text overflow") << QByteArray("cat 1 2 1e99\n") << "(line 1): value '1e99' is out of float range";
    QTest::newRow("word without values") << QByteArray("cat\n") << "(line 1): no values after the word";
    QTest::newRow("empty file") << QByteArray() << "empty file";
    QTest::newRow("only a header") << QByteArray("0 3\n") << "(byte offset 0): the header says 0 words";
}

void TestWordVectors::badInput()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const fs::path p = root() / "bad.vec";
    writeBytes(p, bytes.toStdString());
    QString msg;
    {
        const setscope::testing::AllocationCap cap; // what a crafted header claims must not be allocated
        QVERIFY(cap.active());
        msg = errorOf(p, m_opts);
    }
    QVERIFY2(msg.contains(expected), qPrintable(msg));
    QVERIFY2(msg.startsWith(QString::fromStdString(p.string())), qPrintable(msg));
    // Nothing is cached for a bad file.
    QVERIFY(!fs::exists(m_opts.cacheDir) || fs::is_empty(m_opts.cacheDir));
}

void TestWordVectors::duplicatesKeepFirst()
{
    const fs::path p = root() / "dup.txt";
    writeBytes(p, "cat 1 2\ndog 3 4\ncat 5 6\ncat 7 8\n");
    const WordVectors wv = loadWordVectors(p.string(), m_opts);
    QCOMPARE(wv.size(), std::size_t(2));
    QCOMPARE(wv.duplicates(), std::size_t(2));
    QCOMPARE(wv.find("cat")[0], 1.0f);
    const WordVectors cached = loadWordVectors(p.string(), m_opts);
    QVERIFY(cached.fromCache());
    QCOMPARE(cached.duplicates(), std::size_t(2));
    const std::string bin = "2 1\ncat " + std::string("\0\0\x80\x3f", 4) + "\ncat " + std::string("\0\0\0\x40", 4) + "\n";
    writeBytes(root() / "dup.bin", bin);
    const WordVectors b = loadWordVectors((root() / "dup.bin").string(), m_opts);
    QCOMPARE(b.size(), std::size_t(1));
    QCOMPARE(b.duplicates(), std::size_t(1));
    QCOMPARE(b.find("cat")[0], 1.0f);
}

void TestWordVectors::trainedVectorsAllStartRandom()
{
    // fastText initialises the input matrix uniformly in (-1/dim, 1/dim). libfasttext 0.9.2
    // fills only threads/10 of it (DenseMatrix::uniformThread uses blocks of a tenth), so
    // with a learning rate near zero most words would stay at 0 unless the trainer asks for
    // at least 10 threads. Every word must start random.
    std::vector<std::vector<std::string>> docs;
    for (int d = 0; d < 20; ++d) {
        std::vector<std::string> doc;
        for (int w = 0; w < 10; ++w)
            doc.push_back("w" + std::to_string(d * 10 + w));
        docs.push_back(doc);
    }
    FastTextOptions o;
    o.dim = 10;
    o.epoch = 1;
    o.learningRate = 1e-7;
    o.threads = 1;
    const WordVectors v = trainWordVectors(docs, o, (root() / "ft-init").string());
    QCOMPARE(v.size(), std::size_t(200));
    std::size_t zeroRows = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        float mx = 0;
        for (int k = 0; k < v.dim(); ++k) {
            mx = std::max(mx, std::abs(v.vector(i)[k]));
            QVERIFY(std::abs(v.vector(i)[k]) <= 1.0f / 10 + 1e-4f);
        }
        zeroRows += mx < 1e-3f;
    }
    QCOMPARE(zeroRows, std::size_t(0));
}

void TestWordVectors::trainOnCorpusAndCache()
{
    std::vector<std::vector<std::string>> docs;
    for (int r = 0; r < 40; ++r) {
        docs.push_back({"cat", "sat", "mat", "cat", "purr"});
        docs.push_back({"dog", "ran", "park", "dog", "bark"});
    }
    FastTextOptions o;
    o.dim = 10;
    o.epoch = 3;
    o.threads = 1;
    const std::string cache = (root() / "ft").string();
    CountingSink sink;
    setscope::job::JobLoadContext context(&sink, nullptr);
    const WordVectors a = trainWordVectors(docs, o, cache, &context);
    QCOMPARE(a.dim(), 10);
    QCOMPARE(a.size(), std::size_t(8)); // the eight distinct words, no "</s>"
    QVERIFY(!a.fromCache());
    QVERIFY(a.find("purr") && a.find("bark"));
    QVERIFY(fs::exists(fastTextCachePath(docs, o, cache)));
    QVERIFY(!sink.messages.empty());

    const WordVectors b = trainWordVectors(docs, o, cache);
    QVERIFY(b.fromCache());
    QCOMPARE(b.words(), a.words());
    QCOMPARE(b.values(), a.values());

    // Other tokens or other options: another cache entry.
    FastTextOptions o2 = o;
    o2.epoch = 4;
    QVERIFY(fastTextCachePath(docs, o2, cache) != fastTextCachePath(docs, o, cache));
    auto docs2 = docs;
    docs2.back().push_back("woof");
    QVERIFY(fastTextCachePath(docs2, o, cache) != fastTextCachePath(docs, o, cache));
    // Document boundaries are part of the key.
    std::vector<std::vector<std::string>> joined{{"a", "b"}}, split{{"a"}, {"b"}};
    QVERIFY(fastTextCachePath(joined, o, cache) != fastTextCachePath(split, o, cache));
    // minCount removes rare words.
    FastTextOptions o3 = o;
    o3.minCount = 41;
    const WordVectors c = trainWordVectors(docs, o3, cache);
    QCOMPARE(c.size(), std::size_t(2)); // only "cat" and "dog" occur 80 times
}

void TestWordVectors::trainCancel()
{
    std::vector<std::vector<std::string>> docs;
    for (int r = 0; r < 2000; ++r) {
        std::vector<std::string> d;
        for (int k = 0; k < 100; ++k)
            d.push_back("w" + std::to_string((r * 7 + k * 13) % 3000));
        docs.push_back(std::move(d));
    }
    FastTextOptions o;
    o.dim = 100;
    o.epoch = 1000; // minutes of work unless cancelled
    o.threads = 2;
    // Cancel from the first progress report, i.e. while fastText is training. Uncancelled,
    // this run takes minutes (CTest's timeout would fail it); a cancel that works ends it
    // at the trainer's next callback (every 64 lines per thread). The wall-clock latency is
    // measured in bench/jobs (docs/BENCHMARKS.md), not here.
    setscope::job::JobControl control;
    struct CancelOnProgress : setscope::job::ProgressSink {
        setscope::job::JobControl* control = nullptr;
        std::atomic<int> reports{0};
        void progress(std::int64_t, std::int64_t, const std::string&) override
        {
            ++reports;
            control->requestCancel();
        }
    } sink;
    sink.control = &control;
    setscope::job::JobLoadContext context(&sink, &control);
    QVERIFY_THROWS_EXCEPTION(setscope::job::Cancelled, trainWordVectors(docs, o, (root() / "ft").string(), &context));
    QVERIFY(sink.reports.load() >= 1); // cancelled while training, not before
    QVERIFY(!fs::exists(fastTextCachePath(docs, o, (root() / "ft").string())));
    // The training file is removed too.
    for (const auto& e : fs::directory_iterator(root() / "ft"))
        QVERIFY2(e.path().extension() != ".txt", e.path().c_str());
}

void TestWordVectors::trainEmptyVocabulary()
{
    std::vector<std::vector<std::string>> docs{{"a", "b"}, {"c"}};
    FastTextOptions o;
    o.dim = 4;
    o.minCount = 5;
    QVERIFY_THROWS_EXCEPTION(InputError, trainWordVectors(docs, o, (root() / "ft").string()));
}

QTEST_GUILESS_MAIN(TestWordVectors)
#include "tst_WordVectors.moc"
