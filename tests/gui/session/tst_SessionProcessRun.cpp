// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// A local multi-process run started from the session (issue 13 §2): `setscope-cli train --nproc 2
// --events` shown as one run -- its progress, losses and epochs through the session's signals,
// one run in the project -- and cancelled as one.
#include "gui/session/Session.h"

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/model/ModelHandle.h"
#include "core/plugin/Registry.h"
#include "core/project/ProjectStore.h"
#include "tests/support/Processes.h"
#include "tests/support/TimeFactor.h"

#include <QtTest/QtTest>

#include <QElapsedTimer>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace setscope;
using gui::Session;
using S = gui::Session::TrainingState;
using setscope::testing::scaledMs;

namespace {

using testing::childrenOf;
using testing::parentOf;

train::TrainerConfig quickConfig(std::int64_t steps)
{
    train::TrainerConfig c;
    c.device = "cpu";
    c.model = "mlp";
    c.loss = "triplet";
    c.embeddingDim = 8;
    c.epochs = 100000;
    c.maxSteps = steps;
    c.threads = 1;
    return c;
}

/// The event loop's lateness while it runs: a 10 ms precise timer, the largest delay of a tick
/// beyond its 10 ms (what a blocked GUI thread shows as).
class LoopWatch : public QObject {
public:
    LoopWatch()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(10);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.elapsed();
            m_worst = std::max(m_worst, now - m_last - 10);
            m_last = now;
        });
        m_clock.start();
        m_timer.start();
    }
    qint64 worstMs() const { return m_worst; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_worst = 0;
};

QString joined(const QSignalSpy& spy)
{
    QStringList all;
    for (const QList<QVariant>& args : spy)
        all << args.at(0).toString();
    return all.join(QLatin1Char('\n'));
}

} // namespace

