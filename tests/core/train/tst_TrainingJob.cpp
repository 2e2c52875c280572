// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// TrainingJob through its Torch-free public API, as the GUI and the CLI use it.
#include "core/builtins/Builtins.h"
#include "core/data/Synthetic.h"
#include "core/eval/Metrics.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"
#include "tests/support/TimeFactor.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <setscope/sdk/Errors.h>

#include <atomic>
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
    c.samplerOptions = {{"classes", "4"}, {"per-class", "8"}};
    c.embeddingDim = 8;
    c.snapshotEvery = 0;
    c.device = "cpu";
    return c;
}

struct RecordingSink : train::TrainingSink {
    std::mutex m;
    std::vector<train::EpochMetrics> epochs;
    std::vector<std::int64_t> lossSteps;
    std::vector<std::string> checkpoints;
    void stepLoss(std::int64_t step, double) override
    {
        std::lock_guard l(m);
        lossSteps.push_back(step);
    }
    void checkpointWritten(std::int64_t, const std::string& path) override
    {
        std::lock_guard l(m);
        checkpoints.push_back(path);
    }
    std::vector<std::string> messages;
    job::JobStatus status = job::JobStatus::Idle;
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
    void finished(job::JobStatus s, const std::string& d) override
    {
        std::lock_guard l(m);
        status = s;
        detail = d;
    }
};

} // namespace

class TestTrainingJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void trainsAndLearns_data();
    void trainsAndLearns();
    void evaluateEveryScoresChosenEpochs();
    void startedThroughJobReportsEverything();
    void cancelStopsAtTheNextStep();
    void pauseAndResume();
    void checkpointResumeIsIdentical();
    void resumeRefusesAnotherConfiguration_data();
    void resumeRefusesAnotherConfiguration();
    void resumeOverride();
    void initFromStartsFromTheCheckpointsWeights();
    void threadsAreTheJobsOwn();
    void overlappingJobsGetTheirSoloWeights();
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
    builtins::registerBuiltins(m_registry);
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
    QCOMPARE(job.runHere(&sink), job::JobStatus::Finished);
    QCOMPARE(int(sink.epochs.size()), 8);
    QCOMPARE(job.history().size(), std::size_t(8));
    const auto& first = sink.epochs.front();
    const auto& last = sink.epochs.back();
    QVERIFY2(last.meanLoss < first.meanLoss, qPrintable(QString("%1 -> %2").arg(first.meanLoss).arg(last.meanLoss)));
    // 9 fine classes: chance is 0.11. The data are separable, so a learned metric must do well.
    const double knn = last.value("knn-accuracy").value_or(-1.0);
    QVERIFY2(knn > 0.85, qPrintable(QString::number(knn)));
    QVERIFY(last.value("recall-hit@1") && last.value("recall-hit@8"));
    QVERIFY(*last.value("recall-hit@8") >= *last.value("recall-hit@1"));
    QCOMPARE(last.step, job.totalSteps());
}

// evaluate_every = 3 over 7 epochs: epochs 3 and 6 are scored, and 7, the stage's last; every
// epoch still reports its loss. Any other value is refused.
void TestTrainingJob::evaluateEveryScoresChosenEpochs()
{
    auto ds = dataset();
    train::TrainerConfig c = quickConfig();
    c.epochs = 7;
    c.evaluateEvery = 3;
    RecordingSink sink;
    train::TrainingJob job(ds, c, m_registry);
    QCOMPARE(job.runHere(&sink), job::JobStatus::Finished);
    QCOMPARE(int(sink.epochs.size()), 7);
    std::vector<int> scored;
    for (const train::EpochMetrics& e : sink.epochs) {
        QVERIFY(e.meanLoss > 0.0);
        if (e.value("knn-accuracy"))
            scored.push_back(e.epoch);
    }
    QCOMPARE(scored, (std::vector<int>{3, 6, 7}));
    QCOMPARE(train::TrainerConfig::fromJson(c.toJson()).evaluateEvery, 3);
    nlohmann::json j = c.toJson();
    j["evaluate_every"] = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, train::TrainerConfig::fromJson(j));
}

