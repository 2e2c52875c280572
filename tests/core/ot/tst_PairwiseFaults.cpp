// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The pairwise cache when the disk fails: every write (space reservation, header), every
// fsync / msync (header, each block, the mirrored matrix) and the rename failing in turn, and a
// real full disk (a tmpfs, root only). Each time the job fails naming the cache file and the
// cause, another key's complete cache file is byte for byte what it was, no temporary file is
// left, and the next run (the fault cleared) gives every distance as ot::emd computed here.
#include "core/data/Dataset.h"
#include "core/ot/Emd.h"
#include "core/ot/PairwiseMatrix.h"
#include "core/util/Faults.h"

#include "tests/support/Tmpfs.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace setscope;
namespace fs = std::filesystem;
using ot::PairwiseJob;
using ot::PairwiseOptions;
using util::faults::Call;

namespace {

/// `items` sets of 3..8 weighted points in 3-D.
std::shared_ptr<const data::Dataset> randomSets(int items, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> size(3, 8);
    std::uniform_real_distribution<float> weight(0.1f, 1.0f);
    data::DatasetBuilder b("random-sets");
    b.setDimension(3);
    for (int i = 0; i < items; ++i) {
        const int n = size(rng);
        std::vector<float> pts, w;
        for (int e = 0; e < n; ++e) {
            for (int k = 0; k < 3; ++k)
                pts.push_back(static_cast<float>(i % 3) + normal(rng));
            w.push_back(weight(rng));
        }
        b.addItem(pts.data(), w.data(), static_cast<std::size_t>(n), data::Split::Train);
    }
    return std::make_shared<const data::Dataset>(b.finish());
}

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// "" when every entry is ot::emd of the pair (rounded to float), else the first difference.
std::string compareWithEmd(const data::Dataset& ds, const ot::DistanceMatrix& m)
{
    const auto n = static_cast<std::int64_t>(ds.size());
    if (m.size() != n)
        return "matrix of " + std::to_string(m.size()) + " items";
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const float expected =
                i == j ? 0.0f
                       : static_cast<float>(ot::emd(ot::pointSet(ds, static_cast<std::size_t>(i)),
                                                    ot::pointSet(ds, static_cast<std::size_t>(j)), {ot::GroundDistance::Euclidean, false})
                                                .emd);
            if (m.at(i, j) != expected)
                return "entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is " + std::to_string(m.at(i, j)) +
                       ", ot::emd says " + std::to_string(expected);
        }
    return {};
}

/// Temporary files (pairwise-KEY.f32.tmp-PID) in `dir`.
std::vector<std::string> temporaries(const fs::path& dir)
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp") != std::string::npos)
            out.push_back(e.path().filename().string());
    return out;
}

} // namespace

class TestPairwiseFaults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void everyCallFailsInTurn_data();
    void everyCallFailsInTurn();
    void fullDisk();

private:
    /// A complete cache file of another dataset in `dir`; returns its path.
    std::string previousFile(const std::string& dir);
    PairwiseOptions options(const std::string& dir) const
    {
        PairwiseOptions o;
        o.threads = 1; // one order of calls, so "the k-th call" is one place
        o.blockRows = 4;
        o.cacheDir = dir;
        return o;
    }

    QTemporaryDir m_tmp;
    std::shared_ptr<const data::Dataset> m_ds = randomSets(22, 7);
    std::shared_ptr<const data::Dataset> m_other = randomSets(9, 8);
};

void TestPairwiseFaults::initTestCase() { QVERIFY(m_tmp.isValid()); }

std::string TestPairwiseFaults::previousFile(const std::string& dir)
{
    PairwiseJob job(m_other, options(dir));
    if (job.runHere(nullptr) != job::JobStatus::Finished)
        return {};
    return job.cachePath();
}