class TestSessionProcessRun : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;

    /// A session with `spec` open (in a project when `project` is not empty).
    void open(Session& s, const QString& spec, const QString& project = {})
    {
        if (!project.isEmpty())
            QVERIFY(s.openProject(project));
        QSignalSpy changed(&s, &Session::datasetChanged);
        s.load(spec);
        QVERIFY(changed.wait(scaledMs(60000)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        builtins::registerBuiltins(m_registry);
        qputenv("SETSCOPE_CLI", SETSCOPE_CLI);
        qputenv("SETSCOPE_DIST_STOP_GRACE", "5"); // the launcher's, and the GUI's escalation after it
    }

    void twoProcessesAreOneRun()
    {
        QTemporaryDir dir;
        Session s(m_registry);
        const QString project = dir.filePath("p.setscope");
        open(s, QStringLiteral("synthetic:dim=6,coarse=3,fine=2,points=40,seed=4"), project);
        QSignalSpy finished(&s, &Session::trainingFinished);
        QSignalSpy epochs(&s, &Session::epochMetrics);
        QSignalSpy losses(&s, &Session::stepLoss);
        QSignalSpy progress(&s, &Session::trainingProgress);
        QSignalSpy messages(&s, &Session::message);
        QSignalSpy errors(&s, &Session::error);
        QSignalSpy snapshots(&s, &Session::snapshotChanged);
        train::TrainerConfig cfg = quickConfig(20);
        cfg.snapshotEvery = 5; // the map follows checkpoints of steps 5, 10, 15, 20
        QVERIFY2(s.startTraining(cfg, 2), qPrintable(joined(errors)));
        QCOMPARE(s.trainingState(), S::Running);
        QVERIFY(finished.wait(scaledMs(180000)));
        QCOMPARE(finished.at(0).at(0).toInt(), static_cast<int>(job::JobStatus::Finished));
        QCOMPARE(s.trainingState(), S::Idle);
        const QString log = joined(messages);
        QVERIFY2(log.contains("starting 2 ranks") && log.contains("distributed: rank 0 of 2"), qPrintable(log));
        // One run's reports: epochs up to step 20, losses, progress to the end.
        QVERIFY(!epochs.isEmpty() && !losses.isEmpty() && !progress.isEmpty());
        QCOMPARE(epochs.last().at(0).value<train::EpochMetrics>().step, std::int64_t{20});
        QCOMPARE(progress.last().at(0).toLongLong(), progress.last().at(1).toLongLong());
        QCOMPARE(s.history().size(), static_cast<std::size_t>(epochs.size()));
        QVERIFY(s.history().back().value("knn-accuracy").has_value());
        // The run's newest checkpoint (in the project's folder) is where a retrain goes on from.
        QVERIFY2(QString::fromStdString(s.currentCheckpoint()).endsWith("step-000000020.pt"), s.currentCheckpoint().c_str());
        QVERIFY(QFile::exists(QString::fromStdString(s.currentCheckpoint())));
        // The map followed the checkpoints: the last one (step 20) is mapped, its model current.
        QTRY_VERIFY_WITH_TIMEOUT(s.snapshot() && s.snapshot()->step == 20, scaledMs(60000));
        QVERIFY(!snapshots.isEmpty());
        QCOMPARE(s.snapshot()->dim, 8);
        QCOMPARE(s.snapshot()->vectors.size(), s.snapshot()->items.size() * 8);
        QVERIFY(s.currentModel() && s.currentModel()->step() == 20);
        QTRY_VERIFY_WITH_TIMEOUT(s.layout() && s.layout()->sourceStep == 20, scaledMs(60000));
        // Recorded once, by rank 0, with the parts the two ranks split.
        const auto runs = s.project()->runs();
        QCOMPARE(runs.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(runs.front().status), QString("finished"));
        QVERIFY2(QString::fromStdString(runs.front().configJson).contains("\"batch_shards\":2"),
                 runs.front().configJson.c_str());
    }

    void cancelStopsEveryProcess()
    {
        Session s(m_registry);
        open(s, QStringLiteral("synthetic:dim=6,coarse=3,fine=2,points=40,seed=4"));
        QSignalSpy finished(&s, &Session::trainingFinished);
        QSignalSpy losses(&s, &Session::stepLoss);
        QSignalSpy messages(&s, &Session::message);
        QVERIFY(s.startTraining(quickConfig(100000000), 2));
        QVERIFY(losses.wait(scaledMs(120000))); // training has begun
        s.pauseTraining();                     // refused, with a reason
        QCOMPARE(s.trainingState(), S::Running);
        QVERIFY(joined(messages).contains("cannot pause"));
        s.cancelTraining();
        QCOMPARE(s.trainingState(), S::Stopping);
        QVERIFY(finished.wait(scaledMs(60000)));
        QCOMPARE(finished.at(0).at(0).toInt(), static_cast<int>(job::JobStatus::Cancelled));
        QCOMPARE(s.trainingState(), S::Idle);
    }

    // Issue 29 §5: another dataset opened while a 2-rank run trains. Before, the ranks went on
    // with Cancel disabled, their checkpoints were mapped onto the new dataset, and the next Start
    // blocked the GUI thread in ~ProcessRun (up to 15 s) and killed only the launcher. Now the run
    // is stopped without waiting: the launcher and both ranks are gone within the stop grace (5 s
    // here) and a margin, rank 0 records the run as cancelled, nothing of it reaches the map, and
    // a new run starts. The GUI thread's longest stall is measured and logged (not asserted: a
    // latency bound means little on a shared machine; gui_responsiveness does that).
    void aDatasetChangeStopsTheRun()
    {
        QTemporaryDir dir;
        Session s(m_registry);
        const QString project = dir.filePath("p.setscope");
        open(s, QStringLiteral("synthetic:dim=6,coarse=3,fine=2,points=40,seed=4"), project);
        QSignalSpy losses(&s, &Session::stepLoss);
        QSignalSpy finished(&s, &Session::trainingFinished);
        train::TrainerConfig cfg = quickConfig(100000000);
        cfg.snapshotEvery = 5; // checkpoints every 5 steps, mapped as they come
        QVERIFY(s.startTraining(cfg, 2));
        QVERIFY(losses.wait(scaledMs(120000)));
        std::vector<long> launchers;
        for (long c : childrenOf(::getpid()))
            if (childrenOf(c).size() == 2)
                launchers.push_back(c);
        QCOMPARE(launchers.size(), std::size_t(1));
        const long launcher = launchers.front();
        const std::vector<long> ranks = childrenOf(launcher);

        QSignalSpy changed(&s, &Session::datasetChanged);
        // The machine's own share of a stall (other processes, the ranks training): the event
        // loop's lateness over 2 s of the same run before the change, logged beside the figure.
        qint64 baselineMs = 0;
        {
            LoopWatch idle;
            QTest::qWait(2000);
            baselineMs = idle.worstMs();
        }
        // From the change on no snapshot of the old run may reach the session. Until the new
        // dataset has opened (load() works in the background, longer on a loaded machine) the run
        // and its map are the session's own, so what they show before then is not counted.
        QSignalSpy snapshots(&s, &Session::snapshotChanged);
        QObject::connect(&s, &Session::datasetChanged, &s, [&snapshots] { snapshots.clear(); });
        LoopWatch watch;
        QElapsedTimer call;
        call.start();
        s.load(QStringLiteral("synthetic:dim=6,coarse=3,fine=2,points=40,seed=5"));
        const qint64 loadCallMs = call.elapsed();
        QVERIFY(changed.wait(scaledMs(60000)));
        QCOMPARE(s.trainingState(), S::Idle);
        const auto gone = [&] { return parentOf(launcher) < 0 && parentOf(ranks[0]) < 0 && parentOf(ranks[1]) < 0; };
        QElapsedTimer stopping;
        stopping.start();
        QTRY_VERIFY_WITH_TIMEOUT(gone(), scaledMs(30000));
        qInfo("dataset change during a 2-rank run: load() returned in %lld ms; launcher and ranks gone %lld ms after "
              "the new dataset opened; the GUI thread's longest stall meanwhile %lld ms (over 2 s of the run before the "
              "change: %lld ms)",
              static_cast<long long>(loadCallMs), static_cast<long long>(stopping.elapsed()),
              static_cast<long long>(watch.worstMs()), static_cast<long long>(baselineMs));
        QVERIFY(finished.isEmpty()); // the old run's end is not this session's business any more
        QTest::qWait(500);           // late signals of the old run, if any, would arrive now
        QVERIFY(snapshots.isEmpty());
        QVERIFY(!s.snapshot());
        const auto runs = s.project()->runs();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(runs.front().status), QString("cancelled"));

        // The next run starts at once and ends normally.
        call.restart();
        QVERIFY(s.startTraining(quickConfig(10), 2));
        qInfo("the next 2-rank run started in %lld ms; the GUI thread's longest stall so far %lld ms",
              static_cast<long long>(call.elapsed()), static_cast<long long>(watch.worstMs()));
        QVERIFY(finished.wait(scaledMs(180000)));
        QCOMPARE(finished.last().at(0).toInt(), static_cast<int>(job::JobStatus::Finished));
    }

    void aDatasetWithoutSpecIsRefused()
    {
        Session s(m_registry);
        QSignalSpy errors(&s, &Session::error);
        // A dataset built in memory: no spec the processes could open.
        s.setDataset(std::make_shared<const data::Dataset>(
                         data::makeHierarchicalGaussians(data::SyntheticSpec::parse("points=20"))),
                     QString());
        QVERIFY(!s.startTraining(quickConfig(5), 2));
        QVERIFY2(joined(errors).contains("open it by name or path"), qPrintable(joined(errors)));
        QCOMPARE(s.trainingState(), S::Idle);
    }
};

QTEST_MAIN(TestSessionProcessRun)
#include "tst_SessionProcessRun.moc"
