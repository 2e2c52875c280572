// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/session/Session.h"

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "core/project/ProjectStore.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/Workspace.h"
#include "tests/support/TimeFactor.h"

#include <QtTest/QtTest>

#include <sqlite3.h>

#include <numeric>
#include <set>

using namespace setscope;
using gui::Session;
using S = gui::Session::TrainingState;

namespace {

/// Holds a project file's write lock from a second SQLite connection (BEGIN IMMEDIATE), so
/// every write of the project store waits in its busy handler until release().
class ProjectWriteLock {
public:
    explicit ProjectWriteLock(const QString& file)
    {
        if (sqlite3_open_v2(file.toUtf8().constData(), &m_db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK ||
            sqlite3_exec(m_db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
            m_error = sqlite3_errmsg(m_db);
        else
            m_held = true;
    }
    ~ProjectWriteLock() { release(); }
    bool held() const { return m_held; }
    const char* error() const { return m_error.c_str(); }
    void release()
    {
        if (m_held)
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
        m_held = false;
        if (m_db)
            sqlite3_close(m_db);
        m_db = nullptr;
    }

private:
    sqlite3* m_db = nullptr;
    bool m_held = false;
    std::string m_error;
};

std::shared_ptr<const data::Dataset> synthetic(const std::string& spec)
{
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse(spec)));
}

/// A quick map for tests: PCA (the t-SNE path is the layout job's own test's business).
layout::LayoutJob::Options pcaOptions()
{
    layout::LayoutJob::Options o;
    o.method = layout::LayoutMethod::Pca;
    return o;
}

train::TrainerConfig quickConfig()
{
    train::TrainerConfig c;
    c.device = "cpu";
    c.epochs = 200; // long enough to pause and cancel
    c.snapshotEvery = 5;
    c.evaluateEachEpoch = false;
    c.embeddingDim = 8;
    c.threads = 1;
    return c;
}

} // namespace

class TestSession : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;

private Q_SLOTS:
    void initTestCase() { builtins::registerBuiltins(m_registry); }

    void mapItemsAreEveryItemOrTheTestSplitWhenLimited()
    {
        const auto ds = synthetic("points=40");
        std::vector<std::int64_t> all(ds->size());
        std::iota(all.begin(), all.end(), 0);
        QCOMPARE(workspace::mapItems(*ds, "fine", 0), all); // the default: every item
        QCOMPARE(workspace::mapItems(*ds, "fine", 3000), ds->indices(data::Split::Test));
    }

    void mapItemsAreAStratifiedSubset()
    {
        const auto ds = synthetic("coarse=4,fine=2,points=200"); // 1600 items, test 400, 50 per class
        const auto items = workspace::mapItems(*ds, "fine", 100);
        QVERIFY(items.size() <= 100 && items.size() >= 96);
        QVERIFY(std::is_sorted(items.begin(), items.end()));
        std::map<int, int> perClass;
        for (std::int64_t i : items) {
            QCOMPARE(ds->split(static_cast<std::size_t>(i)), data::Split::Test);
            ++perClass[ds->labelSet("fine")->labels[static_cast<std::size_t>(i)]];
        }
        QCOMPARE(perClass.size(), std::size_t(8));
        for (auto [c, n] : perClass)
            QVERIFY2(n >= 11 && n <= 13, qPrintable(QStringLiteral("class %1: %2").arg(c).arg(n))); // 100 / 8
        QCOMPARE(workspace::mapItems(*ds, "fine", 100), items); // deterministic
    }

    void rawSnapshotHoldsTheVectorsOrSetMeans()
    {
        const auto ds = synthetic("dim=3,points=10");
        const std::vector<std::int64_t> items = {0, 7, 42};
        const auto s = workspace::rawSnapshot(*ds, items);
        QCOMPARE(s->dim, 3);
        QCOMPARE(s->items, items);
        QCOMPARE(s->step, 0);
        for (std::size_t r = 0; r < items.size(); ++r)
            for (int k = 0; k < 3; ++k)
                QCOMPARE(s->vectors[r * 3 + k], ds->item(static_cast<std::size_t>(items[r])).values[k]);

        const auto sets = synthetic("dim=2,points=5,set=4");
        const auto m = workspace::rawSnapshot(*sets, {3});
        const data::ItemView it = sets->item(3);
        QCOMPARE(it.count, std::size_t(4));
        for (int k = 0; k < 2; ++k) {
            double mean = 0;
            for (std::size_t e = 0; e < 4; ++e)
                mean += it.element(e)[k] / 4.0;
            QVERIFY(std::abs(m->vectors[k] - mean) < 1e-5);
        }
    }