// Cancel is counted, not timed: requested from the job's own report after step k, the job
// polls before step k + 1 and ends there (bench/jobs measures the seconds).
void TestTrainingJob::startedThroughJobReportsEverything()
{
    // A caller that holds the run as a job::Job (a job slot, a list of jobs) starts it with
    // Job::start(ProgressSink*): a TrainingSink given so still gets losses, epoch rows and
    // checkpoints (issue 30 §1: one start for every job).
    auto ds = dataset(20);
    train::TrainerConfig c = quickConfig();
    c.epochs = 2;
    c.checkpointDir = m_dir.filePath("through-job").toStdString();
    train::TrainingJob training(ds, c, m_registry);
    RecordingSink sink;
    job::Job& asJob = training;
    asJob.start(static_cast<job::ProgressSink*>(&sink));
    asJob.wait();
    QCOMPARE(asJob.status(), job::JobStatus::Finished);
    std::lock_guard l(sink.m);
    QCOMPARE(sink.status, job::JobStatus::Finished);
    QCOMPARE(int(sink.epochs.size()), 2);
    QVERIFY(!sink.lossSteps.empty());
    QCOMPARE(sink.lossSteps.back(), training.totalSteps());
    QCOMPARE(int(sink.checkpoints.size()), 2); // one per epoch
    QCOMPARE(sink.checkpoints.back(), training.lastCheckpoint());

    // The same through Job::runHere.
    RecordingSink again;
    train::TrainingJob second(ds, quickConfig(), m_registry);
    QCOMPARE(static_cast<job::Job&>(second).runHere(static_cast<job::ProgressSink*>(&again)), job::JobStatus::Finished);
    QCOMPARE(int(again.epochs.size()), 2);
}

void TestTrainingJob::cancelStopsAtTheNextStep()
{
    auto ds = dataset(400);
    train::TrainerConfig c = quickConfig();
    c.epochs = 1000;
    struct CancelAtStep : RecordingSink {
        train::TrainingJob* job = nullptr;
        std::atomic<std::int64_t> at{-1};
        void stepLoss(std::int64_t step, double) override
        {
            if (step >= 20 && at.load() < 0) {
                at = step;
                job->cancel();
            }
        }
    } sink;
    train::TrainingJob job(ds, c, m_registry);
    sink.job = &job;
    job.start(&sink);
    job.wait(); // ends only through the cancel
    QCOMPARE(job.status(), job::JobStatus::Cancelled);
    QCOMPARE(sink.status, job::JobStatus::Cancelled);
    QVERIFY(sink.at.load() >= 20);
    QCOMPARE(job.counters().done.load(), sink.at.load()); // not one step more
}

// A pause parks the job after its step in flight (JobControl::parked, set by the job's own
// thread); no step runs while parked; a cancel wakes a parked job and ends it there.
void TestTrainingJob::pauseAndResume()
{
    auto ds = dataset(400);
    train::TrainerConfig c = quickConfig();
    c.epochs = 1000;
    train::TrainingJob job(ds, c, m_registry);
    job.start(nullptr);
    QVERIFY(setscope::testing::waitUntil([&] { return job.counters().done.load() > 5; }));
    job.pause();
    QVERIFY(setscope::testing::waitUntil([&] { return job.parked(); }));
    const auto frozen = job.counters().done.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(200)); // an observation window
    QCOMPARE(job.counters().done.load(), frozen);
    QVERIFY(job.paused());
    job.resume();
    QVERIFY(setscope::testing::waitUntil([&] { return job.counters().done.load() > frozen + 5; }));
    job.pause();
    QVERIFY(setscope::testing::waitUntil([&] { return job.parked(); }));
    const auto frozen2 = job.counters().done.load();
    job.cancel(); // must not hang on a paused job
    job.wait();
    QCOMPARE(job.status(), job::JobStatus::Cancelled);
    QCOMPARE(job.counters().done.load(), frozen2);
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
        QCOMPARE(a.runHere(nullptr), job::JobStatus::Finished);
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
        QCOMPARE(b.runHere(nullptr), job::JobStatus::Finished);
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
        QCOMPARE(o.runHere(nullptr), job::JobStatus::Finished);
    }
    const auto ec = train::embedWithCheckpoint(other.checkpointDir + "/step-000000040.pt", *ds, m_registry);
    QVERIFY(ec.data != ea.data);
    QCOMPARE(histB.size(), std::size_t(4)); // epochs ended at steps 12, 24, 36; the run at max_steps 40
    QCOMPARE(histB[0].step, std::int64_t(12));
    QCOMPARE(histB[3].step, std::int64_t(40));
}

