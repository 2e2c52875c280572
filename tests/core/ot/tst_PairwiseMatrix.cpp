// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/ot/Chamfer.h"
#include "core/ot/Emd.h"
#include "core/ot/PairwiseMatrix.h"
#include "tests/support/TimeFactor.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

using namespace setscope;
using data::Dataset;
using ot::DistanceMatrix;
using ot::PairwiseJob;
using ot::PairwiseOptions;
using ot::SetDistance;
using job::JobStatus;

namespace {

// The larger dataset of the kill and cancel tests: 256 sets of 44 points in 16-D (32 640
// pairs, 64 blocks; about a second on 2 threads).
constexpr const char* kBigSpec = "dim=16,coarse=4,fine=4,points=16,set=44,seed=11";

// Header offsets documented in docs/OT_PAIRWISE.md.
constexpr qint64 kKeyOffset = 48;
constexpr qint64 kCompleteOffset = 104;

std::string str(const QString& s) { return s.toStdString(); }

/// `items` sets of 3..12 points around 4 cluster centres in `dim` dimensions, with random
/// positive weights (so total masses differ between sets).
std::shared_ptr<const Dataset> randomSets(int items, int dim, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> size(3, 12);
    std::uniform_real_distribution<float> weight(0.1f, 1.0f);
    std::vector<float> centres(static_cast<std::size_t>(4 * dim));
    for (float& c : centres)
        c = 4.0f * normal(rng);
    data::DatasetBuilder b("random-sets");
    b.setDimension(dim);
    for (int i = 0; i < items; ++i) {
        const int n = size(rng);
        const int c = i % 4;
        std::vector<float> pts, w;
        for (int e = 0; e < n; ++e) {
            for (int k = 0; k < dim; ++k)
                pts.push_back(centres[static_cast<std::size_t>(c * dim + k)] + normal(rng));
            w.push_back(weight(rng));
        }
        b.addItem(pts.data(), w.data(), static_cast<std::size_t>(n), data::Split::Train);
    }
    return std::make_shared<const Dataset>(b.finish());
}

std::shared_ptr<const Dataset> bigDataset()
{
    return std::make_shared<const Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse(kBigSpec)));
}

class RecordingSink final : public job::ProgressSink {
public:
    void progress(std::int64_t done, std::int64_t total, const std::string&) override
    {
        std::lock_guard lock(m_mutex);
        calls.emplace_back(done, total);
    }
    void message(const std::string& text) override
    {
        std::lock_guard lock(m_mutex);
        messages.push_back(text);
    }
    void finished(JobStatus s, const std::string& d) override
    {
        std::lock_guard lock(m_mutex);
        status = s;
        detail = d;
        ++finishedCalls;
    }

    std::vector<std::pair<std::int64_t, std::int64_t>> calls;
    std::vector<std::string> messages;
    JobStatus status = JobStatus::Idle;
    std::string detail;
    int finishedCalls = 0;

private:
    std::mutex m_mutex;
};

struct Run {
    JobStatus status = JobStatus::Idle;
    std::string error;
    std::string path;
    std::int64_t reused = 0;
    std::int64_t blocks = 0;
    std::int64_t computed = 0;
    std::shared_ptr<const DistanceMatrix> matrix;
};

Run runJob(std::shared_ptr<const Dataset> ds, const PairwiseOptions& o, job::ProgressSink* sink = nullptr)
{
    PairwiseJob job(std::move(ds), o);
    Run r;
    r.status = job.runHere(sink);
    r.error = job.error();
    r.path = job.cachePath();
    r.reused = job.blocksReused();
    r.blocks = job.blockCount();
    r.computed = job.pairsComputed();
    r.matrix = job.result();
    return r;
}

