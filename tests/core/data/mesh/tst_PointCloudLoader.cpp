// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "MeshFixtures.h"

#include "core/catalog/DatasetCatalog.h"
#include "core/data/Dataset.h"
#include "core/data/mesh/PointCloudLoader.h"
#include "core/plugin/Registry.h"
#include "core/job/Job.h"
#include "core/job/JobLoadContext.h"
#include "core/builtins/Builtins.h"

#include <QtTest>

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace setscope::data;
using namespace setscope::data::mesh;
using namespace meshtest;

namespace {

const std::string kTetraOff = "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
const std::string kQuadObj = "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 0 1 0.5\nf 1 2 3 4\n";
const std::string kBadOff = "OFF\n4 4 0\n0 0 0\n1 0 0\n"; // truncated

Dataset loadFolder(const QString& root, const PointCloudOptions& opt = {}, setscope::job::ProgressSink* p = nullptr,
                   setscope::job::JobControl* c = nullptr)
{
    DatasetBuilder b(root.toStdString());
    setscope::job::JobLoadContext context(p, c);
    loadPointCloudFolder(root.toStdString(), b, opt, &context);
    return b.finish();
}

QString errorOf(const QString& root)
{
    try {
        loadFolder(root);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

bool anyNoteContains(const Dataset& ds, const QString& s)
{
    return std::any_of(ds.notes().begin(), ds.notes().end(),
                       [&](const std::string& n) { return QString::fromStdString(n).contains(s); });
}

struct RecordingSink : setscope::job::ProgressSink {
    std::int64_t lastDone = -1, lastTotal = -1;
    void progress(std::int64_t done, std::int64_t total, const std::string&) override
    {
        lastDone = done;
        lastTotal = total;
    }
};

} // namespace

class TestPointCloudLoader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void modelNetLayout();
    void hashSplitWithoutTrainTest();
    void resultIndependentOfThreads();
    void toleratesAFewBadFiles();
    void tooManyBadFilesFail();
    void noFilesOrNoneReadable();
    void progressAndCancel();
    void singleFileAndRegistry();
    void optionsThroughTheCatalog();
    void folderOptionsProgressAndCancelThroughTheCatalog();

private:
    QString mk(const QString& rel, const std::string& text)
    {
        const QString p = m_dir.filePath(rel);
        QDir().mkpath(QFileInfo(p).path());
        writeText(p, text);
        return p;
    }
    QTemporaryDir m_dir;
};

void TestPointCloudLoader::modelNetLayout()
{
    // Categories listed out of order on purpose; class ids follow sorted names.
    mk("mn/chair/train/chair_0002.obj", kQuadObj);
    mk("mn/chair/train/chair_0001.off", kTetraOff);
    mk("mn/chair/test/chair_0100.off", kTetraOff);
    const std::vector<unsigned char> stl = binaryStlTetra();
    mk("mn/airplane/train/airplane_0001.stl", std::string(stl.begin(), stl.end()));
    mk("mn/airplane/test/airplane_0100.xyz", "0 0 0\n1 0 0\n0 2 0\n0 0 3\n");
    mk("mn/airplane/test/readme.txt", "not a mesh");
    mk("mn/airplane/stray.off", kTetraOff); // beside train/test: ignored, counted
    const QString root = m_dir.filePath("mn");
    QVERIFY(looksLikePointCloudFolder(root.toStdString()));
    const Dataset ds = loadFolder(root);
    QCOMPARE(ds.name(), std::string("mn"));
    QCOMPARE(ds.size(), std::size_t(5));
    QCOMPARE(ds.dim(), 3);
    const LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames, (std::vector<std::string>{"airplane", "chair"}));
    QCOMPARE(fine.labels, (std::vector<std::int32_t>{0, 0, 1, 1, 1}));
    // (category, split folder, name): airplane train, airplane test, chair train x2, chair test.
    QCOMPARE(ds.splits(), (std::vector<Split>{Split::Train, Split::Test, Split::Train, Split::Train, Split::Test}));
    QVERIFY(QString::fromStdString(ds.sourceFiles()[2]).endsWith("chair_0001.off"));
    for (std::size_t i = 0; i < ds.size(); ++i) {
        const ItemView it = ds.item(i);
        QCOMPARE(it.count, std::size_t(1024));
        double maxNorm = 0;
        for (std::size_t e = 0; e < it.count; ++e) {
            QCOMPARE(it.weights[e], 1.0f);
            const auto p = it.element(e);
            maxNorm = std::max(maxNorm, std::sqrt(double(p[0]) * p[0] + double(p[1]) * p[1] + double(p[2]) * p[2]));
        }
        QVERIFY(std::abs(maxNorm - 1.0) < 1e-6);
    }
    QVERIFY(anyNoteContains(ds, "1 mesh files beside train/test folders were ignored"));
    QVERIFY(anyNoteContains(ds, "1 point sets had fewer than 1024")); // the 4-point xyz
}