void TestPairwiseFaults::everyCallFailsInTurn_data()
{
    QTest::addColumn<int>("call");
    QTest::addColumn<int>("nth");
    QTest::addColumn<int>("error");
    QTest::addColumn<QString>("cause");
    // The calls one fresh computation makes on its file, counted through the seam.
    const std::string dir = m_tmp.filePath("count").toStdString();
    const std::string key = PairwiseJob(m_ds, options(dir)).key();
    std::int64_t counts[3] = {0, 0, 0};
    {
        util::faults::Armed counting(Call::Write, 0, 0, key);
        PairwiseJob job(m_ds, options(dir));
        QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
        for (int c = 0; c < 3; ++c)
            counts[c] = util::faults::count(Call(c));
    }
    // fallocate + the header; fsync of the new file + per block (6 of 4 rows) data and header
    // msyncs + the mirrored matrix and the complete flag; the rename into place.
    QCOMPARE(counts[int(Call::Write)], std::int64_t(2));
    QCOMPARE(counts[int(Call::Sync)], std::int64_t(1 + 2 * 6 + 2));
    QCOMPARE(counts[int(Call::Rename)], std::int64_t(1));
    const char* names[3] = {"write", "sync", "rename"};
    for (int c = 0; c < 3; ++c)
        for (std::int64_t k = 1; k <= counts[c]; ++k)
            QTest::addRow("%s %lld ENOSPC", names[c], static_cast<long long>(k))
                << c << int(k) << ENOSPC << "No space left on device";
    QTest::newRow("sync 5 EIO") << int(Call::Sync) << 5 << EIO << "Input/output error";
}

void TestPairwiseFaults::everyCallFailsInTurn()
{
    QFETCH(int, call);
    QFETCH(int, nth);
    QFETCH(int, error);
    QFETCH(QString, cause);
    const std::string dir = m_tmp.filePath(QString("fault-%1-%2-%3").arg(call).arg(nth).arg(error)).toStdString();
    const std::string previous = previousFile(dir);
    QVERIFY(!previous.empty());
    const std::string before = slurp(previous);
    const PairwiseOptions o = options(dir);
    const std::string path = PairwiseJob(m_ds, o).cachePath();
    {
        util::faults::Armed fault(Call(call), nth, error, PairwiseJob(m_ds, o).key());
        PairwiseJob job(m_ds, o);
        QCOMPARE(job.runHere(nullptr), job::JobStatus::Failed);
        QVERIFY(util::faults::fired());
        const QString msg = QString::fromStdString(job.error());
        QVERIFY2(msg.contains(QString::fromStdString(path)), qPrintable(msg));
        QVERIFY2(msg.contains(cause), qPrintable(msg));
    }
    QVERIFY(slurp(previous) == before);
    QCOMPARE(temporaries(dir), std::vector<std::string>{});
    // Before the rename nothing is at the cache path; after it, a file a later run resumes.
    if (Call(call) != Call::Sync)
        QVERIFY(!fs::exists(path));

    PairwiseJob again(m_ds, o);
    QCOMPARE(again.runHere(nullptr), job::JobStatus::Finished);
    QCOMPARE(again.cachePath(), path);
    const std::string err = compareWithEmd(*m_ds, *again.result());
    QVERIFY2(err.empty(), err.c_str());
    QCOMPARE(temporaries(dir), std::vector<std::string>{});
    QVERIFY(slurp(previous) == before);
}

void TestPairwiseFaults::fullDisk()
{
    testutil::Tmpfs disk(256 * 1024);
    if (!disk.ok())
        QSKIP(disk.reason());
    const std::string dir = (disk.path() / "cache").string();
    const std::string previous = previousFile(dir);
    QVERIFY(!previous.empty());
    const std::string before = slurp(previous);
    QVERIFY(disk.fill());
    const PairwiseOptions o = options(dir);
    {
        PairwiseJob job(m_ds, o);
        QCOMPARE(job.runHere(nullptr), job::JobStatus::Failed);
        const QString msg = QString::fromStdString(job.error());
        QVERIFY2(msg.contains(QString::fromStdString(job.cachePath())), qPrintable(msg));
        QVERIFY2(msg.contains("No space left on device"), qPrintable(msg));
        QVERIFY(!fs::exists(job.cachePath()));
    }
    QVERIFY(slurp(previous) == before);
    QCOMPARE(temporaries(dir), std::vector<std::string>{});
    disk.release();
    PairwiseJob again(m_ds, o);
    QCOMPARE(again.runHere(nullptr), job::JobStatus::Finished);
    const std::string err = compareWithEmd(*m_ds, *again.result());
    QVERIFY2(err.empty(), err.c_str());
}

QTEST_GUILESS_MAIN(TestPairwiseFaults)
#include "tst_PairwiseFaults.moc"