QByteArray readAll(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

bool writeAll(const std::string& path, const QByteArray& bytes)
{
    QFile f(QString::fromStdString(path));
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

std::int64_t pairsOfRows(std::int64_t n, std::int64_t r0, std::int64_t r1)
{
    std::int64_t p = 0;
    for (std::int64_t i = r0; i < r1; ++i)
        p += n - 1 - i;
    return p;
}

std::int64_t donePairs(const ot::PairwiseFileInfo& info)
{
    std::int64_t p = 0;
    for (std::size_t b = 0; b < info.blockDone.size(); ++b)
        if (info.blockDone[b])
            p += pairsOfRows(info.n, info.blockStarts[b], info.blockStarts[b + 1]);
    return p;
}

std::int64_t doneBlocks(const ot::PairwiseFileInfo& info)
{
    return std::count(info.blockDone.begin(), info.blockDone.end(), true);
}

/// Every entry against ot::emd / ot::chamfer computed here, pair by pair (rounded to float
/// the same way); symmetry bit for bit; zero diagonal. "" when all is well.
std::string compareWithReference(const Dataset& ds, const DistanceMatrix& m, const PairwiseOptions& o)
{
    const auto n = static_cast<std::int64_t>(ds.size());
    if (m.size() != n)
        return "matrix size " + std::to_string(m.size()) + ", expected " + std::to_string(n);
    for (std::int64_t i = 0; i < n; ++i) {
        if (m.at(i, i) != 0.0f)
            return "diagonal entry " + std::to_string(i) + " is " + std::to_string(m.at(i, i));
        const ot::PointSet a = ot::pointSet(ds, static_cast<std::size_t>(i));
        for (std::int64_t j = i + 1; j < n; ++j) {
            const ot::PointSet b = ot::pointSet(ds, static_cast<std::size_t>(j));
            const double ref = o.distance == SetDistance::Emd
                                   ? ot::emd(a, b, {o.ground, false}).emd
                                   : ot::chamfer(a, b, {o.ground, o.chamferWeighted});
            const float expected = static_cast<float>(ref);
            if (m.at(i, j) != expected)
                return "entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
                       std::to_string(m.at(i, j)) + ", the reference says " + std::to_string(expected);
            if (std::memcmp(m.row(i) + j, m.row(j) + i, sizeof(float)) != 0)
                return "entries (" + std::to_string(i) + ", " + std::to_string(j) + ") and its mirror differ";
        }
    }
    return {};
}

} // namespace

class TestPairwiseMatrix : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void distanceNames();
    void blockLayoutBalancesPairs();
    void matchesReference_data();
    void matchesReference();
    void tinyDatasets();
    void threadCountDoesNotChangeTheFile();
    void finishedMatrixIsReused();
    void keyFollowsDatasetDistanceAndOptions();
    void concurrentJobsShareOneComputation();
    void resumesAfterKill();
    void damagedFileIsNotTrusted_data();
    void damagedFileIsNotTrusted();
    void cancelIsPromptAndResumable();
    void cancelReachesAPairInProgress();
    void badItemFailsNamingIt_data();
    void badItemFailsNamingIt();
    void diskErrorNamesTheFile();
    void defaultCacheDirectory();

private:
    std::string dir(const QString& name) const { return str(m_tmp.filePath(name)); }
    /// The complete EMD cache file of the big dataset, computed once without interruption.
    const QByteArray& bigReference();

    QTemporaryDir m_tmp;
    QByteArray m_bigReference;
};

void TestPairwiseMatrix::initTestCase() { QVERIFY(m_tmp.isValid()); }

const QByteArray& TestPairwiseMatrix::bigReference()
{
    if (m_bigReference.isEmpty()) {
        PairwiseOptions o;
        o.cacheDir = dir("big-reference");
        o.threads = 2;
        QElapsedTimer t;
        t.start();
        const Run r = runJob(bigDataset(), o);
        if (r.status == JobStatus::Finished)
            m_bigReference = readAll(r.path);
        qInfo("big reference: %lld pairs in %lld ms on 2 threads", static_cast<long long>(r.computed),
              static_cast<long long>(t.elapsed()));
    }
    return m_bigReference;
}

void TestPairwiseMatrix::distanceNames()
{
    for (SetDistance d : {SetDistance::Emd, SetDistance::Chamfer})
        QCOMPARE(ot::parseSetDistance(ot::setDistanceName(d)), d);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ot::parseSetDistance("sinkhorn"));
}

void TestPairwiseMatrix::blockLayoutBalancesPairs()
{
    QCOMPARE(ot::pairwiseBlocks(0, 0), std::vector<std::int64_t>{0});
    QCOMPARE(ot::pairwiseBlocks(1, 0), std::vector<std::int64_t>{0});
    QCOMPARE(ot::pairwiseBlocks(2, 0), (std::vector<std::int64_t>{0, 1}));
    QCOMPARE(ot::pairwiseBlocks(10, 4), (std::vector<std::int64_t>{0, 4, 8, 9}));

    // Automatic: cut by pair counts, so top blocks (long rows j > i) span fewer rows.
    for (std::int64_t n : {10, 37, 192, 737, 3000}) {
        const auto b = ot::pairwiseBlocks(n, 0);
        QCOMPARE(b.front(), std::int64_t(0));
        QCOMPARE(b.back(), n - 1);
        const auto k = static_cast<std::int64_t>(b.size() - 1);
        const std::int64_t pairs = n * (n - 1) / 2;
        // About 2 048 pairs per block, and enough blocks for resume and for the threads.
        QVERIFY2(k >= std::min<std::int64_t>(pairs / 4096, n - 1) && k >= std::min<std::int64_t>(32, n / 2),
                 qPrintable(QStringLiteral("n %1: %2 blocks").arg(n).arg(k)));
        const double target = static_cast<double>(pairs) / static_cast<double>(std::max<std::int64_t>(
                                                                 std::min<std::int64_t>(64, n - 1), (pairs + 2047) / 2048));
        for (std::int64_t t = 0; t < k; ++t) {
            QVERIFY(b[t + 1] > b[t]);
            const auto p = static_cast<double>(pairsOfRows(n, b[t], b[t + 1]));
            // A block misses its share by less than one row (or is a single row longer than the
            // share); the last block takes the remainder.
            const double row = static_cast<double>(n - 1 - b[t]);
            const bool last = t + 1 == k;
            QVERIFY2((last ? p < target + row : std::abs(p - target) < row) || b[t + 1] - b[t] == 1,
                     qPrintable(QStringLiteral("n %1, block %2: %3 pairs, target %4").arg(n).arg(t).arg(p).arg(target)));
        }
        QVERIFY(b[1] - b[0] < b[k] - b[k - 1]); // the first block has fewer rows than the last
    }
}

