// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// End to end, as a user would: open the demo, train briefly, pause, resume, cancel a
// second run, and look at the map.
#include "gui/MainWindow.h"

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/layout/LayoutJob.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"
#include "gui/panels/DatasetPanel.h"
#include "gui/panels/MetricsPanel.h"
#include "gui/panels/TrainingPanel.h"
#include "gui/session/Session.h"
#include "gui/views/export/ExportActions.h"
#include "gui/views/map/EmbeddingView.h"
#include "gui/views/LossCurveWidget.h"
#include "gui/views/Palette.h"
#include "tests/support/TimeFactor.h"

#include <QtTest/QtTest>

#include <QComboBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>

using namespace setscope;
using gui::MainWindow;
using gui::Palette;
using S = gui::Session::TrainingState;

namespace {

int colourDistance(QColor a, QColor b)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

QString outPath(const char* name) { return QDir(QStringLiteral(SETSCOPE_BINARY_DIR)).filePath(QString::fromLatin1(name)); }

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;
    std::unique_ptr<MainWindow> m_window;

    gui::Session* session() const { return m_window->session(); }
    gui::TrainingPanel* training() const { return m_window->trainingPanel(); }
    template <typename T>
    T* child(const char* name) const
    {
        T* w = training()->findChild<T*>(QString::fromLatin1(name));
        if (!w)
            qFatal("no %s", name);
        return w;
    }

private Q_SLOTS:
    void initTestCase()
    {
        builtins::registerBuiltins(m_registry);
        m_window = std::make_unique<MainWindow>(m_registry);
        // The window's behaviour, not the t-SNE of 70 000 items (the app's default maps every
        // item; tst_Session and tst_Explorer check that, bench/layout measures its cost): a
        // stratified map of 3 000 keeps this test's waits short on a loaded 2-core machine.
        m_window->session()->setMapItemLimit(3000);
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanupTestCase() { m_window.reset(); }

    void opensTheDemo()
    {
        QSignalSpy changed(session(), &gui::Session::datasetChanged);
        m_window->openDemo();
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, setscope::testing::scaledMs(60000));
        const auto ds = session()->dataset();
        QVERIFY(ds);
        if (MainWindow::demoSpec() == QStringLiteral("fashion-mnist")) {
            QCOMPARE(QString::fromStdString(ds->name()), QStringLiteral("fashion-mnist"));
            QCOMPARE(ds->size(), std::size_t(70000));
            QVERIFY(ds->hasImages());
        } else {
            qWarning("Fashion-MNIST is not installed; the demo is the synthetic dataset");
        }
        QCOMPARE(m_window->datasetPanel()->currentLabelSet(), QStringLiteral("fine"));
        QVERIFY(training()->startButton()->isEnabled());
        // The initial map of the raw vectors arrives from the layout job.
        QTRY_VERIFY_WITH_TIMEOUT(m_window->view()->currentLayout() != nullptr, setscope::testing::scaledMs(120000));
        QCOMPARE(m_window->view()->currentLayout()->sourceStep, 0);
    }