void TestPointCloudLoader::hashSplitWithoutTrainTest()
{
    std::vector<std::string> rel;
    for (int i = 0; i < 10; ++i) {
        const QString name = QString("lamp/lamp_%1.off").arg(i, 2, 10, QChar('0'));
        mk("flat/" + name, kTetraOff);
        rel.push_back(name.toStdString());
    }
    mk("flat/vase/vase_1.obj", kQuadObj);
    const Dataset ds = loadFolder(m_dir.filePath("flat"));
    QCOMPARE(ds.size(), std::size_t(11));
    // The rule: per category, files ranked by XXH3-64 of the relative path; the first
    // round(0.8 n) are train. For lamp (10 files): the 2 largest hashes are test.
    std::vector<std::pair<std::uint64_t, std::string>> h;
    for (const auto& r : rel)
        h.emplace_back(XXH3_64bits(r.data(), r.size()), r);
    std::sort(h.begin(), h.end());
    std::set<std::string> expectTest{h[8].second, h[9].second};
    for (std::size_t i = 0; i < 10; ++i) {
        const std::string src = ds.sourceFiles()[i];
        const bool test = std::any_of(expectTest.begin(), expectTest.end(),
                                      [&](const std::string& t) { return src.size() >= t.size() && src.ends_with(t); });
        QCOMPARE(ds.split(i) == Split::Test, test);
    }
    QCOMPARE(ds.split(10), Split::Train); // round(0.8 * 1) = 1 train
    QCOMPARE(ds.count(Split::Test), std::size_t(2));
    QVERIFY(anyNoteContains(ds, "split 80/20"));
    // Same input, same dataset.
    QCOMPARE(loadFolder(m_dir.filePath("flat")).contentHash(), ds.contentHash());
}

void TestPointCloudLoader::resultIndependentOfThreads()
{
    for (int i = 0; i < 12; ++i)
        mk(QString("thr/c%1/train/m%2.off").arg(i % 3).arg(i), kTetraOff);
    PointCloudOptions one, many;
    one.threads = 1;
    many.threads = 4;
    one.sampling.jitter = many.sampling.jitter = true;
    const Dataset a = loadFolder(m_dir.filePath("thr"), one);
    const Dataset b = loadFolder(m_dir.filePath("thr"), many);
    QCOMPARE(a.values(), b.values());
    // Same mesh, different paths: different samples (per-file seeds).
    QVERIFY(!std::equal(a.values().begin(), a.values().begin() + 3 * 1024, a.values().begin() + 3 * 1024));
    PointCloudOptions other = one;
    other.sampling.seed = 2;
    QVERIFY(loadFolder(m_dir.filePath("thr"), other).values() != a.values());
}

void TestPointCloudLoader::toleratesAFewBadFiles()
{
    for (int i = 0; i < 10; ++i)
        mk(QString("few/c/train/m%1.off").arg(i), kTetraOff);
    const QString bad = mk("few/c/test/broken.off", kBadOff);
    const Dataset ds = loadFolder(m_dir.filePath("few")); // 1 of 11 fails: 9 %
    QCOMPARE(ds.size(), std::size_t(10));
    QVERIFY(anyNoteContains(ds, "1 of 11 files could not be read"));
    QVERIFY(anyNoteContains(ds, bad)); // the first errors are quoted with their file
}

void TestPointCloudLoader::tooManyBadFilesFail()
{
    for (int i = 0; i < 8; ++i)
        mk(QString("many/c/m%1.off").arg(i), kTetraOff);
    mk("many/c/b1.off", kBadOff);
    mk("many/d/b2.obj", "v 0 0 0\nf 1 2 3\n");
    const QString e = errorOf(m_dir.filePath("many"));
    QVERIFY2(e.contains("2 of 10 files could not be read (more than 10 %)"), qPrintable(e));
    QVERIFY2(e.contains("b1.off") && e.contains("b2.obj"), qPrintable(e));
}

void TestPointCloudLoader::noFilesOrNoneReadable()
{
    mk("none/c/readme.txt", "x");
    QVERIFY(!looksLikePointCloudFolder(m_dir.filePath("none").toStdString()));
    QVERIFY(errorOf(m_dir.filePath("none")).contains("no mesh files found"));
    mk("allbad/c/a.off", kBadOff);
    QVERIFY(errorOf(m_dir.filePath("allbad")).contains("none of the 1 files could be read"));
    QVERIFY(errorOf(m_dir.filePath("missing")).contains("not a folder"));
}

void TestPointCloudLoader::progressAndCancel()
{
    for (int i = 0; i < 6; ++i)
        mk(QString("prog/c/train/m%1.off").arg(i), kTetraOff);
    RecordingSink sink;
    loadFolder(m_dir.filePath("prog"), {}, &sink);
    QCOMPARE(sink.lastDone, std::int64_t(6));
    QCOMPARE(sink.lastTotal, std::int64_t(6));
    setscope::job::JobControl control;
    control.requestCancel();
    DatasetBuilder b;
    setscope::job::JobLoadContext context(nullptr, &control);
    QVERIFY_THROWS_EXCEPTION(setscope::job::Cancelled,
                             loadPointCloudFolder(m_dir.filePath("prog").toStdString(), b, {}, &context));
}