void TestPairwiseMatrix::matchesReference_data()
{
    QTest::addColumn<int>("distance");
    QTest::addColumn<int>("ground");
    QTest::addColumn<bool>("weighted");
    QTest::addColumn<int>("threads");
    QTest::newRow("emd euclidean") << int(SetDistance::Emd) << int(ot::GroundDistance::Euclidean) << true << 2;
    QTest::newRow("emd sqeuclidean") << int(SetDistance::Emd) << int(ot::GroundDistance::SquaredEuclidean) << true << 2;
    QTest::newRow("emd cosine 1 thread") << int(SetDistance::Emd) << int(ot::GroundDistance::Cosine) << true << 1;
    QTest::newRow("chamfer weighted") << int(SetDistance::Chamfer) << int(ot::GroundDistance::Euclidean) << true << 2;
    QTest::newRow("chamfer unweighted sq") << int(SetDistance::Chamfer) << int(ot::GroundDistance::SquaredEuclidean)
                                           << false << 2;
}

void TestPairwiseMatrix::matchesReference()
{
    QFETCH(int, distance);
    QFETCH(int, ground);
    QFETCH(bool, weighted);
    QFETCH(int, threads);
    const auto ds = randomSets(37, 5, 1234);
    PairwiseOptions o;
    o.distance = static_cast<SetDistance>(distance);
    o.ground = static_cast<ot::GroundDistance>(ground);
    o.chamferWeighted = weighted;
    o.threads = threads;
    o.cacheDir = dir(QStringLiteral("reference-%1").arg(QTest::currentDataTag()));
    RecordingSink sink;
    const Run r = runJob(ds, o, &sink);
    QVERIFY2(r.status == JobStatus::Finished, r.error.c_str());
    QCOMPARE(sink.finishedCalls, 1);
    QCOMPARE(sink.status, JobStatus::Finished);
    QVERIFY(r.matrix);
    const std::int64_t total = 37 * 36 / 2;
    QCOMPARE(r.computed, total);
    QCOMPARE(r.reused, std::int64_t(0));
    QCOMPARE(r.blocks, static_cast<std::int64_t>(ot::pairwiseBlocks(37, 0).size() - 1));
    const std::string err = compareWithReference(*ds, *r.matrix, o);
    QVERIFY2(err.empty(), err.c_str());

    // Progress in pairs: monotone, ending at the total.
    QVERIFY(!sink.calls.empty());
    for (std::size_t c = 0; c < sink.calls.size(); ++c) {
        QCOMPARE(sink.calls[c].second, total);
        if (c > 0)
            QVERIFY(sink.calls[c].first >= sink.calls[c - 1].first);
    }
    QCOMPARE(sink.calls.back().first, total);

    // The file on disk: named by the key, complete, readable on its own.
    QCOMPARE(r.path, (std::filesystem::path(o.cacheDir) / ("pairwise-" + r.matrix->key() + ".f32")).string());
    const auto info = ot::inspectPairwiseFile(r.path);
    QVERIFY(info.complete);
    QCOMPARE(doneBlocks(info), r.blocks);
    QCOMPARE(info.dataOffset % 4096, std::int64_t(0));
    QCOMPARE(QFileInfo(QString::fromStdString(r.path)).size(), info.dataOffset + 37 * 37 * 4);
    const auto again = DistanceMatrix::open(r.path);
    QCOMPARE(again->size(), std::int64_t(37));
    QVERIFY(std::memcmp(again->row(0), r.matrix->row(0), 37 * 37 * sizeof(float)) == 0);
    // No temporary file is left behind.
    const QStringList left = QDir(QString::fromStdString(o.cacheDir)).entryList(QDir::Files);
    for (const QString& f : left)
        QVERIFY2(!f.contains(QLatin1String(".tmp")), qPrintable(f));
}

void TestPairwiseMatrix::tinyDatasets()
{
    PairwiseOptions o;
    o.cacheDir = dir("tiny");
    const Run empty = runJob(std::make_shared<const Dataset>(), o);
    QVERIFY2(empty.status == JobStatus::Finished, empty.error.c_str());
    QCOMPARE(empty.matrix->size(), std::int64_t(0));
    QCOMPARE(empty.blocks, std::int64_t(0));

    for (int items : {1, 2}) {
        const auto ds = randomSets(items, 3, 99);
        const Run r = runJob(ds, o);
        QVERIFY2(r.status == JobStatus::Finished, r.error.c_str());
        const std::string err = compareWithReference(*ds, *r.matrix, o);
        QVERIFY2(err.empty(), err.c_str());
    }
}

