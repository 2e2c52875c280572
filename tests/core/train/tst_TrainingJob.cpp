// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// TrainingJob through its Torch-free public API, as the GUI and the CLI use it.
#include "Builtin.h"
#include "core/data/Synthetic.h"
#include "core/eval/Evaluate.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace setscope;
using Clock = std::chrono::steady_clock;

namespace {

std::shared_ptr<const data::Dataset> dataset(int points = 60)
{
    data::SyntheticSpec s;
    s.dim = 10;
    s.coarseClasses = 3;
    s.finePerCoarse = 3;
    s.pointsPerFine = points;
    s.pointSpread = 2.0;
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(s));
}

train::TrainerConfig quickConfig()
{
    train::TrainerConfig c;
    c.epochs = 2;
    c.batchClasses = 4;
    c.batchPerClass = 8;
    c.embeddingDim = 8;
    c.snapshotEvery = 0;
    c.device = "cpu";
    return c;
}

struct RecordingSink : train::ProgressSink {
    std::mutex m;
    std::vector<train::EpochMetrics> epochs;
    std::vector<std::string> messages;
    train::JobStatus status = train::JobStatus::Idle;
    std::string detail;
    void epochMetrics(const train::EpochMetrics& e) override
    {
        std::lock_guard l(m);
        epochs.push_back(e);
    }
    void message(const std::string& t) override
    {
        std::lock_guard l(m);
        messages.push_back(t);
    }
    void finished(train::JobStatus s, const std::string& d) override
    {
        std::lock_guard l(m);
        status = s;
        detail = d;
    }
};

bool waitFor(const std::function<bool()>& cond, int ms)
{
    const auto end = Clock::now() + std::chrono::milliseconds(ms);
    while (Clock::now() < end) {
        if (cond())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return cond();
}

} // namespace

class TestTrainingJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void trainsAndLearns_data();
    void trainsAndLearns();
    void cancelWithinOneSecond();
    void pauseAndResume();
    void checkpointResumeIsIdentical();
    void snapshotsArePublished();
    void failures_data();
    void failures();
    void configJsonRoundTrip();

private:
    plugin::Registry m_registry;
    QTemporaryDir m_dir;
};

void TestTrainingJob::initTestCase()
{
    builtin::registerBuiltins(m_registry);
    QVERIFY(m_dir.isValid());
}

void TestTrainingJob::trainsAndLearns_data()
{
    QTest::addColumn<QString>("loss");
    QTest::newRow("triplet") << "triplet";
    QTest::newRow("contrastive") << "contrastive";
}

void TestTrainingJob::trainsAndLearns()
{
    QFETCH(QString, loss);
    auto ds = dataset();
    train::TrainerConfig c = quickConfig();
    c.loss = loss.toStdString();
    c.epochs = 8;
    RecordingSink sink;
    train::TrainingJob job(ds, c, m_registry);
    QCOMPARE(job.runHere(&sink), train::JobStatus::Finished);
    QCOMPARE(int(sink.epochs.size()), 8);
    QCOMPARE(job.history().size(), std::size_t(8));
    const auto& first = sink.epochs.front();
    const auto& last = sink.epochs.back();
    QVERIFY2(last.meanLoss < first.meanLoss, qPrintable(QString("%1 -> %2").arg(first.meanLoss).arg(last.meanLoss)));
    // 9 fine classes: chance is 0.11. The data are separable, so a learned metric must do well.
    QVERIFY2(last.knnAccuracy > 0.85, qPrintable(QString::number(last.knnAccuracy)));
    QCOMPARE(last.recallK, (std::vector<int>{1, 2, 4, 8}));
    QVERIFY(last.recallAtK[3] >= last.recallAtK[0]);
    QCOMPARE(last.step, job.totalSteps());
}

