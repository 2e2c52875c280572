// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// workspace::RunLaunchJob: a training run as one job with phases (external dataset, record,
// train). What is checked is the order of what the sink hears, one end, the status and the
// project's record -- not timings: pause and cancel are waited for through the training job's
// own counters (parked(), done).
#include "core/workspace/RunLaunch.h"

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "core/project/ProjectStore.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/Workspace.h"

#include "tests/support/TimeFactor.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

using namespace setscope;

namespace {

/// What the job's sink heard, in order: "progress: what", "message: text", "loss", "epoch",
/// "finished: status detail".
class RecordingSink final : public train::TrainingSink {
public:
    void progress(std::int64_t, std::int64_t, const std::string& what) override { add("progress: " + what); }
    void message(const std::string& text) override { add("message: " + text); }
    void stepLoss(std::int64_t, double) override { add("loss"); }
    void epochMetrics(const train::EpochMetrics&) override { add("epoch"); }
    void finished(job::JobStatus status, const std::string& detail) override
    {
        add("finished: " + std::to_string(static_cast<int>(status)) + " " + detail);
    }
    std::vector<std::string> events() const
    {
        std::lock_guard lock(m_mutex);
        return m_events;
    }
    /// Index of the first event starting with `prefix` (-1 when none).
    int first(const std::string& prefix) const
    {
        const auto e = events();
        for (std::size_t i = 0; i < e.size(); ++i)
            if (e[i].rfind(prefix, 0) == 0)
                return static_cast<int>(i);
        return -1;
    }
    int count(const std::string& prefix) const
    {
        int n = 0;
        for (const std::string& e : events())
            n += e.rfind(prefix, 0) == 0;
        return n;
    }

private:
    void add(std::string e)
    {
        std::lock_guard lock(m_mutex);
        m_events.push_back(std::move(e));
    }
    mutable std::mutex m_mutex;
    std::vector<std::string> m_events;
};

std::shared_ptr<const data::Dataset> synthetic(const std::string& spec)
{
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse(spec)));
}

train::TrainerConfig quick(int epochs)
{
    train::TrainerConfig c;
    c.device = "cpu";
    c.epochs = epochs;
    c.snapshotEvery = 0;
    c.evaluateEachEpoch = false;
    c.embeddingDim = 4;
    c.threads = 1;
    return c;
}

workspace::RunLaunch launchOn(std::shared_ptr<const data::Dataset> ds, train::TrainerConfig c)
{
    workspace::RunLaunch l;
    l.dataset = std::move(ds);
    l.config = std::move(c);
    return l;
}

std::string finishedWith(job::JobStatus status)
{
    return "finished: " + std::to_string(static_cast<int>(status));
}

} // namespace

class TestRunLaunch : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;

