// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Datasets larger than the memory budget are refused with the estimate before their payload is
// read (docs/RELIABILITY.md, "Memory"): IDX and .npy from their headers, any loader through
// DatasetBuilder's reserve and growth checks. The budget is set with SETSCOPE_MEMORY_LIMIT so
// that the cases are small; the estimates are checked against hand-computed sizes and against
// the peak memory of really loading the same file.
#include "core/data/Dataset.h"
#include "core/data/IdxLoader.h"
#include "core/data/VectorLoaders.h"
#include "core/util/Memory.h"

#include <QtTest>

#include <zlib.h>

#include <chrono>
#include <cstdlib>
#include <vector>

using namespace setscope;
using namespace setscope::data;

namespace {

class LimitScope {
public:
    explicit LimitScope(const char* value) { ::setenv("SETSCOPE_MEMORY_LIMIT", value, 1); }
    ~LimitScope() { ::unsetenv("SETSCOPE_MEMORY_LIMIT"); }
};

/// A gzip IDX image file of n zero images of 28 x 28, written from the format description.
void writeZeroImages(const QString& path, std::uint32_t n)
{
    std::vector<unsigned char> head{0, 0, 8, 3};
    for (std::uint32_t d : {n, 28u, 28u})
        for (int s = 24; s >= 0; s -= 8)
            head.push_back(static_cast<unsigned char>((d >> s) & 0xff));
    gzFile f = gzopen(path.toStdString().c_str(), "wb1");
    QVERIFY(f);
    gzwrite(f, head.data(), unsigned(head.size()));
    const std::vector<unsigned char> image(28 * 28, 0);
    for (std::uint32_t i = 0; i < n; ++i)
        gzwrite(f, image.data(), unsigned(image.size()));
    gzclose(f);
}

QString refusal(const std::function<void()>& load)
{
    try {
        load();
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestMemoryBudget : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void idxRefusedFromItsHeader();
    void idxEstimateCoversTheRealPeak();
    void npyRefusedBeforeItsPayload();
    void reserveWeighsTheWholeDataset();
    void growthStopsAtTheBudget();

private:
    QTemporaryDir m_dir;
};

void TestMemoryBudget::idxRefusedFromItsHeader()
{
    // 60 000 images of 28 x 28 in a 60 KB gzip file: the header claims 47 MB of pixels.
    const QString dir = m_dir.filePath("idx-big");
    QVERIFY(QDir().mkpath(dir));
    writeZeroImages(dir + "/train-images-idx3-ubyte.gz", 60000);
    const LimitScope limit("100M");
    const std::uint64_t peakBefore = util::peakResidentBytes();
    const auto t0 = std::chrono::steady_clock::now();
    const QString m = refusal([&] {
        DatasetBuilder b(dir.toStdString());
        loadIdx(dir.toStdString(), b);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    QVERIFY2(m.contains(dir) && m.contains("60000 images of 28 x 28") && m.contains("SETSCOPE_MEMORY_LIMIT=100M") &&
                 m.contains("100 MiB"),
             qPrintable(m));
    // By hand: 47 040 000 pixels, each as read, as float32 and as kept pixel (6 bytes), the
    // file's bytes while converted (1 more) and 21 bytes per item: 330 540 000 B = 315 MiB.
    QVERIFY2(m.contains("about 315 MiB"), qPrintable(m));
    QVERIFY2(seconds < 1.0, qPrintable(QString::number(seconds)));
    // Nothing of the payload was allocated.
    QVERIFY(util::peakResidentBytes() < peakBefore + (16 << 20));
}

void TestMemoryBudget::idxEstimateCoversTheRealPeak()
{
    // The same kind of file, 20 000 images, loaded for real: the estimate made from the header
    // is not below what loading takes, and not wildly above it.
    const QString dir = m_dir.filePath("idx-real");
    QVERIFY(QDir().mkpath(dir));
    writeZeroImages(dir + "/train-images-idx3-ubyte.gz", 20000);
    std::uint64_t estimate = 0;
    {
        const LimitScope limit("1K");
        const QString m = refusal([&] {
            DatasetBuilder b(dir.toStdString());
            loadIdx(dir.toStdString(), b);
        });
        const int at = m.indexOf("about ");
        QVERIFY2(at >= 0, qPrintable(m));
        // 20 000 x 784 x 7 + 20 000 x 21 = 110 180 000 B.
        QVERIFY2(m.contains("about 105 MiB"), qPrintable(m));
        estimate = 110180000;
    }
    const std::uint64_t residentBefore = util::residentBytes();
    const std::uint64_t peakBefore = util::peakResidentBytes();
    if (peakBefore > residentBefore + (8 << 20))
        QSKIP("the process peaked earlier above its current size; the peak of this load cannot be isolated");
    DatasetBuilder b(dir.toStdString());
    loadIdx(dir.toStdString(), b);
    const Dataset ds = b.finish();
    QCOMPARE(ds.size(), std::size_t(20000));
    const std::uint64_t used = util::peakResidentBytes() - residentBefore;
    QVERIFY2(estimate >= used && estimate <= 3 * used,
             qPrintable(QString("estimate %1 B, peak growth while loading %2 B").arg(estimate).arg(used)));
}

void TestMemoryBudget::npyRefusedBeforeItsPayload()
{
    const QString path = m_dir.filePath("x.npy");
    std::vector<float> values(1000 * 100, 0.25f);
    writeNpy(path.toStdString(), values.data(), {1000, 100});
    // By hand: 400 000 payload bytes + 100 000 values x (4 as read + 8 in the dataset: value and
    // weight-per-element upper bound) = 1 600 000 B = 1.53 MiB.
    {
        const LimitScope limit("1M");
        const QString m = refusal([&] {
            DatasetBuilder b(path.toStdString());
            loadNpy(path.toStdString(), b);
        });
        QVERIFY2(m.startsWith(path) && m.contains("shape (1000, 100)") && m.contains("about 1.53 MiB"), qPrintable(m));
    }
    {
        const LimitScope limit("2M");
        DatasetBuilder b(path.toStdString());
        loadNpy(path.toStdString(), b);
        QCOMPARE(b.finish().size(), std::size_t(1000));
    }
}

void TestMemoryBudget::reserveWeighsTheWholeDataset()
{
    const LimitScope limit("1G");
    DatasetBuilder b("plugin-file");
    b.setDimension(1000);
    // 10^6 sets of one 1000-d element: 4 GB of values, refused before any is allocated.
    const QString m = refusal([&] { b.reserve(1000000, 1000000); });
    QVERIFY2(m.startsWith("plugin-file: ") && m.contains("1000000 items with 1000000 elements of dimension 1000") &&
                 m.contains("about 3.74 GiB"),
             qPrintable(m));
    // 10 000 of them (40 MB) fit.
    b.reserve(10000, 10000);
}

void TestMemoryBudget::growthStopsAtTheBudget()
{
    const LimitScope limit("64M");
    DatasetBuilder b("endless-loader");
    b.setDimension(1000);
    const std::vector<float> v(1000, 1.0f);
    std::size_t added = 0;
    const QString m = refusal([&] {
        for (;;) {
            b.addItem(v.data(), nullptr, 1, Split::Train);
            ++added;
            QVERIFY(added < 100000); // 400 MB: would mean the check never fired
        }
    });
    QVERIFY2(m.startsWith("endless-loader: ") && m.contains("at item"), qPrintable(m));
    // Refused when the next buffer would pass 64 MiB (16 777 216 floats): the values held then are
    // at most the budget, and at least half of it (the buffer grows by doubling or less).
    QVERIFY2(added * 1000 <= 16777216 && added * 1000 * 2 > 16777216 / 2, qPrintable(QString::number(added)));
}

QTEST_GUILESS_MAIN(TestMemoryBudget)
#include "tst_MemoryBudget.moc"