void TestTrainingJob::cancelWithinOneSecond()
{
    auto ds = dataset(400);
    train::TrainerConfig c = quickConfig();
    c.epochs = 1000;
    RecordingSink sink;
    train::TrainingJob job(ds, c, m_registry);
    job.start(&sink);
    QVERIFY(waitFor([&] { return job.counters().done.load() > 20; }, 20000));
    const auto t0 = Clock::now();
    job.cancel();
    QVERIFY(waitFor([&] { return !job.running(); }, 5000));
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    QVERIFY2(s < 1.0, qPrintable(QString("cancel took %1 s").arg(s)));
    job.wait();
    QCOMPARE(job.status(), train::JobStatus::Cancelled);
    QCOMPARE(sink.status, train::JobStatus::Cancelled);
}

void TestTrainingJob::pauseAndResume()
{
    auto ds = dataset(400);
    train::TrainerConfig c = quickConfig();
    c.epochs = 1000;
    train::TrainingJob job(ds, c, m_registry);
    job.start(nullptr);
    QVERIFY(waitFor([&] { return job.counters().done.load() > 5; }, 20000));
    job.pause();
    std::this_thread::sleep_for(std::chrono::milliseconds(100)); // let the current step end
    const auto frozen = job.counters().done.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    QCOMPARE(job.counters().done.load(), frozen);
    QVERIFY(job.paused());
    job.resume();
    QVERIFY(waitFor([&] { return job.counters().done.load() > frozen + 5; }, 20000));
    // Cancel while paused must not hang.
    job.pause();
    const auto t0 = Clock::now();
    job.cancel();
    job.wait();
    QVERIFY(std::chrono::duration<double>(Clock::now() - t0).count() < 1.0);
    QCOMPARE(job.status(), train::JobStatus::Cancelled);
}

void TestTrainingJob::checkpointResumeIsIdentical()
{
    namespace fs = std::filesystem;
    auto ds = dataset();
    train::TrainerConfig c = quickConfig();
    c.epochs = 100;
    c.maxSteps = 40; // the synthetic set has 12 steps per epoch: crosses epoch boundaries
    c.checkpointEvery = 20;
    c.threads = 1;
    const std::string dirA = m_dir.filePath("A").toStdString();
    const std::string dirB = m_dir.filePath("B").toStdString();
    c.checkpointDir = dirA;
    {
        train::TrainingJob a(ds, c, m_registry);
        QCOMPARE(a.runHere(nullptr), train::JobStatus::Finished);
    }
    QVERIFY(fs::exists(dirA + "/step-000000020.pt"));
    QVERIFY(fs::exists(dirA + "/step-000000040.pt"));
    for (const auto& e : fs::directory_iterator(dirA))
        QVERIFY2(e.path().extension() == ".pt", "a temporary checkpoint file was left behind");

    train::TrainerConfig r = c;
    r.checkpointDir = dirB;
    r.resumeFrom = dirA + "/step-000000020.pt";
    std::vector<train::EpochMetrics> histB;
    {
        train::TrainingJob b(ds, r, m_registry);
        QCOMPARE(b.runHere(nullptr), train::JobStatus::Finished);
        histB = b.history();
    }
    const auto ea = train::embedWithCheckpoint(dirA + "/step-000000040.pt", *ds, m_registry);
    const auto eb = train::embedWithCheckpoint(dirB + "/step-000000040.pt", *ds, m_registry);
    QCOMPARE(ea.data.size(), ds->size() * 8);
    QVERIFY2(ea.data == eb.data, "resumed run differs from the uninterrupted one");

    // The comparison is sharp: a different seed gives a different model.
    train::TrainerConfig other = c;
    other.seed = 2;
    other.checkpointDir = m_dir.filePath("C").toStdString();
    {
        train::TrainingJob o(ds, other, m_registry);
        QCOMPARE(o.runHere(nullptr), train::JobStatus::Finished);
    }
    const auto ec = train::embedWithCheckpoint(other.checkpointDir + "/step-000000040.pt", *ds, m_registry);
    QVERIFY(ec.data != ea.data);
    QCOMPARE(histB.size(), std::size_t(3)); // epochs ended at steps 12, 24, 36
    QCOMPARE(histB[0].step, std::int64_t(12));
}