private Q_SLOTS:
    void initTestCase() { builtins::registerBuiltins(m_registry); }

    // Recipe ext pre-trains on config.externalDataset: the job opens it first (its progress
    // says so), then trains; one end, the training job's status.
    void opensTheExternalDatasetFirst()
    {
        train::TrainerConfig c = quick(1);
        c.recipe = "ext";
        c.maxSteps = 4;
        c.externalDataset = "synthetic:dim=3,points=20";
        workspace::RunLaunchJob job(launchOn(synthetic("dim=3,points=20"), c), m_registry);
        QVERIFY(job.opensExternal());
        RecordingSink sink;
        QCOMPARE(job.runHere(&sink), job::JobStatus::Finished);
        QVERIFY(job.external());
        QCOMPARE(job.external()->size(), synthetic("dim=3,points=20")->size());
        QVERIFY(job.training());
        QCOMPARE(job.training()->status(), job::JobStatus::Finished);
        QCOMPARE(job.training()->counters().done.load(), std::int64_t(4));
        const int opening = sink.first("progress: opening synthetic:dim=3,points=20");
        const int loss = sink.first("loss");
        QVERIFY2(opening >= 0 && loss > opening, qPrintable(QString::number(opening) + " " + QString::number(loss)));
        QCOMPARE(sink.count("finished: "), 1);
        QCOMPARE(sink.events().back().rfind(finishedWith(job::JobStatus::Finished), 0), std::size_t(0));

        // Given the external dataset, the job does not open it again.
        workspace::RunLaunch again = launchOn(synthetic("dim=3,points=20"), c);
        again.external = job.external();
        workspace::RunLaunchJob second(again, m_registry);
        QVERIFY(!second.opensExternal());
        RecordingSink quiet;
        QCOMPARE(second.runHere(&quiet), job::JobStatus::Finished);
        QCOMPARE(quiet.first("progress: opening"), -1);
        QCOMPARE(second.external(), job.external());
    }

    // An external dataset that cannot be opened fails the run, naming it; nothing trains.
    void aBadExternalDatasetFailsTheRunNamingIt()
    {
        train::TrainerConfig c = quick(1);
        c.recipe = "ext";
        c.externalDataset = "/nonexistent/external.npy";
        workspace::RunLaunchJob job(launchOn(synthetic("dim=3,points=20"), c), m_registry);
        RecordingSink sink;
        QCOMPARE(job.runHere(&sink), job::JobStatus::Failed);
        QVERIFY2(job.error().find("/nonexistent/external.npy") != std::string::npos, job.error().c_str());
        QVERIFY(!job.training());
        QCOMPARE(sink.count("finished: "), 1);
        QCOMPARE(sink.count("loss"), 0);
    }

    // A bad setting is refused when the job is made, before anything runs.
    void aBadConfigurationIsRefusedAtOnce()
    {
        train::TrainerConfig c = quick(0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 workspace::RunLaunchJob(launchOn(synthetic("dim=3,points=20"), c), m_registry));
        c = quick(1);
        c.recipe = "ext"; // needs an external dataset and names none
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 workspace::RunLaunchJob(launchOn(synthetic("dim=3,points=20"), c), m_registry));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, workspace::RunLaunchJob(workspace::RunLaunch{}, m_registry));
    }

    // With a project the run is recorded (its id, the message naming the project) and its end
    // too; a run cancelled before its start records "cancelled" and takes no step.
    void recordsTheRunInTheProject()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("p.setscope")).toStdString();
        workspace::Workspace ws(m_registry);
        ws.openProject(file);
        ws.attach(synthetic("dim=3,points=40"), "mem");
        QVERIFY(ws.inProject());

        {
            workspace::RunLaunchJob job(workspace::RunLaunch::from(ws, quick(2)), m_registry);
            RecordingSink sink;
            QCOMPARE(job.runHere(&sink), job::JobStatus::Finished);
            QVERIFY(job.runId() > 0);
            QVERIFY2(sink.first("message: Recording run " + std::to_string(job.runId()) + " in " + file) >= 0,
                     qPrintable(QString::fromStdString(sink.events().front())));
        }
        {
            workspace::RunLaunchJob job(workspace::RunLaunch::from(ws, quick(2)), m_registry);
            job.cancel();
            RecordingSink sink;
            QCOMPARE(job.runHere(&sink), job::JobStatus::Cancelled);
            QVERIFY(job.training());
            QCOMPARE(job.training()->counters().done.load(), std::int64_t(0));
            QCOMPARE(sink.count("finished: "), 1);
        }
        const auto runs = project::ProjectStore::open(file)->runs();
        QCOMPARE(runs.size(), std::size_t(2));
        std::vector<std::string> statuses{runs[0].status, runs[1].status};
        std::sort(statuses.begin(), statuses.end());
        QCOMPARE(statuses, (std::vector<std::string>{"cancelled", "finished"}));
    }

    // Pause and resume reach the training job (it parks, then goes on); cancel stops it after at
    // most the step in flight. Waited for through the training job's own state, on its thread.
    void pauseResumeAndCancelReachTheTraining()
    {
        workspace::RunLaunchJob job(launchOn(synthetic("dim=8,points=1000"), quick(200)), m_registry);
        RecordingSink sink;
        job.start(&sink);
        QTRY_VERIFY_WITH_TIMEOUT(job.training() && job.training()->counters().done.load() >= 3,
                                 setscope::testing::scaledMs(60000));
        const train::TrainingJob* training = job.training();
        job.pause();
        QTRY_VERIFY_WITH_TIMEOUT(training->parked(), setscope::testing::scaledMs(60000));
        const auto paused = training->counters().done.load();
        job.resume();
        QTRY_VERIFY_WITH_TIMEOUT(training->counters().done.load() > paused + 2, setscope::testing::scaledMs(60000));
        const auto atCancel = training->counters().done.load();
        job.cancel();
        job.wait();
        QCOMPARE(job.status(), job::JobStatus::Cancelled);
        QVERIFY(training->counters().done.load() <= atCancel + 1);
        QCOMPARE(sink.count("finished: "), 1);
        QCOMPARE(sink.events().back().rfind(finishedWith(job::JobStatus::Cancelled), 0), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestRunLaunch)
#include "tst_RunLaunch.moc"