void TestPointCloudLoader::singleFileAndRegistry()
{
    const QString off = mk("single/tetra.off", kTetraOff);
    DatasetBuilder b(off.toStdString());
    loadMeshFile(off.toStdString(), b);
    const Dataset ds = b.finish();
    QCOMPARE(ds.size(), std::size_t(1));
    QCOMPARE(ds.setSize(0), std::size_t(1024));
    QCOMPARE(ds.name(), std::string("tetra"));

    setscope::plugin::Registry r;
    setscope::builtins::registerBuiltins(r);
    QCOMPARE(r.loaderFor(off.toStdString()).name, std::string("mesh"));
    mk("reg/sofa/train/s.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                               "property float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n");
    QCOMPARE(r.loaderFor(m_dir.filePath("reg").toStdString()).name, std::string("pointcloud-folder"));
}

void TestPointCloudLoader::optionsThroughTheCatalog()
{
    setscope::plugin::Registry r;
    setscope::builtins::registerBuiltins(r);
    const std::string off = mk("opts/tetra.off", kTetraOff).toStdString();
    const Dataset plain = setscope::catalog::openDataset(off, r);
    QCOMPARE(plain.size(), std::size_t(1));
    QCOMPARE(plain.setSize(0), std::size_t(1024)); // the declared default
    const Dataset p64 = setscope::catalog::openDataset(off + "?points=64", r);
    QCOMPARE(p64.size(), std::size_t(1));
    QCOMPARE(p64.setSize(0), std::size_t(64));
    QCOMPARE(p64.dim(), 3);
    // seed=1 is the default: the same points; another seed draws others.
    QCOMPARE(setscope::catalog::openDataset(off + "?seed=1", r).values(), plain.values());
    QVERIFY(setscope::catalog::openDataset(off + "?seed=2", r).values() != plain.values());
    // jitter=1 moves each coordinate of the same points by at most PointNet's clip, 0.05.
    const Dataset jittered = setscope::catalog::openDataset(off + "?jitter=1", r);
    QCOMPARE(jittered.values().size(), plain.values().size());
    float largest = 0;
    for (std::size_t i = 0; i < plain.values().size(); ++i)
        largest = std::max(largest, std::abs(jittered.values()[i] - plain.values()[i]));
    QVERIFY2(largest > 0 && largest <= 0.05f + 1e-6f, qPrintable(QString::number(largest)));

    auto error = [&](const std::string& options) {
        try {
            setscope::catalog::openDataset(off + "?" + options, r);
        } catch (const std::invalid_argument& e) {
            return QString(e.what());
        }
        return QString("no error");
    };
    const QString loader = QString::fromStdString(off) + ": loader mesh";
    QCOMPARE(error("points=0"), loader + ": option points=0: outside [1, 1048576]");
    QCOMPARE(error("points=1048577"), loader + ": option points=1048577: outside [1, 1048576]");
    QCOMPARE(error("jitter=maybe"), loader + ": option jitter=maybe: not a flag (true/false, 1/0, yes/no, on/off)");
    QCOMPARE(error("pionts=64"), loader + " has no option 'pionts' (it has: points, seed, jitter)");
    // One file has no worker threads to set.
    QCOMPARE(error("threads=2"), loader + " has no option 'threads' (it has: points, seed, jitter)");
}

void TestPointCloudLoader::folderOptionsProgressAndCancelThroughTheCatalog()
{
    mk("optsdir/chair/train/a.off", kTetraOff);
    mk("optsdir/chair/test/b.obj", kQuadObj);
    mk("optsdir/table/train/c.off", kTetraOff);
    const std::string root = m_dir.filePath("optsdir").toStdString();
    setscope::plugin::Registry r;
    setscope::builtins::registerBuiltins(r);
    QCOMPARE(r.loaderFor(root).name, std::string("pointcloud-folder"));
    const Dataset d32 = setscope::catalog::openDataset(root + "?points=32,threads=1", r);
    QCOMPARE(d32.size(), std::size_t(3));
    for (std::size_t i = 0; i < d32.size(); ++i)
        QCOMPARE(d32.setSize(i), std::size_t(32));
    // The thread count does not change the result.
    QCOMPARE(setscope::catalog::openDataset(root + "?points=32,threads=2", r).values(), d32.values());
    try {
        setscope::catalog::openDataset(root + "?threads=1025", r);
        QFAIL("threads=1025 accepted");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString(e.what()), QString::fromStdString(root) + ": loader pointcloud-folder: option threads=1025: "
                                                                   "outside [0, 1024]");
    }

    // The catalogue hands the loader its progress sink and job control through the SDK's context.
    RecordingSink sink;
    setscope::catalog::openDataset(root + "?points=8", r, {&sink, nullptr});
    QCOMPARE(sink.lastDone, std::int64_t(3));
    QCOMPARE(sink.lastTotal, std::int64_t(3));
    setscope::job::JobControl control;
    control.requestCancel();
    QVERIFY_THROWS_EXCEPTION(setscope::job::Cancelled, setscope::catalog::openDataset(root, r, {nullptr, &control}));
}

QTEST_GUILESS_MAIN(TestPointCloudLoader)
#include "tst_PointCloudLoader.moc"