void TestTrainingJob::snapshotsArePublished()
{
    auto ds = dataset();
    train::TrainerConfig c = quickConfig();
    c.snapshotEvery = 5;
    c.snapshotItems = 50;
    c.maxSteps = 20;
    train::TrainingJob job(ds, c, m_registry);
    QCOMPARE(job.runHere(nullptr), train::JobStatus::Finished);
    // step 0, 5, 10, 12 (epoch end), 15, 20
    QVERIFY2(job.snapshots().sequence() >= 5, qPrintable(QString::number(job.snapshots().sequence())));
    const auto s = job.snapshots().latest();
    QVERIFY(s);
    QCOMPARE(s->step, std::int64_t(20));
    QVERIFY(s->items.size() <= 50 && s->items.size() >= 40);
    QCOMPARE(s->vectors.size(), s->items.size() * 8);
    for (auto i : s->items)
        QCOMPARE(ds->split(std::size_t(i)), data::Split::Test); // the test split goes first
    double n0 = 0;
    for (int k = 0; k < 8; ++k)
        n0 += s->vectors[std::size_t(k)] * s->vectors[std::size_t(k)];
    QVERIFY(std::abs(n0 - 1.0) < 1e-4); // the MLP L2-normalises by default
}

void TestTrainingJob::failures_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expect");
    QTest::newRow("unknown loss") << 0 << "unknown loss 'nope' (available: triplet, contrastive)";
    QTest::newRow("unknown label set") << 1 << "no label set 'species'";
    QTest::newRow("cuda") << 2 << "CUDA is not available";
    QTest::newRow("garbage checkpoint") << 3 << "garbage.pt";
    QTest::newRow("checkpoint of other data") << 4 << "other data";
    QTest::newRow("unknown model") << 5 << "unknown model";
}

void TestTrainingJob::failures()
{
    QFETCH(int, kind);
    QFETCH(QString, expect);
    auto ds = dataset();
    train::TrainerConfig c = quickConfig();
    c.maxSteps = 3;
    switch (kind) {
    case 0: c.loss = "nope"; break;
    case 1: c.labelSet = "species"; break;
    case 2:
        if (train::cudaAvailable())
            QSKIP("a CUDA device is present");
        c.device = "cuda";
        break;
    case 3: {
        const std::string p = m_dir.filePath("garbage.pt").toStdString();
        std::ofstream(p) << "not a checkpoint";
        c.resumeFrom = p;
        break;
    }
    case 4: {
        train::TrainerConfig w = quickConfig();
        w.maxSteps = 2;
        w.checkpointDir = m_dir.filePath("other").toStdString();
        data::SyntheticSpec s;
        s.dim = 10;
        s.seed = 99;
        train::TrainingJob o(std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(s)), w, m_registry);
        QCOMPARE(o.runHere(nullptr), train::JobStatus::Finished);
        c.resumeFrom = o.lastCheckpoint();
        break;
    }
    case 5: c.model = "transformer-xl"; break;
    }
    RecordingSink sink;
    train::TrainingJob job(ds, c, m_registry);
    QCOMPARE(job.runHere(&sink), train::JobStatus::Failed);
    QVERIFY2(QString::fromStdString(job.error()).contains(expect), job.error().c_str());
    QCOMPARE(sink.detail, job.error());
}

void TestTrainingJob::configJsonRoundTrip()
{
    train::TrainerConfig c = quickConfig();
    c.modelOptions["hidden"] = "32,32";
    c.margin = 0.25;
    const auto back = train::TrainerConfig::fromJson(c.toJson());
    QCOMPARE(back.toJson(), c.toJson());
    auto j = c.toJson();
    j["learning_rat"] = 0.1; // a typo must not be silently ignored
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, train::TrainerConfig::fromJson(j));
    j = c.toJson();
    j["epochs"] = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, train::TrainerConfig::fromJson(j));
}

QTEST_GUILESS_MAIN(TestTrainingJob)
#include "tst_TrainingJob.moc"
