// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Issue 12, "Load": the GUI's event loop keeps up while training, the t-SNE of the map and a
// pairwise EMD matrix run at once on Fashion-MNIST's 70 000 items. Measured here, in the test,
// as the lateness of a 10 ms precise timer on the GUI thread (what a user feels as a stutter:
// a paint, a click or a key waits that long), over a window in which all three jobs are
// running. Real data (dataset-fashion-mnist): skipped without it.
//
// What setscope controls is the work it does on the GUI thread, not when the kernel schedules
// that thread on a loaded 2-core machine (the three jobs keep both cores busy). So each gap is
// also timed in the GUI thread's own CPU time (CLOCK_THREAD_CPUTIME_ID): a gap the thread spent
// running is work setscope did there (a stutter it caused, bounded by 50 ms at worst); a gap it
// spent off the CPU is the scheduler's (CI saw one of 123 ms with 0.2 ms of work in it), bounded
// by 50 ms at the 99th percentile rather than at the single worst tick.
#include "gui/MainWindow.h"

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/DerivedDatasets.h"
#include "core/layout/LayoutJob.h"
#include "core/ot/PairwiseMatrix.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"
#include "gui/panels/TrainingPanel.h"
#include "gui/session/Session.h"
#include "gui/views/map/EmbeddingView.h"
#include "tests/support/TimeFactor.h"

#include <QtTest/QtTest>

#include <QComboBox>
#include <QElapsedTimer>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>

#include <time.h>

#include <algorithm>
#include <numeric>

using namespace setscope;
using gui::MainWindow;
using S = gui::Session::TrainingState;

namespace {

// CPU time this thread has used, in microseconds.
qint64 threadCpuUs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<qint64>(t.tv_sec) * 1000000 + t.tv_nsec / 1000;
}

} // namespace

class TestResponsiveness : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void eventLoopKeepsUpUnderLoad();
};