void TestTrainingJob::resumeRefusesAnotherConfiguration_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expect");
    for (const char* f : {"loss", "seed", "optimizer_options", "loss_options", "sampler_options", "label_set", "threads"})
        QTest::newRow(f) << f << "trained with a different configuration";
    QTest::newRow("embedding_dim") << "embedding_dim" << "checkpoint of another model";
    QTest::newRow("model_options") << "model_options" << "checkpoint of another model";
}

// A checkpoint trained with other settings would resume into a Torch error (another model)
// or silently break "identical to an uninterrupted run": refused before any step, with the
// field and both values named; the same check is available before starting (checkResume).
void TestTrainingJob::resumeRefusesAnotherConfiguration()
{
    QFETCH(QString, field);
    QFETCH(QString, expect);
    auto ds = dataset();
    train::TrainerConfig base = quickConfig();
    base.maxSteps = 5;
    base.threads = 1;
    base.checkpointDir = m_dir.filePath("refuse-base").toStdString();
    if (!std::filesystem::exists(base.checkpointDir + "/step-000000005.pt")) {
        train::TrainingJob b(ds, base, m_registry);
        QCOMPARE(b.runHere(nullptr), job::JobStatus::Finished);
    }
    train::TrainerConfig r = base;
    r.checkpointDir = m_dir.filePath("refuse-" + field).toStdString();
    r.resumeFrom = base.checkpointDir + "/step-000000005.pt";
    r.maxSteps = 10; // extending the run is allowed
    QString from, to;
    if (field == "loss") { r.loss = "contrastive"; from = "\"\""; to = "\"contrastive\""; }
    if (field == "seed") { r.seed = 7; from = "1"; to = "7"; }
    if (field == "optimizer_options") { r.optimizerOptions["lr"] = "0.01"; from = "{}"; to = "{\"lr\":\"0.01\"}"; }
    if (field == "loss_options") { r.lossOptions["margin"] = "0.5"; from = "{}"; to = "{\"margin\":\"0.5\"}"; }
    if (field == "sampler_options") {
        r.samplerOptions["per-class"] = "4";
        from = "{\"classes\":\"4\",\"per-class\":\"8\"}";
        to = "{\"classes\":\"4\",\"per-class\":\"4\"}";
    }
    if (field == "label_set") { r.labelSet = "coarse"; from = "\"fine\""; to = "\"coarse\""; }
    if (field == "threads") { r.threads = 2; from = "1"; to = "2"; }
    if (field == "embedding_dim") { r.embeddingDim = 4; from = "8"; to = "4"; }
    if (field == "model_options") { r.modelOptions["hidden"] = "16"; from = "{}"; to = "{\"hidden\":\"16\"}"; }

    const QString needle = field + " " + from + " \u2192 " + to;
    try {
        train::checkResume(r, *ds);
        QFAIL("checkResume accepted it");
    } catch (const sdk::InputError& e) {
        const QString msg = QString::fromUtf8(e.what());
        QVERIFY2(msg.contains(expect) && msg.contains(needle), qPrintable(msg));
        QVERIFY2(msg.startsWith(QString::fromStdString(r.resumeFrom)), qPrintable(msg));
    }
    RecordingSink sink;
    train::TrainingJob job(ds, r, m_registry);
    QCOMPARE(job.runHere(&sink), job::JobStatus::Failed);
    QVERIFY2(QString::fromStdString(job.error()).contains(needle), job.error().c_str());
    QCOMPARE(job.counters().done.load(), std::int64_t(0));
    QVERIFY(!std::filesystem::exists(r.checkpointDir)); // nothing trained, nothing written
    if (expect.contains("configuration")) {
        QVERIFY2(QString::fromStdString(job.error()).contains("--resume-override " + field), job.error().c_str());
    } else {
        // The weights cannot fit: not even an override helps.
        r.resumeOverrides = {field.toStdString()};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r.validate());
    }
}

