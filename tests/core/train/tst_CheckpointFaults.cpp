// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// A checkpoint that cannot be written stops the run (JobStatus::Failed) with a message naming
// the file, the cause and the last good checkpoint; that checkpoint is byte for byte what it was
// when it was written (bytes read in the sink's checkpointWritten, before the fault), no part
// file is left, and resuming from it gives the model an uninterrupted run of the same seed
// gives. Faults from the seam at every write, the fsync and the rename of the checkpoint, and
// from a real full disk (a tmpfs, root only).
#include "core/builtins/Builtins.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"
#include "core/util/Faults.h"

#include "tests/support/Tmpfs.h"

#include <QtTest>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

using namespace setscope;
namespace fs = std::filesystem;
using util::faults::Call;

namespace {

std::shared_ptr<const data::Dataset> dataset()
{
    data::SyntheticSpec s;
    s.dim = 10;
    s.coarseClasses = 3;
    s.finePerCoarse = 3;
    s.pointsPerFine = 20;
    s.pointSpread = 2.0;
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(s));
}

/// 30 steps, a checkpoint every 10, one thread (bit-identical resume).
train::TrainerConfig config(const fs::path& dir)
{
    train::TrainerConfig c;
    c.epochs = 100;
    c.maxSteps = 30;
    c.checkpointEvery = 10;
    c.samplerOptions = {{"classes", "4"}, {"per-class", "8"}};
    c.embeddingDim = 8;
    c.snapshotEvery = 0;
    c.device = "cpu";
    c.threads = 1;
    c.checkpointDir = dir.string();
    return c;
}

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string step(int s)
{
    char name[64];
    std::snprintf(name, sizeof name, "step-%09d.pt", s);
    return name;
}

/// Keeps the bytes of every checkpoint as the job reports it written; optionally runs an
/// action after a given step's checkpoint (filling the disk).
struct KeepBytes : train::TrainingSink {
    std::mutex m;
    std::map<std::int64_t, std::string> bytes;
    std::int64_t afterStep = -1;
    std::function<void()> action;
    void checkpointWritten(std::int64_t s, const std::string& path) override
    {
        std::lock_guard l(m);
        bytes[s] = slurp(path);
        if (s == afterStep && action)
            action();
    }
};

std::vector<std::string> names(const fs::path& dir)
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename() != "filler")
            out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class TestCheckpointFaults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void failingCheckpointStopsTheRun_data();
    void failingCheckpointStopsTheRun();
    void fullDisk();

private:
    /// Checks the state after a failed run in `dir` whose step-20 checkpoint failed, then
    /// resumes from step 10 and compares the end with the uninterrupted run.
    void checkFailedAndResume(const fs::path& dir, train::TrainingJob& job, const KeepBytes& sink, const QString& cause);

    plugin::Registry m_registry;
    QTemporaryDir m_dir;
    std::shared_ptr<const data::Dataset> m_ds;
    std::vector<float> m_reference; ///< embeddings of the uninterrupted run's step-30 model
};

void TestCheckpointFaults::initTestCase()
{
    builtins::registerBuiltins(m_registry);
    QVERIFY(m_dir.isValid());
    m_ds = dataset();
    const fs::path ref = m_dir.filePath("reference").toStdString();
    train::TrainingJob job(m_ds, config(ref), m_registry);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    QCOMPARE(names(ref), (std::vector<std::string>{step(10), step(20), step(30)}));
    m_reference = train::embedWithCheckpoint((ref / step(30)).string(), *m_ds, m_registry).data;
    QVERIFY(!m_reference.empty());
}

void TestCheckpointFaults::checkFailedAndResume(const fs::path& dir, train::TrainingJob& job, const KeepBytes& sink,
                                                const QString& cause)
{
    const QString msg = QString::fromStdString(job.error());
    QVERIFY2(msg.contains(QString::fromStdString((dir / step(20)).string())), qPrintable(msg));
    QVERIFY2(msg.contains(cause), qPrintable(msg));
    QVERIFY2(msg.contains("last good checkpoint is " + QString::fromStdString((dir / step(10)).string())), qPrintable(msg));
    // The previous checkpoint is what it was, and nothing else is there: no step 20, no part file.
    QCOMPARE(names(dir), std::vector<std::string>{step(10)});
    QVERIFY(sink.bytes.count(10) == 1 && !sink.bytes.at(10).empty());
    QVERIFY(slurp(dir / step(10)) == sink.bytes.at(10));

    // The fault cleared, a resume from it ends where the uninterrupted run ended.
    train::TrainerConfig r = config(dir);
    r.resumeFrom = (dir / step(10)).string();
    train::TrainingJob resumed(m_ds, r, m_registry);
    QCOMPARE(resumed.runHere(nullptr), job::JobStatus::Finished);
    QCOMPARE(names(dir), (std::vector<std::string>{step(10), step(20), step(30)}));
    const auto e = train::embedWithCheckpoint((dir / step(30)).string(), *m_ds, m_registry).data;
    QVERIFY2(e == m_reference, "the run resumed after the fault differs from the uninterrupted one");
}