void TestPairwiseMatrix::threadCountDoesNotChangeTheFile()
{
    const auto ds = randomSets(41, 6, 77);
    PairwiseOptions o1;
    o1.cacheDir = dir("threads-1");
    o1.threads = 1;
    PairwiseOptions o2 = o1;
    o2.cacheDir = dir("threads-2");
    o2.threads = 2;
    const Run r1 = runJob(ds, o1);
    const Run r2 = runJob(ds, o2);
    QVERIFY2(r1.status == JobStatus::Finished, r1.error.c_str());
    QVERIFY2(r2.status == JobStatus::Finished, r2.error.c_str());
    QCOMPARE(QFileInfo(QString::fromStdString(r1.path)).fileName(), QFileInfo(QString::fromStdString(r2.path)).fileName());
    const QByteArray a = readAll(r1.path);
    QVERIFY(!a.isEmpty());
    QVERIFY(a == readAll(r2.path));
}

void TestPairwiseMatrix::finishedMatrixIsReused()
{
    const auto ds = randomSets(30, 4, 5);
    PairwiseOptions o;
    o.cacheDir = dir("reuse");
    o.threads = 2;
    const Run first = runJob(ds, o);
    QVERIFY2(first.status == JobStatus::Finished, first.error.c_str());
    QCOMPARE(first.computed, std::int64_t(30 * 29 / 2));
    const QByteArray bytes = readAll(first.path);

    // Thread count and block size do not enter the key; the file's own layout is kept.
    o.threads = 1;
    o.blockRows = 7;
    RecordingSink sink;
    const Run second = runJob(ds, o, &sink);
    QVERIFY2(second.status == JobStatus::Finished, second.error.c_str());
    QCOMPARE(second.path, first.path);
    QCOMPARE(second.blocks, first.blocks);
    QCOMPARE(second.reused, second.blocks);
    QCOMPARE(second.computed, std::int64_t(0));
    QVERIFY(!sink.calls.empty());
    QCOMPARE(sink.calls.front().first, sink.calls.front().second); // done from the start
    QVERIFY(readAll(second.path) == bytes);
    const std::string err = compareWithReference(*ds, *second.matrix, o);
    QVERIFY2(err.empty(), err.c_str());
}

void TestPairwiseMatrix::keyFollowsDatasetDistanceAndOptions()
{
    const auto ds = randomSets(24, 4, 21);
    PairwiseOptions base;
    base.cacheDir = dir("keys");
    base.threads = 2;
    const Run r0 = runJob(ds, base);
    QVERIFY2(r0.status == JobStatus::Finished, r0.error.c_str());

    const auto expectNewKey = [&](std::shared_ptr<const Dataset> d, const PairwiseOptions& o, const char* what) {
        const Run r = runJob(d, o);
        QVERIFY2(r.status == JobStatus::Finished, r.error.c_str());
        QVERIFY2(r.path != r0.path, what);
        QVERIFY2(r.computed == static_cast<std::int64_t>(d->size() * (d->size() - 1) / 2), what);
        QCOMPARE(r.reused, std::int64_t(0));
        const std::string err = compareWithReference(*d, *r.matrix, o);
        QVERIFY2(err.empty(), err.c_str());
        QVERIFY(QFile::exists(QString::fromStdString(r0.path))); // the other entry stays
    };
    expectNewKey(randomSets(24, 4, 22), base, "other dataset content");
    PairwiseOptions o = base;
    o.ground = ot::GroundDistance::SquaredEuclidean;
    expectNewKey(ds, o, "other ground distance");
    o = base;
    o.distance = SetDistance::Chamfer;
    expectNewKey(ds, o, "chamfer instead of emd");
    o.chamferWeighted = false;
    expectNewKey(ds, o, "unweighted chamfer");

    // A change of one value in one set is a change of the dataset (rebuilt, as datasets
    // are immutable once built).
    {
        setscope::data::DatasetBuilder b("edited");
        b.setDimension(ds->dim());
        for (std::size_t i = 0; i < ds->size(); ++i) {
            const setscope::data::ItemView it = ds->item(i);
            std::vector<float> v(it.values, it.values + it.count * static_cast<std::size_t>(it.dim));
            if (i == 0)
                v[5 % v.size()] += 0.5f;
            b.addItem(v.data(), it.weights, it.count, ds->split(i));
        }
        expectNewKey(std::make_shared<const Dataset>(b.finish()), base, "one value changed");
    }

    // Options that do not change the values keep the key.
    o = base;
    o.chamferWeighted = false; // EMD ignores it
    o.threads = 1;
    o.blockRows = 3;
    const Run same = runJob(ds, o);
    QCOMPARE(same.path, r0.path);
    QCOMPARE(same.computed, std::int64_t(0));
    QCOMPARE(same.reused, same.blocks);
    QCOMPARE(PairwiseJob(ds, base).key(), same.matrix->key());
}

void TestPairwiseMatrix::concurrentJobsShareOneComputation()
{
    const auto ds = randomSets(48, 8, 31);
    PairwiseOptions o;
    o.cacheDir = dir("concurrent");
    o.threads = 1;
    PairwiseJob a(ds, o), b(ds, o);
    a.start(nullptr);
    b.start(nullptr);
    a.wait();
    b.wait();
    QCOMPARE(a.status(), JobStatus::Finished);
    QCOMPARE(b.status(), JobStatus::Finished);
    // The key's lock lets one compute; the other then finds the finished file.
    QCOMPARE(a.pairsComputed() + b.pairsComputed(), std::int64_t(48 * 47 / 2));
    QVERIFY(std::memcmp(a.result()->row(0), b.result()->row(0), 48 * 48 * sizeof(float)) == 0);
}