    void loadOpensADatasetAndShowsItsMap()
    {
        Session s(m_registry);
        s.setLayoutOptions(pcaOptions());
        QSignalSpy loading(&s, &Session::loadingChanged);
        QSignalSpy changed(&s, &Session::datasetChanged);
        s.load(QStringLiteral("synthetic:dim=4,coarse=2,fine=2,points=50"));
        // Loading is the GUI thread's state: true until this thread has handled the job's
        // end, however fast the job is (on a loaded machine it may already have finished).
        QVERIFY(s.isLoading());
        QCOMPARE(loading.count(), 1);
        QVERIFY(!s.dataset());
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, setscope::testing::scaledMs(20000));
        QVERIFY(!s.isLoading());
        QCOMPARE(loading.count(), 2);
        QCOMPARE(loading.at(0).at(0).toBool(), true);
        QCOMPARE(loading.at(1).at(0).toBool(), false);
        QVERIFY(s.dataset());
        QCOMPARE(s.dataset()->size(), std::size_t(200));
        QCOMPARE(s.datasetSpec(), QStringLiteral("synthetic:dim=4,coarse=2,fine=2,points=50"));
        // The map before training: the raw vectors of every item.
        QTRY_VERIFY_WITH_TIMEOUT(s.layout() != nullptr, setscope::testing::scaledMs(20000));
        QCOMPARE(s.layout()->items, workspace::mapItems(*s.dataset(), "fine", 0));
        QCOMPARE(s.layout()->items.size(), s.dataset()->size()); // every item
        QCOMPARE(s.layout()->xy.size(), 2 * s.layout()->items.size());
    }

    void loadFailureCarriesTheLoadersMessage()
    {
        Session s(m_registry);
        QSignalSpy failed(&s, &Session::loadFailed);
        QSignalSpy changed(&s, &Session::datasetChanged);
        s.load(QStringLiteral("/nonexistent/data.csv"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, setscope::testing::scaledMs(20000));
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("/nonexistent/data.csv"));
        QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("/nonexistent/data.csv")),
                 qPrintable(failed.at(0).at(1).toString()));
        QCOMPARE(changed.count(), 0);
        QVERIFY(!s.isLoading());
    }

    void startNeedsADatasetAndAValidConfig()
    {
        Session s(m_registry);
        QSignalSpy errors(&s, &Session::error);
        QVERIFY(!s.startTraining(quickConfig()));
        QCOMPARE(errors.count(), 1);
        s.setLayoutOptions(pcaOptions());
        s.setDataset(synthetic("points=20"), QStringLiteral("mem"));
        train::TrainerConfig bad = quickConfig();
        bad.epochs = 0;
        QVERIFY(!s.startTraining(bad));
        QCOMPARE(errors.count(), 2);
        QCOMPARE(s.trainingState(), S::Idle);
    }

    // The first training snapshot has the very items of the map shown before training, so
    // the layout warm-starts item by item; snapshots flow to the layout job.
    void trainingSnapshotsFeedTheMap()
    {
        Session s(m_registry);
        s.setLayoutOptions(pcaOptions());
        const auto ds = synthetic("dim=6,coarse=4,fine=2,points=100");
        s.setDataset(ds, QStringLiteral("mem"));
        QTRY_VERIFY_WITH_TIMEOUT(s.layout() != nullptr, setscope::testing::scaledMs(20000));
        const auto before = s.layoutUpdates();
        train::TrainerConfig c = quickConfig();
        c.epochs = 3;
        QSignalSpy finished(&s, &Session::trainingFinished);
        QSignalSpy snapshots(&s, &Session::snapshotChanged);
        QVERIFY(s.startTraining(c));
        QCOMPARE(s.trainingState(), S::Running);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, setscope::testing::scaledMs(60000));
        QCOMPARE(finished.at(0).at(0).toInt(), static_cast<int>(job::JobStatus::Finished));
        QCOMPARE(s.trainingState(), S::Idle);
        QVERIFY(snapshots.count() >= 1);
        QVERIFY(s.snapshot());
        QCOMPARE(s.snapshot()->items, workspace::mapItems(*ds, "fine", s.mapItemLimit()));
        QCOMPARE(s.snapshot()->step, s.trainingJob()->totalSteps()); // the last one was picked up
        QCOMPARE(s.snapshot()->dim, 8);
        QTRY_VERIFY_WITH_TIMEOUT(s.layout() && s.layout()->sourceStep == s.snapshot()->step, setscope::testing::scaledMs(20000));
        QVERIFY(s.layoutUpdates() > before);
    }

    // Recipe ext pre-trains on config.externalDataset: the session opens it on a worker
    // first, then starts the run with it; a name that cannot be opened ends the run with a
    // message that names it.
    void externalDatasetIsOpenedBeforeTheRun()
    {
        Session s(m_registry);
        s.setLayoutOptions(pcaOptions());
        s.setDataset(synthetic("dim=3,points=20"), QStringLiteral("mem"));
        train::TrainerConfig c = quickConfig();
        c.recipe = "ext";
        c.epochs = 1;
        c.maxSteps = 4;
        c.externalDataset = "synthetic:dim=3,points=20";
        QSignalSpy finished(&s, &Session::trainingFinished);
        QSignalSpy errors(&s, &Session::error);
        QVERIFY(s.startTraining(c));
        QCOMPARE(s.trainingState(), S::Running);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, setscope::testing::scaledMs(60000));
        QVERIFY2(finished.at(0).at(0).toInt() == static_cast<int>(job::JobStatus::Finished),
                 qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(errors.count(), 0);
        QVERIFY(s.trainingJob());
        QCOMPARE(s.trainingState(), S::Idle);

        c.externalDataset = "/nonexistent/external.npy";
        QVERIFY(s.startTraining(c));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, setscope::testing::scaledMs(60000));
        QCOMPARE(finished.at(1).at(0).toInt(), static_cast<int>(job::JobStatus::Failed));
        QVERIFY2(finished.at(1).at(1).toString().contains(QStringLiteral("/nonexistent/external.npy")),
                 qPrintable(finished.at(1).at(1).toString()));
        QCOMPARE(errors.count(), 1);
        QCOMPARE(s.trainingState(), S::Idle);

        c.externalDataset.clear(); // planRun refuses it at once
        QVERIFY(!s.startTraining(c));
        QCOMPARE(errors.count(), 2);
        QCOMPARE(s.trainingState(), S::Idle);
    }

    // Pause parks the job once its step in flight has ended (JobControl::parked, set by the
    // job's thread), and cancel lets at most that step finish. Counted, not timed: the
    // seconds are measured in bench/jobs.
    void pauseResumeAndCancel()
    {
        Session s(m_registry);
        s.setLayoutOptions(pcaOptions());
        s.setDataset(synthetic("dim=8,coarse=4,fine=2,points=1000"), QStringLiteral("mem"));
        QSignalSpy states(&s, &Session::trainingStateChanged);
        QSignalSpy finished(&s, &Session::trainingFinished);
        QVERIFY(s.startTraining(quickConfig()));
        // The training job exists once the run's first phases (workspace::RunLaunchJob) are done.
        QTRY_VERIFY_WITH_TIMEOUT(s.trainingJob(), setscope::testing::scaledMs(30000));
        const train::TrainingJob* job = s.trainingJob();
        QTRY_VERIFY_WITH_TIMEOUT(job->counters().done.load() >= 5, setscope::testing::scaledMs(60000));

        s.pauseTraining();
        QCOMPARE(s.trainingState(), S::Paused);
        QTRY_VERIFY_WITH_TIMEOUT(job->parked(), setscope::testing::scaledMs(60000)); // the step in flight has ended
        const auto paused = job->counters().done.load();
        QTest::qWait(200); // an observation window: a parked job does no step meanwhile
        QCOMPARE(job->counters().done.load(), paused);

        s.resumeTraining();
        QCOMPARE(s.trainingState(), S::Running);
        QTRY_VERIFY_WITH_TIMEOUT(job->counters().done.load() > paused + 3, setscope::testing::scaledMs(60000));

        const auto atCancel = job->counters().done.load();
        s.cancelTraining();
        QCOMPARE(s.trainingState(), S::Stopping);
        QTRY_COMPARE_WITH_TIMEOUT(s.trainingState(), S::Idle, setscope::testing::scaledMs(60000));
        QVERIFY2(job->counters().done.load() <= atCancel + 1, // at most the step in flight
                 qPrintable(QStringLiteral("%1 steps after the cancel").arg(job->counters().done.load() - atCancel)));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toInt(), static_cast<int>(job::JobStatus::Cancelled));
        QList<S> seen;
        for (const auto& a : states)
            seen << a.at(0).value<S>();
        QCOMPARE(seen, QList<S>({S::Running, S::Paused, S::Running, S::Stopping, S::Idle}));
    }

    void cancelWakesAPausedRun()
    {
        Session s(m_registry);
        s.setLayoutOptions(pcaOptions());
        s.setDataset(synthetic("dim=8,points=500"), QStringLiteral("mem"));
        QVERIFY(s.startTraining(quickConfig()));
        QTRY_VERIFY_WITH_TIMEOUT(s.trainingJob() && s.trainingJob()->counters().done.load() >= 2, setscope::testing::scaledMs(60000));
        s.pauseTraining();
        QTRY_VERIFY_WITH_TIMEOUT(s.trainingJob()->parked(), setscope::testing::scaledMs(60000));
        s.cancelTraining();
        QTRY_COMPARE_WITH_TIMEOUT(s.trainingState(), S::Idle, setscope::testing::scaledMs(60000)); // a parked job wakes on cancel
    }

    // Replacing the dataset must not wait for the old run's thread, and switching projects
    // must not pull the old project's store from under a run that is still stopping. The
    // gate: another connection holds the project file's write lock, so the old run cannot
    // record its end (its thread waits in SQLite's busy handler, up to
    // ProjectStore::kBusyTimeoutMs) until the test lets go. A setDataset() that joined that
    // thread would return only after the run had ended; an openProject() that destroyed the
    // old store would free it while that thread is inside it.
    void replacingTheDatasetDoesNotWaitForTheOldRun()
    {
        QTemporaryDir dir;
        const QString fileA = dir.filePath(QStringLiteral("a.setscope"));
        const QString fileB = dir.filePath(QStringLiteral("b.setscope"));
        auto s = std::make_unique<Session>(m_registry);
        s->setLayoutOptions(pcaOptions());
        QVERIFY(s->openProject(fileA));
        QSignalSpy opened(s.get(), &Session::datasetChanged);
        s->setDataset(synthetic("dim=8,points=1000"), QStringLiteral("a"));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, setscope::testing::scaledMs(30000));
        train::TrainerConfig c = quickConfig();
        c.evaluateEachEpoch = false;
        QVERIFY(s->startTraining(c));
        QTRY_VERIFY_WITH_TIMEOUT(s->trainingJob(), setscope::testing::scaledMs(30000));
        const train::TrainingJob* job = s->trainingJob();
        QTRY_VERIFY_WITH_TIMEOUT(job->counters().done.load() >= 2, setscope::testing::scaledMs(30000));

        ProjectWriteLock lock(fileA);
        QVERIFY2(lock.held(), lock.error());
        s->setDataset(synthetic("points=30"), QStringLiteral("b"));
        // No event has been processed since, so the retired job object is still alive; its
        // thread cannot have ended: it has yet to record "cancelled" behind the lock.
        QVERIFY(job->running());
        QCOMPARE(s->trainingState(), S::Idle);
        QVERIFY(s->trainingJob() == nullptr);

        QVERIFY(s->openProject(fileB));
        QCOMPARE(s->projectPath(), QFileInfo(fileB).absoluteFilePath());
        lock.release();
        // Dataset "b" (still being opened in project A when the project changed) opens in B.
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, setscope::testing::scaledMs(30000));
        QCOMPARE(s->datasetSpec(), QStringLiteral("b"));
        QCOMPARE(s->dataset()->size(), synthetic("points=30")->size());
        QVERIFY(s->projectDatasetId() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(s->layout() != nullptr, setscope::testing::scaledMs(20000));
        QCOMPARE(s->layout()->items, workspace::mapItems(*s->dataset(), "fine", s->mapItemLimit()));

        QVERIFY(s->startTraining(quickConfig()));
        QTRY_VERIFY_WITH_TIMEOUT(s->trainingJob() && s->trainingJob()->counters().done.load() >= 2, setscope::testing::scaledMs(30000));
        s.reset(); // cancels and joins every job

        const auto a = project::ProjectStore::open(fileA.toStdString());
        const auto runsA = a->runs();
        QCOMPARE(runsA.size(), std::size_t(1));
        QCOMPARE(runsA[0].status, std::string("cancelled"));
        // ("b" may be registered in A too: that write was in flight behind the lock when the
        // project changed, and a cancel does not tear a write in half.)
        const auto b = project::ProjectStore::open(fileB.toStdString());
        QCOMPARE(b->datasets().size(), std::size_t(1));
        QCOMPARE(b->runs().size(), std::size_t(1));
        QCOMPARE(b->runs()[0].status, std::string("cancelled"));
    }

    void baselineScoresRawVectors()
    {
        Session s(m_registry);
        s.setLayoutOptions(pcaOptions());
        s.setDataset(synthetic("dim=3,points=60"), QStringLiteral("mem"));
        QSignalSpy ready(&s, &Session::baselineReady);
        QSignalSpy running(&s, &Session::baselineRunningChanged);
        QVERIFY(s.computeBaseline(QStringLiteral("fine")));
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, setscope::testing::scaledMs(30000));
        const auto m = ready.at(0).at(0).value<train::EpochMetrics>();
        QCOMPARE(m.epoch, 0);
        const double knn = m.value("knn-accuracy").value_or(-1.0);
        QVERIFY(knn > 0.3 && knn <= 1.0); // 8 well-separated-ish Gaussians
        std::vector<double> recall;
        for (int k : {1, 2, 4, 8}) {
            QVERIFY(m.value("recall-hit@" + std::to_string(k)));
            recall.push_back(*m.value("recall-hit@" + std::to_string(k)));
        }
        QVERIFY(std::is_sorted(recall.begin(), recall.end())); // R@K grows with K
        QCOMPARE(running.count(), 2);
        QVERIFY(!s.computeBaseline(QStringLiteral("no such labels")));
        s.setDataset(synthetic("points=5,set=3"), QStringLiteral("sets"));
        QVERIFY(!s.computeBaseline(QStringLiteral("fine"))); // not defined for sets
    }

    void projectRecordsRunsAndSuppliesLabels()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("p.setscope"));
        const auto ds = synthetic("dim=3,points=30");
        // The user's labels in the project: item 0 moved from class 0 to class 5.
        {
            auto store = project::ProjectStore::open(file.toStdString());
            const auto id = store->addDataset(ds->name(), "mem", ds->contentHash(), static_cast<std::int64_t>(ds->size()));
            const auto& fine = ds->requireLabelSet("fine");
            const auto ls = store->createLabelSet(id, "fine", fine.classNames, fine.labels);
            QCOMPARE(fine.labels[0], 0);
            store->applyEdit(ls, {{0, 5}}, "move item 0");
        }
        Session s(m_registry);
        s.setLayoutOptions(pcaOptions());
        QSignalSpy changed(&s, &Session::projectChanged);
        QVERIFY(s.openProject(file));
        QCOMPARE(changed.count(), 1);
        QSignalSpy opened(&s, &Session::datasetChanged);
        QSignalSpy loading(&s, &Session::loadingChanged);
        s.setDataset(ds, QStringLiteral("mem"));
        // The project's part (SQLite writes with fsync, a copy of the dataset) runs on a
        // worker: setDataset returned before it, the dataset opens when it is done.
        QVERIFY(s.isLoading());
        QCOMPARE(s.projectDatasetId(), 0);
        QCOMPARE(opened.count(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, setscope::testing::scaledMs(30000));
        QCOMPARE(loading.count(), 2);
        QVERIFY(!s.isLoading());
        QVERIFY(s.projectDatasetId() > 0);
        QCOMPARE(s.dataset()->requireLabelSet("fine").labels[0], 5); // the project's label won
        QCOMPARE(s.dataset()->requireLabelSet("coarse").labels, ds->requireLabelSet("coarse").labels);

        train::TrainerConfig c = quickConfig();
        c.epochs = 2;
        c.evaluateEachEpoch = true;
        QSignalSpy finished(&s, &Session::trainingFinished);
        QVERIFY(s.startTraining(c));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, setscope::testing::scaledMs(60000));
        const auto store = project::ProjectStore::open(file.toStdString());
        const auto runs = store->runs();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].status, std::string("finished"));
        int knn = 0;
        for (const auto& m : store->metrics(runs[0].id))
            knn += m.name == "knn-accuracy";
        QCOMPARE(knn, 2);
        const auto cks = store->checkpoints(runs[0].id);
        QVERIFY(!cks.empty());
        QVERIFY(QString::fromStdString(cks.back().path).startsWith(dir.filePath(QStringLiteral("p.checkpoints/run-"))));
        QVERIFY(QFile::exists(QString::fromStdString(cks.back().path)));

        // Not a project: refused with the file named, the session keeps the old one.
        const QString junk = dir.filePath(QStringLiteral("junk.setscope"));
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not sqlite");
        f.close();
        QSignalSpy err(&s, &Session::error);
        QVERIFY(!s.openProject(junk));
        QCOMPARE(err.count(), 1);
        QVERIFY(err.at(0).at(0).toString().contains(junk));
        QCOMPARE(s.projectPath(), QFileInfo(file).absoluteFilePath());
    }
};

QTEST_MAIN(TestSession)
#include "tst_Session.moc"