    void trainsPausesAndResumes()
    {
        child<QSpinBox>("epochsSpin")->setValue(1);
        child<QSpinBox>("maxStepsSpin")->setValue(150);
        child<QSpinBox>("snapshotEverySpin")->setValue(25);
        child<QComboBox>("deviceCombo")->setCurrentText(QStringLiteral("cpu"));
        QCOMPARE(training()->config().maxSteps, 150);

        QSignalSpy finished(session(), &gui::Session::trainingFinished);
        training()->startButton()->click();
        QCOMPARE(session()->trainingState(), S::Running);
        QVERIFY(!training()->startButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(session()->trainingJob(), setscope::testing::scaledMs(30000)); // once the run is set up
        const train::TrainingJob* job = session()->trainingJob();
        QTRY_VERIFY_WITH_TIMEOUT(job->counters().done.load() >= 10, setscope::testing::scaledMs(60000));

        training()->pauseButton()->click();
        QCOMPARE(session()->trainingState(), S::Paused);
        QCOMPARE(training()->pauseButton()->text(), QStringLiteral("Resume"));
        QTRY_VERIFY_WITH_TIMEOUT(job->parked(), setscope::testing::scaledMs(60000)); // the step in flight (or a snapshot) has ended
        const auto paused = job->counters().done.load();
        QTest::qWait(300); // an observation window: a parked job does no step meanwhile
        QCOMPARE(job->counters().done.load(), paused);
        training()->pauseButton()->click();
        QCOMPARE(session()->trainingState(), S::Running);

        // Snapshots of the model reach the map while it trains.
        QTRY_VERIFY_WITH_TIMEOUT(session()->snapshotUpdates() >= 2, setscope::testing::scaledMs(120000));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->view()->currentLayout() &&
                                     m_window->view()->currentLayout()->sourceStep >= 25, setscope::testing::scaledMs(120000));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, setscope::testing::scaledMs(180000));
        QCOMPARE(finished.at(0).at(0).toInt(), static_cast<int>(job::JobStatus::Finished));
        QCOMPARE(job->counters().done.load(), 150);
        QVERIFY(training()->lossCurve()->pointCount() > 0);
        QVERIFY(training()->progressBar()->text().contains(QStringLiteral("finished")));
        QVERIFY(training()->startButton()->isEnabled());
    }

    // Cancel lets at most the step in flight finish (counted; bench/jobs measures seconds).
    void cancelStops()
    {
        child<QSpinBox>("maxStepsSpin")->setValue(0);
        training()->startButton()->click();
        QCOMPARE(session()->trainingState(), S::Running);
        QTRY_VERIFY_WITH_TIMEOUT(session()->trainingJob(), setscope::testing::scaledMs(30000)); // once the run is set up
        const train::TrainingJob* job = session()->trainingJob();
        QTRY_VERIFY_WITH_TIMEOUT(job->counters().done.load() >= 3, setscope::testing::scaledMs(60000));
        const auto atCancel = job->counters().done.load();
        training()->cancelButton()->click();
        QCOMPARE(session()->trainingState(), S::Stopping);
        QTRY_COMPARE_WITH_TIMEOUT(session()->trainingState(), S::Idle, setscope::testing::scaledMs(60000));
        QVERIFY(job->counters().done.load() <= atCancel + 1);
        QVERIFY(!job->running());
        QCOMPARE(job->status(), job::JobStatus::Cancelled);
        QVERIFY(training()->progressBar()->text().contains(QStringLiteral("cancelled")));
    }

    void screenshotShowsTheClassesAndTheOverlay()
    {
        // The map of the last snapshot, converged and drawn where it ends.
        QTRY_VERIFY_WITH_TIMEOUT(session()->layout() && session()->layout()->converged, setscope::testing::scaledMs(120000));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->view()->currentLayout() == session()->layout() &&
                                     !m_window->view()->animating(), setscope::testing::scaledMs(60000));
        const QImage map = m_window->view()->grabMap();
        QVERIFY(map.save(outPath("tst_main_window_map.png")));
        const QImage window = gui::exporting::grabWidget(m_window.get());
        QVERIFY(window.save(outPath("tst_main_window.png")));
        QVERIFY(!window.isNull());

        const int classes = session()->dataset()->labelSet("fine")->numClasses();
        int present = 0;
        const QRect legend = m_window->view()->legendRect().toRect();
        for (int c = 0; c < classes; ++c) {
            int n = 0;
            for (int y = 0; y < map.height(); ++y)
                for (int x = 0; x < map.width(); ++x)
                    if (!legend.contains(x, y) && colourDistance(map.pixelColor(x, y), Palette::color(c)) <= 12)
                        ++n;
            present += n >= 20; // a few points of that class, outside the legend
        }
        QVERIFY2(present >= 5, qPrintable(QString::number(present)));
        // The overlay: the legend in the top-right corner.
        QVERIFY(!legend.isEmpty());
        QVERIFY(legend.right() > m_window->view()->mapSize().width() - 20);
    }

    void pinnedMapSharesTheSelection()
    {
        // View > Pin map beside: a second map of the current layout in a dock, one selection.
        auto* pin = m_window->findChild<QAction*>(QStringLiteral("pinMapAction"));
        QVERIFY(pin);
        pin->trigger();
        auto* pinned = m_window->findChild<gui::EmbeddingView*>(QStringLiteral("pinnedView"));
        QVERIFY(pinned);
        QVERIFY(pinned != m_window->view());
        QTRY_VERIFY(pinned->isVisible());
        QCOMPARE(pinned->currentLayout(), m_window->view()->currentLayout());
        QCOMPARE(pinned->items(), m_window->view()->items());
        QCOMPARE(pinned->selectionModel(), m_window->selection());
        QCOMPARE(pinned->colorBy(), m_window->view()->colorBy());
        const std::int64_t item = pinned->items().front();
        m_window->selection()->select({item});
        QVERIFY(pinned->selectionModel()->contains(item));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_MainWindow.moc"
