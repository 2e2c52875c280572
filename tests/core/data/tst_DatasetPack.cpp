// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Dataset packs (core/data/DatasetPack): a dataset written to a pack and read back is the same
// dataset bit for bit (values, weights, set boundaries, splits, label sets, element text,
// images, edges; the same content hash) and gives the same exact EMDs; the writer stores
// repeated leading columns once; damaged or crafted packs are refused with the section and
// byte offset, before anything is allocated from their claims.
#include "core/data/Dataset.h"
#include "core/data/DatasetPack.h"
#include "core/ot/Emd.h"
#include "core/ot/PointSet.h"

#include <QtTest>

#include <QTemporaryDir>

#include <xxhash.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

using namespace setscope;

namespace {

/// A dataset with every feature a pack holds: sets of 1..6 elements drawn from a small
/// "vocabulary" of rows with a per-element last column (like documents with tf=1), element
/// text, images, edges, three splits, two label sets (one with unlabelled items), notes.
data::Dataset richDataset(bool withImages = true, bool withEdges = true)
{
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    const int dim = 5;
    const int vocabulary = 9;
    std::vector<float> vocab(static_cast<std::size_t>(vocabulary * (dim - 1)));
    for (float& v : vocab)
        v = normal(rng);
    vocab[3] = -0.0f; // a negative zero must survive as such
    const char* words[] = {"alpha", "beta", "gamma", "delta", "", "zeta", "eta", "theta", "iota"};

    data::DatasetBuilder b("rich");
    b.setName("rich dataset");
    b.setDimension(dim);
    if (withImages)
        b.setImageFormat(3, 2, 1);
    for (std::size_t i = 0; i < 23; ++i) {
        const std::size_t count = 1 + i % 6;
        std::vector<float> values;
        std::vector<float> weights;
        std::vector<std::string> text;
        for (std::size_t k = 0; k < count; ++k) {
            const int w = static_cast<int>((i * 7 + k * 3) % vocabulary);
            values.insert(values.end(), vocab.begin() + w * (dim - 1), vocab.begin() + (w + 1) * (dim - 1));
            const float tf = 1.0f / static_cast<float>(count) + 1e-3f * static_cast<float>(k);
            values.push_back(tf);
            weights.push_back(tf);
            text.push_back(words[w]);
        }
        const auto split = static_cast<sdk::Split>(i % 3);
        const std::size_t item = b.addItem(values.data(), weights.data(), count, split);
        b.setElementText(item, text);
        if (withImages) {
            std::uint8_t px[6];
            for (int p = 0; p < 6; ++p)
                px[p] = static_cast<std::uint8_t>(i * 11 + static_cast<std::size_t>(p));
            b.setImage(item, px);
        }
        if (withEdges && count >= 2 && i % 4 != 1) {
            std::vector<std::int32_t> pairs;
            for (std::size_t k = 0; k + 1 < count; ++k) {
                pairs.push_back(static_cast<std::int32_t>(k));
                pairs.push_back(static_cast<std::int32_t>(k + 1));
            }
            b.setElementEdges(item, pairs.data(), pairs.size() / 2);
        }
    }
    b.defineLabelSet("fine", {"a", "b", "c", "d"});
    b.defineLabelSet("coarse", {"ab", "cd"});
    for (std::size_t i = 0; i < 23; ++i) {
        b.setLabel("fine", i, static_cast<std::int32_t>(i % 4));
        if (i % 5 != 0)
            b.setLabel("coarse", i, static_cast<std::int32_t>(i % 4 / 2));
    }
    b.note("3 words had no vector");
    return b.finish();
}

/// Plain vectors (sets of one element), none repeated.
data::Dataset vectorDataset()
{
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    data::DatasetBuilder b("vectors");
    b.setDimension(4);
    for (int i = 0; i < 40; ++i) {
        float v[4] = {u(rng), u(rng), u(rng), u(rng)};
        b.addItem(v, nullptr, 1, i < 30 ? sdk::Split::Train : sdk::Split::Test);
    }
    b.defineLabelSet("fine", {"x", "y"});
    for (std::size_t i = 0; i < 40; ++i)
        b.setLabel("fine", i, static_cast<std::int32_t>(i % 2));
    return b.finish();
}

std::string packBytes(const data::Dataset& ds, data::PackSummary* summary = nullptr)
{
    std::ostringstream out(std::ios::binary);
    const data::PackSummary s = data::writeDatasetPack(out, ds, "spec:of=test");
    if (summary)
        *summary = s;
    return out.str();
}

data::Dataset readPack(const std::string& bytes, const data::PackReadOptions& options = {})
{
    data::DatasetBuilder b("test.setpack");
    data::readDatasetPack(bytes, "test.setpack", b, options);
    return b.finish();
}

/// The checksum recomputed after a deliberate change, so that the change reaches the checks
/// behind the checksum.
void fixChecksum(std::string& bytes)
{
    const std::uint64_t h = XXH3_64bits(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);
}

/// Offset of the payload of section `tag` (after its tag and size).
std::size_t payload(const std::string& bytes, const char* tag)
{
    std::size_t at = 24;
    while (at + 12 <= bytes.size() - 8) {
        std::uint64_t size;
        std::memcpy(&size, bytes.data() + at + 4, 8);
        if (std::memcmp(bytes.data() + at, tag, 4) == 0)
            return at + 12;
        at += 12 + size;
    }
    return std::string::npos;
}

template <class T>
void put(std::string& bytes, std::size_t at, T v)
{
    std::memcpy(bytes.data() + at, &v, sizeof v);
}

template <class T>
bool sameBytes(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

void compareDatasets(const data::Dataset& a, const data::Dataset& b)
{
    QCOMPARE(b.name(), a.name());
    QCOMPARE(b.dim(), a.dim());
    QCOMPARE(b.size(), a.size());
    QVERIFY(sameBytes(a.values(), b.values()));
    QVERIFY(sameBytes(a.weights(), b.weights()));
    QVERIFY(sameBytes(a.offsets(), b.offsets()));
    QVERIFY(a.splits() == b.splits());
    QCOMPARE(b.labelSets().size(), a.labelSets().size());
    for (std::size_t k = 0; k < a.labelSets().size(); ++k) {
        QCOMPARE(b.labelSets()[k].name, a.labelSets()[k].name);
        QVERIFY(b.labelSets()[k].classNames == a.labelSets()[k].classNames);
        QVERIFY(b.labelSets()[k].labels == a.labelSets()[k].labels);
    }
    QCOMPARE(b.hasElementText(), a.hasElementText());
    if (a.hasElementText())
        for (std::size_t e = 0; e < a.elementCount(); ++e)
            QCOMPARE(b.elementText(e), a.elementText(e));
    QCOMPARE(b.hasImages(), a.hasImages());
    if (a.hasImages()) {
        QCOMPARE(b.imageFormat().bytesPerItem(), a.imageFormat().bytesPerItem());
        QCOMPARE(b.imageFormat().width, a.imageFormat().width);
        QVERIFY(std::memcmp(a.image(0), b.image(0), a.size() * a.imageFormat().bytesPerItem()) == 0);
    }
    QCOMPARE(b.hasEdges(), a.hasEdges());
    QVERIFY(a.edgePairs() == b.edgePairs());
    QVERIFY(a.edgeOffsets() == b.edgeOffsets());
    QCOMPARE(b.contentHash(), a.contentHash());
    // The original's notes come along, then the pack's own.
    QVERIFY(b.notes().size() == a.notes().size() + 1);
    for (std::size_t k = 0; k < a.notes().size(); ++k)
        QCOMPARE(b.notes()[k], a.notes()[k]);
}

} // namespace

class TestDatasetPack : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("sharedColumns");
        QTest::newRow("sets with text, images, edges (tf column apart)") << 0 << 4;
        QTest::newRow("sets with text, no images, no edges") << 1 << 4;
        QTest::newRow("plain vectors (nothing shared)") << 2 << 0;
    }
    void roundTrip()
    {
        QFETCH(int, kind);
        QFETCH(int, sharedColumns);
        const data::Dataset ds = kind == 0 ? richDataset() : kind == 1 ? richDataset(false, false) : vectorDataset();
        data::PackSummary s;
        const std::string bytes = packBytes(ds, &s);
        QCOMPARE(s.sharedColumns, sharedColumns);
        QCOMPARE(s.bytes, static_cast<std::uint64_t>(bytes.size()));
        QCOMPARE(s.elements, static_cast<std::uint64_t>(ds.elementCount()));
        if (sharedColumns > 0)
            QCOMPARE(s.distinctRows, std::uint64_t{9}); // the vocabulary of richDataset()
        const data::Dataset back = readPack(bytes);
        compareDatasets(ds, back);
        // Written again, the pack is the same but for the note the reading added.
        QVERIFY(packBytes(back).size() > bytes.size());
    }

    void repeatedRowsAreStoredOnce()
    {
        // 200 vectors that are 5 distinct rows: every column shared.
        data::DatasetBuilder b("repeated");
        b.setDimension(16);
        for (int i = 0; i < 200; ++i) {
            std::vector<float> v(16, static_cast<float>(i % 5));
            b.addItem(v.data(), nullptr, 1, sdk::Split::Train);
        }
        const data::Dataset ds = b.finish();
        data::PackSummary s;
        const std::string bytes = packBytes(ds, &s);
        QCOMPARE(s.sharedColumns, 16);
        QCOMPARE(s.distinctRows, std::uint64_t{5});
        // 5 rows of 64 bytes, 200 indices, weights and splits: a quarter of the 200 x 64 bytes
        // of the values alone.
        QVERIFY2(bytes.size() < 200 * 64 / 3, qPrintable(QString::number(bytes.size())));
        compareDatasets(ds, readPack(bytes));
    }

    void sameExactEmds()
    {
        const data::Dataset ds = richDataset();
        const data::Dataset back = readPack(packBytes(ds));
        for (std::size_t i = 0; i < ds.size(); i += 3)
            for (std::size_t j = 1; j < ds.size(); j += 4) {
                const double a = ot::emd(ot::pointSet(ds, i), ot::pointSet(ds, j)).emd;
                const double c = ot::emd(ot::pointSet(back, i), ot::pointSet(back, j)).emd;
                QCOMPARE(std::memcmp(&a, &c, sizeof a), 0);
            }
    }

    void fileRoundTripAndDetection()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("d.setpack").toStdString();
        const data::Dataset ds = richDataset();
        const data::PackSummary s = data::writeDatasetPackFile(path, ds, "rich");
        QCOMPARE(static_cast<qint64>(s.bytes), QFileInfo(QString::fromStdString(path)).size());
        QVERIFY(data::looksLikeDatasetPack(path));
        QVERIFY(!data::looksLikeDatasetPack(dir.path().toStdString()));
        data::DatasetBuilder b(path);
        data::loadDatasetPack(path, b);
        const data::Dataset back = b.finish();
        compareDatasets(ds, back);
        QCOMPARE(back.sourceFiles().back(), path);
        QVERIFY(back.notes().back().find("made from rich") != std::string::npos);
        // Another file is not a pack.
        const std::string other = dir.filePath("x.setpack").toStdString();
        {
            std::ofstream f(other, std::ios::binary);
            f << "setscope-pack\nbut not really";
        }
        QVERIFY(!data::looksLikeDatasetPack(other));
    }

    void badPacksAreRefused_data()
    {
        QTest::addColumn<int>("change");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << 0 << "not a setscope dataset pack";
        QTest::newRow("wrong magic") << 1 << "not a setscope dataset pack";
        QTest::newRow("flipped byte") << 2 << "checksum mismatch";
        QTest::newRow("truncated") << 3 << "checksum mismatch";
        QTest::newRow("format version 2") << 4 << "pack format version 2";
        QTest::newRow("empty set") << 5 << "item 2 is an empty set";
        QTest::newRow("set sizes against the element count") << 6 << "add up to";
        QTest::newRow("row index outside the rows") << 7 << "names row 9 of 9";
        QTest::newRow("split 3") << 8 << "has split 3";
        QTest::newRow("label outside its classes") << 9 << "has label 4 of 4 classes";
        QTest::newRow("text index outside the strings") << 10 << "names string 9";
        QTest::newRow("section out of order") << 11 << "section SETS expected here";
        QTest::newRow("section longer than the file") << 12 << "claims";
        QTest::newRow("bytes after the last section") << 13 << "bytes after the last section";
        QTest::newRow("NaN value") << 14 << "NaN";
        QTest::newRow("10^15 elements claimed") << 15 << "10000";
        QTest::newRow("edge outside its set") << 16 << "names element";
        QTest::newRow("dimension 0") << 17 << "dimension 0 outside";
        QTest::newRow("unknown flag") << 18 << "unknown flags";
        QTest::newRow("2^32 classes claimed") << 19 << "classes claimed";
    }
    void badPacksAreRefused()
    {
        QFETCH(int, change);
        QFETCH(QString, message);
        const data::Dataset ds = richDataset();
        std::string bytes = packBytes(ds);
        const std::size_t head = payload(bytes, "HEAD");
        // HEAD: str name ("rich dataset": 4 + 12), str source ("spec:of=test": 4 + 12), then dim.
        const std::size_t dimAt = head + 16 + 16;
        const std::size_t elementsAt = dimAt + 4 + 8;
        switch (change) {
        case 0: bytes.clear(); break;
        case 1: bytes[3] = 'X'; break;
        case 2: bytes[bytes.size() / 2] ^= 0x20; break;
        case 3: bytes.resize(bytes.size() - 100); break;
        case 4: put<std::uint32_t>(bytes, 16, 2); break;
        case 5: {
            const std::size_t sets = payload(bytes, "SETS");
            std::uint32_t a, c;
            std::memcpy(&a, bytes.data() + sets + 8, 4);
            std::memcpy(&c, bytes.data() + sets + 12, 4);
            put<std::uint32_t>(bytes, sets + 8, 0);
            put<std::uint32_t>(bytes, sets + 12, c + a); // the total stays right
            fixChecksum(bytes);
            break;
        }
        case 6: put<std::uint32_t>(bytes, payload(bytes, "SETS"), 2); fixChecksum(bytes); break;
        case 7: put<std::uint32_t>(bytes, payload(bytes, "ELEM") + 4 * 5, 9); fixChecksum(bytes); break;
        case 8: bytes[payload(bytes, "SPLT") + 4] = 3; fixChecksum(bytes); break;
        case 9: {
            // LABL: u32 count, str "fine", u32 4, 4 x str, labels.
            const std::size_t at = payload(bytes, "LABL") + 4 + 8 + 4 + 4 * 5;
            put<std::int32_t>(bytes, at + 4 * 2, 4);
            fixChecksum(bytes);
            break;
        }
        case 10: {
            const std::size_t text = payload(bytes, "TEXT");
            std::uint64_t size;
            std::memcpy(&size, bytes.data() + text - 8, 8);
            put<std::uint32_t>(bytes, text + size - 4, 9);
            fixChecksum(bytes);
            break;
        }
        case 11: std::memcpy(bytes.data() + payload(bytes, "SETS") - 12, "ROWS", 4); fixChecksum(bytes); break;
        case 12: put<std::uint64_t>(bytes, payload(bytes, "SETS") - 8, std::uint64_t(1) << 40); fixChecksum(bytes); break;
        case 13: bytes.insert(bytes.size() - 8, "extra"); fixChecksum(bytes); break;
        case 14: {
            const float nan = std::numeric_limits<float>::quiet_NaN();
            put<float>(bytes, payload(bytes, "ROWS") + 4, nan);
            fixChecksum(bytes);
            break;
        }
        case 15: put<std::uint64_t>(bytes, elementsAt, 1000000000000000ull); fixChecksum(bytes); break;
        case 16: {
            const std::size_t edge = payload(bytes, "EDGE");
            const std::size_t pairs = edge + 23 * 4;
            put<std::int32_t>(bytes, pairs, 6); // item 1 has 2 elements... the first item with edges has fewer than 7
            fixChecksum(bytes);
            break;
        }
        case 17: put<std::int32_t>(bytes, dimAt, 0); fixChecksum(bytes); break;
        case 18: bytes[elementsAt + 8 + 4 + 8] = 64; fixChecksum(bytes); break;
        case 19: {
            const std::size_t at = payload(bytes, "LABL") + 4 + 8;
            put<std::uint32_t>(bytes, at, 0xffffffffu);
            fixChecksum(bytes);
            break;
        }
        }
        try {
            const data::Dataset back = readPack(bytes);
            QFAIL("accepted");
        } catch (const sdk::InputError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
            QVERIFY2(QString(e.what()).startsWith("test.setpack"), e.what());
        }
    }

    void checksumCanBeSkippedForFuzzing()
    {
        std::string bytes = packBytes(vectorDataset());
        bytes[bytes.size() - 1] ^= 1; // only the checksum is wrong
        QVERIFY_EXCEPTION_THROWN(readPack(bytes), sdk::InputError);
        data::PackReadOptions o;
        o.verifyChecksum = false;
        compareDatasets(vectorDataset(), readPack(bytes, o));
    }
};

QTEST_GUILESS_MAIN(TestDatasetPack)
#include "tst_DatasetPack.moc"