void TestPairwiseMatrix::resumesAfterKill()
{
    const QByteArray& reference = bigReference();
    QVERIFY(!reference.isEmpty());
    const auto ds = bigDataset();
    PairwiseOptions o;
    o.cacheDir = dir("kill");
    o.threads = 2;
    const std::string path = PairwiseJob(ds, o).cachePath();
    const std::int64_t n = static_cast<std::int64_t>(ds->size());
    const std::int64_t total = n * (n - 1) / 2;

    // The child holds (pauses its job) at its first report of ≥ 60 % of the pairs, so the kill
    // below finds it unfinished however late this process gets to it. The kill is aimed at
    // ≥ 35 % plus a random 0–30 ms: usually the child is still computing, and then the kill
    // can land anywhere, e.g. between a block's data and its bit; when it is already held
    // the test is still valid, only less varied.
    QProcess child;
    child.start(QStringLiteral(PAIRWISE_CHILD), {QString::fromStdString(o.cacheDir), QLatin1String(kBigSpec), "2",
                                                 QString::number(total * 60 / 100)});
    QVERIFY2(child.waitForStarted(), qPrintable(child.errorString()));
    QByteArray out;
    std::int64_t reported = 0;
    QElapsedTimer timer; // a generous timeout on the condition, not a time limit on the child
    timer.start();
    while (reported < total * 35 / 100 && child.state() == QProcess::Running &&
           timer.elapsed() < setscope::testing::scaledMs(60000)) {
        child.waitForReadyRead(20);
        out += child.readAllStandardOutput();
        const qsizetype end = out.lastIndexOf('\n');
        if (end > 0) // the last complete line
            reported = out.left(end).mid(out.lastIndexOf('\n', end - 1) + 1).split(' ').front().toLongLong();
    }
    QVERIFY2(reported >= total * 35 / 100, child.readAllStandardError().constData());
    const int delayUs = static_cast<int>(QRandomGenerator::global()->bounded(30000));
    QThread::usleep(delayUs);
    child.kill(); // SIGKILL: no destructor, no unmap, possibly between a block's data and its bit
    QVERIFY(child.waitForFinished(setscope::testing::scaledMs(60000)));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);

    const auto info = ot::inspectPairwiseFile(path);
    QVERIFY(!info.complete);
    const std::int64_t doneBefore = doneBlocks(info);
    qInfo("killed after %lld of %lld pairs reported (+%d us): %lld of %zu blocks marked done",
          static_cast<long long>(reported), static_cast<long long>(total), delayUs, static_cast<long long>(doneBefore),
          info.blockDone.size());
    QVERIFY(doneBefore > 0);
    QVERIFY(doneBefore < static_cast<std::int64_t>(info.blockDone.size()));

    const Run r = runJob(ds, o);
    QVERIFY2(r.status == JobStatus::Finished, r.error.c_str());
    QCOMPARE(r.reused, doneBefore);
    QCOMPARE(r.computed, total - donePairs(info)); // only the blocks not marked done
    QVERIFY2(readAll(path) == reference, "the resumed file differs from an uninterrupted computation");
}

void TestPairwiseMatrix::damagedFileIsNotTrusted_data()
{
    // expect: 0 = recreated from scratch, 1 = one block recomputed, 2 = no pair recomputed
    QTest::addColumn<QString>("damage");
    QTest::addColumn<int>("expect");
    QTest::newRow("bad magic") << "magic" << 0;
    QTest::newRow("key byte changed") << "key" << 0;
    QTest::newRow("another dataset's file") << "foreign" << 0;
    QTest::newRow("truncated by 4 bytes") << "truncate" << 0;
    QTest::newRow("shorter than a header") << "short" << 0;
    QTest::newRow("empty file") << "empty" << 0;
    QTest::newRow("value in a done block") << "value" << 1;
    QTest::newRow("bit set, data missing") << "missing" << 1;
    QTest::newRow("lower triangle") << "lower" << 2;
    QTest::newRow("complete flag cleared") << "incomplete" << 2;
}