// A deliberate override resumes and says that the run is no longer an exact continuation.
void TestTrainingJob::resumeOverride()
{
    auto ds = dataset();
    train::TrainerConfig base = quickConfig();
    base.maxSteps = 5;
    base.checkpointDir = m_dir.filePath("override-base").toStdString();
    {
        train::TrainingJob b(ds, base, m_registry);
        QCOMPARE(b.runHere(nullptr), job::JobStatus::Finished);
    }
    train::TrainerConfig r = base;
    r.checkpointDir = m_dir.filePath("override").toStdString();
    r.resumeFrom = base.checkpointDir + "/step-000000005.pt";
    r.maxSteps = 8;
    r.loss = "contrastive";
    r.seed = 3;
    r.resumeOverrides = {"loss", "seed"};
    QVERIFY(QString::fromStdString(train::checkResume(r, *ds)).contains("seed 1 \u2192 3"));
    RecordingSink sink;
    train::TrainingJob job(ds, r, m_registry);
    QCOMPARE(job.runHere(&sink), job::JobStatus::Finished);
    QCOMPARE(job.counters().done.load(), std::int64_t(8));
    bool said = false;
    for (const auto& m : sink.messages)
        said = said || (m.find("not an exact continuation") != std::string::npos && m.find("loss") != std::string::npos);
    QVERIFY(said);
    // Names that are no field are refused with the list of those that are.
    r.resumeOverrides = {"optimizer_option"};
    try {
        r.validate();
        QFAIL("accepted an unknown override");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(std::string(e.what()).find("optimizer_options") != std::string::npos, e.what());
    }
}

// A job's thread count is its worker thread's own: the process default that other (and new)
// threads start from stays as it was. at::set_num_threads wrote it process-wide.
void TestTrainingJob::initFromStartsFromTheCheckpointsWeights()
{
    namespace fs = std::filesystem;
    auto ds = dataset();
    train::TrainerConfig a = quickConfig();
    a.maxSteps = 10;
    a.threads = 1;
    a.checkpointDir = m_dir.filePath("initA").toStdString();
    {
        train::TrainingJob job(ds, a, m_registry);
        QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    }
    const std::string from = a.checkpointDir + "/step-000000010.pt";
    QVERIFY(fs::exists(from));

    // A fine-tuning start with other settings (what a resume refuses): one step with a learning
    // rate so small that float32 weights cannot move, so the weights after it are those loaded
    // at step 0.
    train::TrainerConfig b = quickConfig();
    b.seed = 7;
    b.optimizer = "sgd";
    b.optimizerOptions = {{"lr", "1e-12"}, {"momentum", "0"}};
    b.maxSteps = 1;
    b.threads = 1;
    b.initFrom = from;
    b.checkpointDir = m_dir.filePath("initB").toStdString();
    QCOMPARE(train::checkResume(b, *ds), std::string());
    RecordingSink sink;
    {
        train::TrainingJob job(ds, b, m_registry);
        QCOMPARE(job.runHere(&sink), job::JobStatus::Finished);
    }
    // The step count starts fresh (a resume would continue at 10).
    QVERIFY(fs::exists(b.checkpointDir + "/step-000000001.pt"));
    bool told = false;
    for (const auto& m : sink.messages)
        told = told || m.rfind("started from the weights of " + from, 0) == 0;
    QVERIFY(told);
    const auto want = train::embedWithCheckpoint(from, *ds, m_registry);
    const auto got = train::embedWithCheckpoint(b.checkpointDir + "/step-000000001.pt", *ds, m_registry);
    QCOMPARE(got.data.size(), want.data.size());
    float worst = 0;
    for (std::size_t i = 0; i < want.data.size(); ++i)
        worst = std::max(worst, std::abs(got.data[i] - want.data[i]));
    QVERIFY2(worst < 1e-6f, qPrintable(QString::number(worst)));
    QCOMPARE(nlohmann::json::parse(got.config).at("init_from").get<std::string>(), from); // provenance

    // Sharp: the same run without init_from starts elsewhere.
    b.initFrom.clear();
    b.checkpointDir = m_dir.filePath("initC").toStdString();
    {
        train::TrainingJob job(ds, b, m_registry);
        QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    }
    const auto fresh = train::embedWithCheckpoint(b.checkpointDir + "/step-000000001.pt", *ds, m_registry);
    float diff = 0;
    for (std::size_t i = 0; i < want.data.size(); ++i)
        diff = std::max(diff, std::abs(fresh.data[i] - want.data[i]));
    QVERIFY2(diff > 1e-2f, qPrintable(QString::number(diff)));

    // Weights of another shape are refused before training, naming the checkpoint.
    train::TrainerConfig wrong = quickConfig();
    wrong.embeddingDim = 16;
    wrong.initFrom = from;
    QVERIFY_THROWS_EXCEPTION(sdk::InputError, train::checkResume(wrong, *ds));
    train::TrainingJob job(ds, wrong, m_registry);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Failed);
    QVERIFY2(QString::fromStdString(job.error()).contains("embedding_dim"), job.error().c_str());
}