void TestCheckpointFaults::failingCheckpointStopsTheRun_data()
{
    QTest::addColumn<int>("call");
    QTest::addColumn<int>("error");
    QTest::addColumn<QString>("cause");
    // How many writes one checkpoint takes: counted through the seam on a run of its own.
    std::int64_t writes = 0;
    {
        const fs::path dir = m_dir.filePath("count").toStdString();
        util::faults::Armed counting(Call::Write, 0, 0, step(20));
        train::TrainingJob job(m_ds, config(dir), m_registry);
        job.runHere(nullptr);
        writes = util::faults::count(Call::Write);
        fs::remove_all(dir);
    }
    QVERIFY2(writes >= 1, "the checkpoint writer does not write through the seam");
    for (std::int64_t k = 1; k <= writes; ++k)
        QTest::addRow("write %lld of %lld ENOSPC", static_cast<long long>(k), static_cast<long long>(writes))
            << int(Call::Write) * 1000 + int(k) << ENOSPC << "No space left on device";
    QTest::newRow("write 1 EIO") << int(Call::Write) * 1000 + 1 << EIO << "Input/output error";
    QTest::newRow("fsync EIO") << int(Call::Sync) * 1000 + 1 << EIO << "Input/output error";
    QTest::newRow("rename EIO") << int(Call::Rename) * 1000 + 1 << EIO << "Input/output error";
}

void TestCheckpointFaults::failingCheckpointStopsTheRun()
{
    QFETCH(int, call);
    QFETCH(int, error);
    QFETCH(QString, cause);
    // A checkpoint holds the epochs' timings as text, so its length, and with it the number of
    // writes, can differ by one from the counting run's: a position past this run's last write
    // does not fail, and the run is tried again (in a fresh folder).
    for (int attempt = 0; attempt < 3; ++attempt) {
        const fs::path dir = m_dir.filePath(QString("fault-%1-%2-%3").arg(call).arg(error).arg(attempt)).toStdString();
        KeepBytes sink;
        train::TrainingJob job(m_ds, config(dir), m_registry);
        bool fired = false;
        std::int64_t calls = 0;
        job::JobStatus status;
        {
            util::faults::Armed fault(Call(call / 1000), call % 1000, error, step(20));
            status = job.runHere(&sink);
            fired = util::faults::fired();
            calls = util::faults::count(Call(call / 1000));
        }
        if (!fired) {
            QCOMPARE(status, job::JobStatus::Finished);
            QVERIFY2(calls < call % 1000, qPrintable(QString::number(calls)));
            qInfo("attempt %d: this run's step-20 checkpoint took %lld calls; trying again", attempt,
                  static_cast<long long>(calls));
            continue;
        }
        QCOMPARE(status, job::JobStatus::Failed);
        checkFailedAndResume(dir, job, sink, cause);
        return;
    }
    QSKIP("three runs in a row wrote their checkpoint with fewer calls than the counting run");
}

void TestCheckpointFaults::fullDisk()
{
    testutil::Tmpfs disk(8 << 20);
    if (!disk.ok())
        QSKIP(disk.reason());
    const fs::path dir = disk.path() / "checkpoints";
    KeepBytes sink;
    sink.afterStep = 10;
    sink.action = [&] { disk.fill(); }; // the disk fills up between two checkpoints
    train::TrainingJob job(m_ds, config(dir), m_registry);
    QCOMPARE(job.runHere(&sink), job::JobStatus::Failed);
    disk.release();
    checkFailedAndResume(dir, job, sink, "No space left on device");
}

QTEST_GUILESS_MAIN(TestCheckpointFaults)
#include "tst_CheckpointFaults.moc"