void TestPairwiseMatrix::damagedFileIsNotTrusted()
{
    QFETCH(QString, damage);
    QFETCH(int, expect);
    const auto ds = randomSets(40, 5, 8);
    PairwiseOptions o;
    o.cacheDir = dir("damage-" + damage);
    o.threads = 2;
    const Run good = runJob(ds, o);
    QVERIFY2(good.status == JobStatus::Finished, good.error.c_str());
    const QByteArray bytes = readAll(good.path);
    const auto info = ot::inspectPairwiseFile(good.path);
    const std::int64_t n = 40, total = n * (n - 1) / 2;
    const std::int64_t block = 3;
    const std::int64_t r0 = info.blockStarts[block], r1 = info.blockStarts[block + 1];

    QByteArray bad = bytes;
    const auto floatAt = [&](std::int64_t i, std::int64_t j) {
        return info.dataOffset + (i * n + j) * static_cast<qint64>(sizeof(float));
    };
    if (damage == "magic") {
        bad[0] = 'X';
    } else if (damage == "key") {
        bad[kKeyOffset] = bad[kKeyOffset] == 'a' ? 'b' : 'a';
    } else if (damage == "foreign") {
        PairwiseOptions other = o;
        other.cacheDir = dir("damage-foreign-source");
        const Run r = runJob(randomSets(40, 5, 9), other);
        QVERIFY2(r.status == JobStatus::Finished, r.error.c_str());
        bad = readAll(r.path);
    } else if (damage == "truncate") {
        bad.chop(4);
    } else if (damage == "short") {
        bad.truncate(100);
    } else if (damage == "empty") {
        bad.clear();
    } else if (damage == "value") {
        float v;
        std::memcpy(&v, bad.constData() + floatAt(r0, r0 + 1), sizeof v);
        v += 1.0f;
        std::memcpy(bad.data() + floatAt(r0, r0 + 1), &v, sizeof v);
    } else if (damage == "missing") {
        // As after a crash that kept the bit but lost the data pages: the upper triangle of
        // the block is zero, the complete flag is not set.
        for (std::int64_t i = r0; i < r1; ++i)
            std::memset(bad.data() + floatAt(i, i + 1), 0, static_cast<std::size_t>(n - 1 - i) * sizeof(float));
        std::memset(bad.data() + kCompleteOffset, 0, 4);
    } else if (damage == "lower") {
        std::memset(bad.data() + floatAt(n - 1, 2), 0x7f, sizeof(float));
    } else if (damage == "incomplete") {
        std::memset(bad.data() + kCompleteOffset, 0, 4);
    }
    // Before the damage, the cache lookup of the trainer (findCachedMatrix) takes the file;
    // after it, it refuses every damaged variant and says why, without repairing anything.
    {
        std::string why;
        const auto m = ot::findCachedMatrix(*ds, o, &why);
        QVERIFY2(m, why.c_str());
        QCOMPARE(why, "using " + good.path);
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j)
                QCOMPARE(m->at(i, j), good.matrix->at(i, j));
    }
    QVERIFY(bad != bytes);
    QVERIFY(writeAll(good.path, bad));
    {
        std::string why;
        QVERIFY(!ot::findCachedMatrix(*ds, o, &why));
        QVERIFY2(why.find(good.path) != std::string::npos, why.c_str());
        const std::map<QString, std::string> reason{{"value", "checksum"}, {"incomplete", "interrupted"},
                                                    {"missing", "interrupted"}, {"lower", "not symmetric"},
                                                    {"magic", "bad magic"}, {"truncate", "truncated"}};
        if (reason.count(damage))
            QVERIFY2(why.find(reason.at(damage)) != std::string::npos, why.c_str());
        QVERIFY2(readAll(good.path) == bad, "the lookup changed the file");
    }

    const Run r = runJob(ds, o);
    QVERIFY2(r.status == JobStatus::Finished, r.error.c_str());
    QCOMPARE(r.path, good.path);
    switch (expect) {
    case 0:
        QCOMPARE(r.reused, std::int64_t(0));
        QCOMPARE(r.computed, total);
        break;
    case 1:
        QCOMPARE(r.reused, r.blocks - 1);
        QCOMPARE(r.computed, pairsOfRows(n, r0, r1));
        break;
    default:
        QCOMPARE(r.reused, r.blocks);
        QCOMPARE(r.computed, std::int64_t(0));
    }
    QVERIFY2(readAll(good.path) == bytes, "the repaired file differs from the original");
    const std::string err = compareWithReference(*ds, *r.matrix, o);
    QVERIFY2(err.empty(), err.c_str());
}

namespace {

/// Pauses, resumes and cancels a job from inside its progress reports (the job's own
/// thread), so that each happens at a known pair count instead of after a sleep.
class SteeringSink final : public job::ProgressSink {
public:
    enum class Step { Running, Paused, Resumed, Cancelled };

    SteeringSink(PairwiseJob& job, std::int64_t cancelAt, std::int64_t threads)
        : m_job(job)
        , m_cancelAt(cancelAt)
        , m_threads(threads)
    {
    }

    void progress(std::int64_t done, std::int64_t, const std::string&) override
    {
        std::lock_guard lock(m_mutex);
        if (m_step == Step::Running && done > 0) {
            m_job.pause();
            m_pausedAt = m_job.pairsComputed(); // read after the pause is set
            m_step = Step::Paused;
        } else if (m_step == Step::Resumed && done >= m_cancelAt && done > m_pausedAt + m_threads) {
            // More pairs than the paused workers could have finished: they resumed.
            m_job.cancel();
            m_cancelledAt = m_job.pairsComputed(); // read after the cancel is set
            m_step = Step::Cancelled;
        }
    }