void TestResponsiveness::eventLoopKeepsUpUnderLoad()
{
    if (MainWindow::demoSpec() != QStringLiteral("fashion-mnist"))
        QSKIP("dataset-fashion-mnist is not installed");
    // A latency bound is a claim about the normal build: a sanitizer build runs the jobs and
    // the GUI thread 3-15 times slower (cmake/SetscopeSanitizers.cmake), so 50 ms would say
    // nothing about setscope there. Skipped, not passed, so that the run says it did not check.
    if (setscope::testing::timeFactor() > 1)
        QSKIP("a latency test has no meaning in a sanitizer build (SETSCOPE_TEST_TIME_FACTOR > 1)");
    plugin::Registry registry;
    builtins::registerBuiltins(registry);
    MainWindow window(registry);
    window.session()->setMapItemLimit(0); // the map of every item: a t-SNE of 70 000 points
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    gui::Session* session = window.session();

    QElapsedTimer sinceOpen;
    sinceOpen.start();
    QSignalSpy changed(session, &gui::Session::datasetChanged);
    window.openDemo();
    QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, setscope::testing::scaledMs(120000));
    const std::shared_ptr<const data::Dataset> ds = session->dataset();
    QCOMPARE(ds->size(), std::size_t(70000));

    // 1. Training, unbounded, snapshots (and so warm-started re-layouts) every 25 steps.
    gui::TrainingPanel* training = window.trainingPanel();
    training->findChild<QSpinBox*>(QStringLiteral("epochsSpin"))->setValue(100);
    training->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->setValue(0);
    training->findChild<QSpinBox*>(QStringLiteral("snapshotEverySpin"))->setValue(25);
    training->findChild<QComboBox*>(QStringLiteral("deviceCombo"))->setCurrentText(QStringLiteral("cpu"));
    training->startButton()->click();
    QCOMPARE(session->trainingState(), S::Running);
    QTRY_VERIFY_WITH_TIMEOUT(session->trainingJob(), setscope::testing::scaledMs(30000)); // once the run is set up
    const train::TrainingJob* trainer = session->trainingJob();

    // 2. A pairwise EMD matrix of the same images as point sets of their bright pixels, over
    // every core. The full 70 000 x 70 000 matrix would be a 19.6 GB cache file; its first
    // 3 000 items (36 MB) keep the disk out of the test while the CPU work is the same kind.
    std::vector<std::int64_t> first(3000);
    std::iota(first.begin(), first.end(), std::int64_t(0));
    auto sets = std::make_shared<const data::Dataset>(data::imagesAsPointsets(data::subset(*ds, first), 0.5f));
    QTemporaryDir cache;
    ot::PairwiseOptions options;
    options.cacheDir = cache.path().toStdString();
    ot::PairwiseJob pairwise(sets, options);
    pairwise.start(nullptr);

    // 3. The map's t-SNE of 70 000 points was started by the dataset. All three must be at work
    // before the window opens (each waited for on its own, so a failure says which).
    QTRY_VERIFY_WITH_TIMEOUT(trainer->counters().done.load() >= 1, setscope::testing::scaledMs(180000));
    QTRY_VERIFY_WITH_TIMEOUT(pairwise.pairsComputed() > 0, setscope::testing::scaledMs(60000));
    QVERIFY(pairwise.running());
    QVERIFY(session->layoutBusy());
    QCOMPARE(session->trainingState(), S::Running);
    qInfo("all three at work %.1f s after opening the dataset", sinceOpen.elapsed() / 1000.0);

    // The window: 15 s of a 10 ms precise timer; each gap beyond 10 ms is the loop's lateness.
    std::vector<qint64> gapsUs;
    std::vector<qint64> busyUs; // the GUI thread's CPU time within each gap
    QElapsedTimer clock;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(10);
    qint64 last = -1;
    qint64 lastCpu = 0;
    connect(&tick, &QTimer::timeout, this, [&] {
        const qint64 now = clock.nsecsElapsed() / 1000;
        const qint64 cpu = threadCpuUs();
        if (last >= 0) {
            gapsUs.push_back(now - last);
            busyUs.push_back(cpu - lastCpu);
        }
        last = now;
        lastCpu = cpu;
    });
    const std::int64_t stepsBefore = trainer->counters().done.load();
    const std::int64_t pairsBefore = pairwise.pairsComputed();
    const std::uint64_t layoutsBefore = session->layoutUpdates();
    clock.start();
    tick.start();
    QTest::qWait(15000);
    tick.stop();
    const std::int64_t steps = trainer->counters().done.load() - stepsBefore;
    const std::int64_t pairs = pairwise.pairsComputed() - pairsBefore;
    const int layouts = static_cast<int>(session->layoutUpdates() - layoutsBefore);
    const bool layoutStillBusy = session->layoutBusy();

    // All three did work during the window (else it measured an idle loop).
    const bool pairwiseRan = pairs > 0 || !pairwise.running();
    session->cancelTraining();
    pairwise.cancel();
    pairwise.wait();
    QTRY_COMPARE_WITH_TIMEOUT(session->trainingState(), S::Idle, setscope::testing::scaledMs(60000));

    QVERIFY(gapsUs.size() > 100);
    std::vector<qint64> sorted = gapsUs;
    std::sort(sorted.begin(), sorted.end());
    const auto lateMs = [](qint64 gapUs) { return std::max<qint64>(0, gapUs - 10000) / 1000.0; };
    const double worst = lateMs(sorted.back());
    const double p99 = lateMs(sorted[sorted.size() * 99 / 100]);
    const double median = lateMs(sorted[sorted.size() / 2]);
    const std::size_t worstAt = static_cast<std::size_t>(std::max_element(gapsUs.begin(), gapsUs.end()) - gapsUs.begin());
    const std::size_t busiestAt = static_cast<std::size_t>(std::max_element(busyUs.begin(), busyUs.end()) - busyUs.begin());
    const double busiestMs = busyUs[busiestAt] / 1000.0;
    qInfo("event loop over %d ticks while %lld training steps, %lld EMD pairs and %d map updates ran: "
          "lateness median %.1f ms, p99 %.1f ms, worst %.1f ms (GUI thread busy %.1f ms of that gap); "
          "longest GUI-thread work within one gap %.1f ms (gap %.1f ms)",
          int(gapsUs.size()), static_cast<long long>(steps), static_cast<long long>(pairs), layouts, median, p99,
          worst, busyUs[worstAt] / 1000.0, busiestMs, gapsUs[busiestAt] / 1000.0);
    QVERIFY2(steps > 0, "training made no step during the window");
    QVERIFY2(pairwiseRan, "the pairwise matrix made no progress during the window");
    QVERIFY2(layouts > 0 || layoutStillBusy, "the map's layout was idle during the window");
    QVERIFY2(busiestMs < 50.0,
             qPrintable(QString("the GUI thread worked %1 ms without returning to its event loop").arg(busiestMs)));
    QVERIFY2(p99 < 50.0, qPrintable(QString("the event loop was %1 ms late at the 99th percentile").arg(p99)));
}

QTEST_MAIN(TestResponsiveness)
#include "tst_Responsiveness.moc"