void TestTrainingJob::threadsAreTheJobsOwn()
{
    int before = 0;
    std::thread([&] { before = train::intraOpThreadsHere(); }).join();
    QVERIFY(before >= 1);
    auto ds = dataset();
    train::TrainerConfig c = quickConfig();
    c.maxSteps = 3;
    c.threads = before + 1;
    RecordingSink sink;
    train::TrainingJob job(ds, c, m_registry);
    job.start(&sink);
    job.wait();
    QCOMPARE(job.status(), job::JobStatus::Finished);
    bool used = false;
    for (const auto& m : sink.messages)
        used = used || m.find(std::to_string(before + 1) + " intra-op threads") != std::string::npos;
    QVERIFY(used); // the job itself ran with its count
    int after = 0;
    std::thread([&] { after = train::intraOpThreadsHere(); }).join();
    QCOMPARE(after, before);
}

// Seeding and drawing the initial weights use LibTorch's process-wide generator: jobs that
// overlap (the GUI starts one while another stops) must still get their solo weights.
void TestTrainingJob::overlappingJobsGetTheirSoloWeights()
{
    auto ds = dataset();
    auto config = [&](std::uint64_t seed, const QString& dir) {
        train::TrainerConfig c = quickConfig();
        c.maxSteps = 6;
        c.threads = 1;
        c.seed = seed;
        c.evaluateEachEpoch = false;
        c.modelOptions["hidden"] = "1024,1024,1024"; // a long initialisation: overlaps are likely
        c.checkpointDir = m_dir.filePath(dir).toStdString();
        return c;
    };
    {
        train::TrainingJob solo(ds, config(1, "solo"), m_registry);
        QCOMPARE(solo.runHere(nullptr), job::JobStatus::Finished);
    }
    const auto want = train::embedWithCheckpoint(m_dir.filePath("solo/step-000000006.pt").toStdString(), *ds, m_registry);
    for (int round = 0; round < 3; ++round) {
        std::vector<std::unique_ptr<train::TrainingJob>> jobs;
        for (std::uint64_t seed = 1; seed <= 8; ++seed)
            jobs.push_back(std::make_unique<train::TrainingJob>(
                ds, config(seed, QStringLiteral("overlap-%1-%2").arg(round).arg(seed)), m_registry));
        for (auto& j : jobs)
            j->start(nullptr);
        for (auto& j : jobs) {
            j->wait();
            QCOMPARE(j->status(), job::JobStatus::Finished);
        }
        const auto got = train::embedWithCheckpoint(
            m_dir.filePath(QStringLiteral("overlap-%1-1/step-000000006.pt").arg(round)).toStdString(), *ds, m_registry);
        QVERIFY2(got.data == want.data, qPrintable(QStringLiteral("round %1").arg(round)));
    }
}

void TestTrainingJob::snapshotsArePublished()
{
    auto ds = dataset();
    train::TrainerConfig c = quickConfig();
    c.snapshotEvery = 5;
    c.snapshotItems = 50;
    c.maxSteps = 20;
    train::TrainingJob job(ds, c, m_registry);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
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
    QTest::newRow("unknown loss") << 0 << "unknown loss 'nope' (available: triplet, contrastive, wsset, sset, approx-emd, nt-xent, exemplar, cross-entropy, uniformity, locality-contrastive, npair, cosine-triplet, moco, ssdml-angular, seraph, lrml, ap-prior)";
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
        QCOMPARE(o.runHere(nullptr), job::JobStatus::Finished);
        c.resumeFrom = o.lastCheckpoint();
        break;
    }
    case 5: c.model = "transformer-xl"; break;
    }
    RecordingSink sink;
    train::TrainingJob job(ds, c, m_registry);
    QCOMPARE(job.runHere(&sink), job::JobStatus::Failed);
    QVERIFY2(QString::fromStdString(job.error()).contains(expect), job.error().c_str());
    QCOMPARE(sink.detail, job.error());
}

void TestTrainingJob::configJsonRoundTrip()
{
    train::TrainerConfig c = quickConfig();
    c.modelOptions["hidden"] = "32,32";
    c.lossOptions["margin"] = "0.25";
    c.initFrom = "/tmp/best.pt";
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