    Step step() const
    {
        std::lock_guard lock(m_mutex);
        return m_step;
    }
    std::int64_t pausedAt() const
    {
        std::lock_guard lock(m_mutex);
        return m_pausedAt;
    }
    std::int64_t cancelledAt() const
    {
        std::lock_guard lock(m_mutex);
        return m_cancelledAt;
    }
    void resume()
    {
        std::lock_guard lock(m_mutex);
        m_step = Step::Resumed;
        m_job.resume();
    }

private:
    PairwiseJob& m_job;
    const std::int64_t m_cancelAt, m_threads;
    mutable std::mutex m_mutex;
    Step m_step = Step::Running;
    std::int64_t m_pausedAt = 0, m_cancelledAt = 0;
};

/// Signals its first progress report (the job reports before it starts its workers).
class FirstReportSink final : public job::ProgressSink {
public:
    void progress(std::int64_t, std::int64_t, const std::string&) override { reported = true; }
    std::atomic<bool> reported{false};
};

} // namespace

void TestPairwiseMatrix::cancelIsPromptAndResumable()
{
    const QByteArray& reference = bigReference();
    QVERIFY(!reference.isEmpty());
    const auto ds = bigDataset();
    const std::int64_t n = static_cast<std::int64_t>(ds->size());
    const std::int64_t total = n * (n - 1) / 2;
    PairwiseOptions o;
    o.cacheDir = dir("cancel");
    o.threads = 2;
    std::string path;
    {
        PairwiseJob job(ds, o);
        path = job.cachePath();
        // Pause at the first report with pairs done; cancel at the first report after the
        // resume with ≥ 25 % of the pairs (so that some blocks are complete) and more pairs
        // than the pause let through.
        SteeringSink sink(job, total / 4, o.threads);
        job.start(&sink);
        QTRY_VERIFY_WITH_TIMEOUT(sink.step() == SteeringSink::Step::Paused || !job.running(), 60000);
        QVERIFY2(sink.step() == SteeringSink::Step::Paused, "the job ended before its first progress report");

        // Paused: each worker finishes at most the pair it is in (and its solve, which polls
        // the pause too, stops inside it). The bound holds however long we look; the wait
        // only gives unpaused workers (a bug) time to show.
        const std::int64_t pausedAt = sink.pausedAt();
        QTest::qWait(300);
        QVERIFY2(job.pairsComputed() <= pausedAt + o.threads,
                 qPrintable(QString("%1 pairs at the pause, %2 now").arg(pausedAt).arg(job.pairsComputed())));
        QVERIFY(job.running());

        sink.resume();
        QTRY_VERIFY_WITH_TIMEOUT(!job.running(), 60000);
        job.wait();
        QVERIFY2(sink.step() == SteeringSink::Step::Cancelled, "the job finished before the cancel");
        QCOMPARE(job.status(), JobStatus::Cancelled);
        QVERIFY(!job.result());
        // After the cancel, at most the pairs in progress completed.
        qInfo("paused at %lld pairs, cancelled at %lld, %lld computed in the end", static_cast<long long>(pausedAt),
              static_cast<long long>(sink.cancelledAt()), static_cast<long long>(job.pairsComputed()));
        QVERIFY(job.pairsComputed() <= sink.cancelledAt() + o.threads);
    }
    const auto info = ot::inspectPairwiseFile(path);
    QVERIFY(!info.complete);
    const std::int64_t doneBefore = doneBlocks(info);
    QVERIFY(doneBefore > 0);

    const Run r = runJob(ds, o);
    QVERIFY2(r.status == JobStatus::Finished, r.error.c_str());
    QCOMPARE(r.reused, doneBefore);
    QCOMPARE(r.computed, total - donePairs(info));
    QVERIFY2(readAll(path) == reference, "the resumed file differs from an uninterrupted computation");
}

void TestPairwiseMatrix::cancelReachesAPairInProgress()
{
    // One pair whose EMD takes seconds without a poll inside the solve (two sets of 2 000
    // equal-weight points on a 4 x 4 grid: 2 000 component joins over a 2 000 x 2 000
    // matrix) and milliseconds between polls with one. Cancel after the job's first report
    // (sent just before the workers start): whether it lands before the pair or inside its
    // solve, the pair must never complete. The short wait only makes "inside" likely.
    std::mt19937_64 rng(21);
    data::DatasetBuilder b("slow-pair");
    b.setDimension(2);
    for (int item = 0; item < 2; ++item) {
        std::vector<float> x;
        for (int e = 0; e < 4000; ++e)
            x.push_back(static_cast<float>(rng() % 4));
        b.addItem(x.data(), nullptr, 2000, data::Split::Train);
    }
    const auto ds = std::make_shared<const Dataset>(b.finish());
    PairwiseOptions o;
    o.cacheDir = dir("cancel-in-pair");
    o.threads = 1;
    PairwiseJob job(ds, o);
    FirstReportSink sink;
    job.start(&sink);
    QTRY_VERIFY_WITH_TIMEOUT(sink.reported.load(), 60000);
    QTest::qWait(100);
    job.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!job.running(), 60000);
    job.wait();
    QCOMPARE(job.status(), JobStatus::Cancelled);
    QCOMPARE(job.pairsComputed(), std::int64_t(0));
}

