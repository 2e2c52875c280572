// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/catalog/DatasetCatalog.h"
#include "core/data/IdxLoader.h"
#include "tests/core/data/AllocationCap.h"

#include <QtTest>

#include <zlib.h>

#include <filesystem>
#include <fstream>

using namespace setscope::data;

namespace {

/// IDX bytes written by hand from the format description (big-endian header).
std::vector<unsigned char> idxBytes(const std::vector<std::uint32_t>& dims, const std::vector<unsigned char>& payload,
                                    unsigned char type = 0x08)
{
    std::vector<unsigned char> b{0, 0, type, static_cast<unsigned char>(dims.size())};
    for (std::uint32_t d : dims)
        for (int s = 24; s >= 0; s -= 8)
            b.push_back(static_cast<unsigned char>((d >> s) & 0xff));
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
}

void writeRaw(const QString& path, const std::vector<unsigned char>& bytes)
{
    std::ofstream f(path.toStdString(), std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

void writeGz(const QString& path, const std::vector<unsigned char>& bytes)
{
    gzFile f = gzopen(path.toStdString().c_str(), "wb");
    gzwrite(f, bytes.data(), unsigned(bytes.size()));
    gzclose(f);
}

/// 3 images of 2x2 with distinct pixel values, labels 7, 0, 9.
std::vector<unsigned char> threeImages() { return idxBytes({3, 2, 2}, {0, 51, 102, 255, 1, 2, 3, 4, 9, 9, 9, 9}); }
std::vector<unsigned char> threeLabels() { return idxBytes({3}, {7, 0, 9}); }

Dataset load(const QString& path)
{
    DatasetBuilder b(path.toStdString());
    loadIdx(path.toStdString(), b);
    return b.finish();
}

QString errorOf(const QString& path)
{
    try {
        load(path);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestIdxLoader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void readsRawAndGzip_data();
    void readsRawAndGzip();
    void folderGivesOfficialSplit();
    void missingLabelsAreUnlabelled();
    void badFiles_data();
    void badFiles();
    void craftedHeaders_data();
    void craftedHeaders();

private:
    QTemporaryDir m_dir;
};

void TestIdxLoader::readsRawAndGzip_data()
{
    QTest::addColumn<bool>("gz");
    QTest::newRow("raw") << false;
    QTest::newRow("gzip") << true;
}

void TestIdxLoader::readsRawAndGzip()
{
    QFETCH(bool, gz);
    const QString sub = m_dir.filePath(gz ? "gz" : "raw");
    QDir().mkpath(sub);
    const QString suffix = gz ? ".gz" : "";
    auto write = gz ? writeGz : writeRaw;
    write(sub + "/train-images-idx3-ubyte" + suffix, threeImages());
    write(sub + "/train-labels-idx1-ubyte" + suffix, threeLabels());
    const Dataset ds = load(sub + "/train-images-idx3-ubyte" + suffix);
    QCOMPARE(ds.size(), std::size_t(3));
    QCOMPARE(ds.dim(), 4);
    QVERIFY(ds.isVectorDataset());
    QCOMPARE(ds.item(0).values[1], 51.0f / 255.0f);
    QCOMPARE(ds.item(0).values[3], 1.0f);
    QCOMPARE(ds.requireLabelSet("fine").labels, (std::vector<std::int32_t>{7, 0, 9}));
    QCOMPARE(ds.requireLabelSet("fine").classNames[7], std::string("7")); // digits: not a fashion path
    QVERIFY(ds.hasImages());
    QCOMPARE(ds.imageFormat().width, 2);
    QCOMPARE(int(ds.image(2)[0]), 9);
    QCOMPARE(ds.split(0), Split::Train);
    QCOMPARE(ds.sourceFiles().size(), std::size_t(2));
}

void TestIdxLoader::folderGivesOfficialSplit()
{
    const QString sub = m_dir.filePath("fashion-mini");
    QDir().mkpath(sub);
    writeGz(sub + "/train-images-idx3-ubyte.gz", threeImages());
    writeGz(sub + "/train-labels-idx1-ubyte.gz", threeLabels());
    writeRaw(sub + "/t10k-images-idx3-ubyte", idxBytes({1, 2, 2}, {5, 6, 7, 8}));
    writeRaw(sub + "/t10k-labels-idx1-ubyte", idxBytes({1}, {3}));
    QVERIFY(looksLikeIdx(sub.toStdString()));
    const Dataset ds = load(sub);
    QCOMPARE(ds.size(), std::size_t(4));
    QCOMPARE(ds.count(Split::Train), std::size_t(3));
    QCOMPARE(ds.count(Split::Test), std::size_t(1));
    QCOMPARE(ds.split(3), Split::Test);
    // "fashion" in the path: Fashion-MNIST's names and the coarse grouping.
    const LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames[9], std::string("Ankle boot"));
    const LabelSet& coarse = ds.requireLabelSet("coarse");
    // labels 7 (Sneaker), 0 (T-shirt), 9 (Ankle boot), 3 (Dress) -> footwear, tops, footwear, bottoms & dresses
    QCOMPARE(coarse.labels, (std::vector<std::int32_t>{2, 0, 2, 1}));
    QCOMPARE(coarse.classNames[2], std::string("footwear"));
}

void TestIdxLoader::missingLabelsAreUnlabelled()
{
    const QString sub = m_dir.filePath("nolabels");
    QDir().mkpath(sub);
    writeRaw(sub + "/t10k-images-idx3-ubyte", threeImages());
    const Dataset ds = load(sub + "/t10k-images-idx3-ubyte");
    QCOMPARE(ds.requireLabelSet("fine").unlabelledCount(), std::size_t(3));
    QCOMPARE(ds.split(0), Split::Test); // t10k = test
    QVERIFY(!ds.notes().empty());
}

void TestIdxLoader::badFiles_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expect");
    QTest::newRow("wrong magic") << 0 << "wrong magic number";
    QTest::newRow("truncated payload") << 1 << "truncated";
    QTest::newRow("truncated gzip") << 2 << "truncated";
    QTest::newRow("trailing bytes") << 3 << "trailing bytes";
    QTest::newRow("count mismatch") << 4 << "holds 2 labels but";
    QTest::newRow("label out of range") << 5 << "outside 0..9";
    QTest::newRow("empty file") << 6 << "too short";
    QTest::newRow("unsupported type") << 7 << "not supported";
}

void TestIdxLoader::badFiles()
{
    QFETCH(int, kind);
    QFETCH(QString, expect);
    const QString sub = m_dir.filePath(QString("bad%1").arg(kind));
    QDir().mkpath(sub);
    const QString img = sub + "/train-images-idx3-ubyte";
    const QString lab = sub + "/train-labels-idx1-ubyte";
    std::vector<unsigned char> images = threeImages();
    std::vector<unsigned char> labels = threeLabels();
    QString broken = img;
    switch (kind) {
    case 0: images[0] = 0x1f; images[1] = 0x8b + 1; break;
    case 1: images.resize(images.size() - 5); break;
    case 2: {
        // A gzip stream cut in the middle: zlib must report it, not return a short array silently.
        const QString tmp = sub + "/full.gz";
        writeGz(tmp, images);
        QFile f(tmp);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray bytes = f.readAll();
        bytes.chop(12);
        std::vector<unsigned char> cut(bytes.begin(), bytes.end());
        writeRaw(img + ".gz", cut);
        writeRaw(lab, labels);
        broken = img + ".gz";
        break;
    }
    case 3: images.push_back(0); break;
    case 4: labels = idxBytes({2}, {1, 2}); broken = lab; break;
    case 5: labels = idxBytes({3}, {1, 12, 2}); broken = lab; break;
    case 6: images.clear(); break;
    case 7: images = idxBytes({3, 2, 2}, std::vector<unsigned char>(48, 0), 0x0D); break;
    }
    if (kind != 2) {
        writeRaw(img, images);
        writeRaw(lab, labels);
    }
    const QString msg = errorOf(kind == 2 ? img + ".gz" : img);
    QVERIFY2(!msg.isEmpty(), "bad file accepted");
    QVERIFY2(msg.contains(expect), qPrintable(msg));
    QVERIFY2(msg.startsWith(broken), qPrintable(msg)); // names the offending file
    if (kind == 1 || kind == 3)
        QVERIFY2(msg.contains("byte offset"), qPrintable(msg));
}

void TestIdxLoader::craftedHeaders_data()
{
    QTest::addColumn<QList<quint32>>("dims");
    QTest::addColumn<int>("payload");
    QTest::addColumn<bool>("gz");
    QTest::addColumn<QString>("expect");
    // (2^28 + 1) * 2^18 * 2^18 = 2^64 + 2^36 wraps to 2^36 = 64 GiB, under the old
    // "implausible size" limit: the reader then asked for 64 GiB (a bare std::bad_alloc).
    const QList<quint32> wraps{268435457u, 262144u, 262144u};
    const QString wrapsMsg = "(byte offset 4): header: dimensions 268435457 x 262144 x 262144 have more elements than "
                             "fit in 64 bits";
    QTest::newRow("dims product wraps 2^64") << wraps << 16 << false << wrapsMsg;
    QTest::newRow("dims product wraps 2^64, gzip") << wraps << 16 << true << wrapsMsg;
    // 10^9 payload bytes promised by a file of a few dozen bytes: refused before allocating.
    QTest::newRow("payload larger than the file")
        << QList<quint32>{100000u, 100u, 100u} << 12 << false
        << "(byte offset 28): truncated: header promises 1000000000 payload bytes, found 12";
    QTest::newRow("payload larger than a gzip file can hold")
        << QList<quint32>{100000u, 100u, 100u} << 12 << true << "more than a gzip file of";
    // No images, so no payload: the rows and columns alone must fit the dimension (an int).
    QTest::newRow("pixels per image beyond int") << QList<quint32>{0u, 65536u, 65536u} << 0 << false
                                                 << "(byte offset 8): header: images of 65536 x 65536 pixels have more than";
    QTest::newRow("rows beyond int") << QList<quint32>{0u, 2147483648u, 1u} << 0 << false
                                     << "(byte offset 8): header: images of 2147483648 x 1 pixels have more than";
    // Within int, but no image to bound them by the file: the pixel buffer of 10 455 x 68 108
    // floats (2.8 GB) was allocated for a 16-byte file (found by the idx fuzz target).
    QTest::newRow("no images, pixels within int") << QList<quint32>{0u, 10455u, 68108u} << 0 << false
                                                  << "(byte offset 4): header: the file holds no images";
}

void TestIdxLoader::craftedHeaders()
{
    QFETCH(QList<quint32>, dims);
    QFETCH(int, payload);
    QFETCH(bool, gz);
    QFETCH(QString, expect);
    const QString sub = m_dir.filePath(QString("crafted-%1").arg(QTest::currentDataTag()).replace(' ', '-'));
    QDir().mkpath(sub);
    const QString img = sub + "/train-images-idx3-ubyte" + (gz ? ".gz" : "");
    const std::vector<unsigned char> bytes =
        idxBytes(std::vector<std::uint32_t>(dims.begin(), dims.end()), std::vector<unsigned char>(std::size_t(payload), 7));
    (gz ? writeGz : writeRaw)(img, bytes);
    QString msg;
    {
        const setscope::testing::AllocationCap cap; // the header's size must not be allocated
        QVERIFY(cap.active());
        msg = errorOf(img);
    }
    QVERIFY2(!msg.isEmpty(), "crafted file accepted");
    QVERIFY2(msg.startsWith(img), qPrintable(msg)); // names the file
    QVERIFY2(msg.contains(expect), qPrintable(msg));
}

QTEST_GUILESS_MAIN(TestIdxLoader)
#include "tst_IdxLoader.moc"