void TestPairwiseMatrix::badItemFailsNamingIt_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<int>("item");
    QTest::addColumn<QString>("message");
    QTest::newRow("NaN") << "nan" << 7 << "item 7: element 1, component 2 is NaN";
    QTest::newRow("infinity") << "inf" << 12 << "item 12: element 1, component 2 is infinite";
    QTest::newRow("zero weights") << "zero" << 3 << "item 3 has zero total weight";
}

void TestPairwiseMatrix::badItemFailsNamingIt()
{
    QFETCH(QString, fault);
    QFETCH(int, item);
    QFETCH(QString, message);
    // DatasetBuilder refuses such data; damage a built copy (not const) in place.
    Dataset ds = *randomSets(20, 4, 3);
    auto& values = const_cast<std::vector<float>&>(ds.values());
    auto& weights = const_cast<std::vector<float>&>(ds.weights());
    const auto first = static_cast<std::size_t>(ds.offsets()[static_cast<std::size_t>(item)]);
    if (fault == "nan")
        values[(first + 1) * 4 + 2] = std::numeric_limits<float>::quiet_NaN();
    else if (fault == "inf")
        values[(first + 1) * 4 + 2] = std::numeric_limits<float>::infinity();
    else
        for (std::size_t e = 0; e < ds.setSize(static_cast<std::size_t>(item)); ++e)
            weights[first + e] = 0.0f;
    PairwiseOptions o;
    o.cacheDir = dir("bad-" + fault);
    RecordingSink sink;
    const Run r = runJob(std::make_shared<const Dataset>(std::move(ds)), o, &sink);
    QCOMPARE(r.status, JobStatus::Failed);
    QVERIFY2(QString::fromStdString(r.error).contains(message), r.error.c_str());
    QCOMPARE(sink.detail, r.error);
    QVERIFY(!r.matrix);
    QVERIFY(!QFile::exists(QString::fromStdString(r.path))); // nothing written for bad input
}

void TestPairwiseMatrix::diskErrorNamesTheFile()
{
    const auto ds = randomSets(6, 3, 4);
    // The cache directory cannot be created: a plain file is in the way.
    const std::string blocker = dir("plain-file");
    QVERIFY(writeAll(blocker, "x"));
    PairwiseOptions o;
    o.cacheDir = blocker + "/cache";
    Run r = runJob(ds, o);
    QCOMPARE(r.status, JobStatus::Failed);
    QVERIFY2(r.error.find(o.cacheDir) != std::string::npos, r.error.c_str());

    // The cache file cannot be opened: a directory has its name.
    o.cacheDir = dir("dir-in-the-way");
    const std::string path = PairwiseJob(ds, o).cachePath();
    QVERIFY(QDir().mkpath(QString::fromStdString(path)));
    r = runJob(ds, o);
    QCOMPARE(r.status, JobStatus::Failed);
    QVERIFY2(r.error.find(path) != std::string::npos, r.error.c_str());
}

void TestPairwiseMatrix::defaultCacheDirectory()
{
    const QByteArray oldXdg = qgetenv("XDG_CACHE_HOME");
    const QByteArray oldHome = qgetenv("HOME");
    const bool hadXdg = qEnvironmentVariableIsSet("XDG_CACHE_HOME");
    const auto restore = qScopeGuard([&] {
        if (hadXdg)
            qputenv("XDG_CACHE_HOME", oldXdg);
        else
            qunsetenv("XDG_CACHE_HOME");
        qputenv("HOME", oldHome);
    });
    const QString xdg = m_tmp.filePath(QStringLiteral("xdg"));
    qputenv("XDG_CACHE_HOME", xdg.toUtf8());
    QCOMPARE(QString::fromStdString(ot::defaultPairwiseCacheDir()), xdg + QStringLiteral("/setscope"));

    const auto ds = randomSets(5, 3, 6);
    const Run r = runJob(ds, PairwiseOptions{});
    QVERIFY2(r.status == JobStatus::Finished, r.error.c_str());
    QVERIFY(QString::fromStdString(r.path).startsWith(xdg + QStringLiteral("/setscope/pairwise-")));
    QVERIFY(QFile::exists(QString::fromStdString(r.path)));

    // A relative XDG_CACHE_HOME is invalid (XDG Base Directory spec): ~/.cache is used.
    const QString home = m_tmp.filePath(QStringLiteral("home"));
    qputenv("XDG_CACHE_HOME", "relative/cache");
    qputenv("HOME", home.toUtf8());
    QCOMPARE(QString::fromStdString(ot::defaultPairwiseCacheDir()), home + QStringLiteral("/.cache/setscope"));
    qunsetenv("XDG_CACHE_HOME");
    QCOMPARE(QString::fromStdString(PairwiseJob(ds, PairwiseOptions{}).cachePath()),
             home + QStringLiteral("/.cache/setscope/pairwise-") + QString::fromStdString(r.matrix->key()) +
                 QStringLiteral(".f32"));
}

QTEST_GUILESS_MAIN(TestPairwiseMatrix)
#include "tst_PairwiseMatrix.moc"
