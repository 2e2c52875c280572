// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// End to end (issue 10): open a document dataset, start a self-supervised run, wait for two
// snapshots on the map, click an item, and open the Retrieval, PointSwap and EMD-flow views
// on it; each must show that item.
#include "gui/MainWindow.h"

#include "core/builtins/Builtins.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainerConfig.h"
#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"
#include "gui/views/export/ExportActions.h"
#include "gui/views/map/EmbeddingView.h"
#include "gui/views/flow/FlowCanvas.h"
#include "gui/views/flow/FlowView.h"
#include "gui/views/pointswap/PointSwapView.h"
#include "gui/views/retrieval/RetrievalView.h"
#include "tests/support/ExplorerFixture.h"
#include "tests/support/TimeFactor.h"

#include <QOpenGLWindow>
#include <QTableWidget>
#include <QtTest/QtTest>

using namespace setscope;

class TestExplorer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void documentsEndToEnd();
};

void TestExplorer::documentsEndToEnd()
{
    QTemporaryDir dir;
    qputenv("XDG_CACHE_HOME", dir.filePath("cache").toUtf8());
    plugin::Registry registry;
    builtins::registerBuiltins(registry);
    gui::MainWindow window(registry);
    window.resize(1500, 950);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    gui::Session* s = window.session();

    // A document dataset through the loaders (corpus TSV + word vectors).
    QSignalSpy changed(s, &gui::Session::datasetChanged);
    window.openDataset(testutil::writeTopicCorpus(dir.filePath("corpus"), 16));
    QVERIFY(changed.wait(60000));
    QVERIFY(s->dataset() && s->dataset()->hasElementText());

    // A self-supervised run (seed 001's method: WSSET, no labels), snapshots every 2 steps.
    train::TrainerConfig c = testutil::ExplorerFixture::quickConfig();
    c.recipe = "ours";
    c.model = "deepsets";
    c.epochs = 4;
    c.samplerOptions = {{"batch-size", "16"}}; // the recipe's random batches
    QSignalSpy finished(s, &gui::Session::trainingFinished);
    QSignalSpy errors(s, &gui::Session::error);
    QVERIFY2(s->startTraining(c), errors.isEmpty() ? "" : qPrintable(errors.front().front().toString()));
    // Count what the run published, not what the session's 30 Hz poll happened to see (a fast
    // run can publish two snapshots between two polls), and wait on the spy's count: the end
    // may arrive while the event loop spins for something else.
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, setscope::testing::scaledMs(180000));
    QCOMPARE(finished.front().front().toInt(), static_cast<int>(job::JobStatus::Finished));
    QVERIFY2(s->trainingJob()->snapshots().sequence() >= 2,
             qPrintable(QString::number(s->trainingJob()->snapshots().sequence())));
    QVERIFY(s->currentModel());
    // The map of the run's snapshot (not of the raw vectors).
    gui::EmbeddingView* map = window.view();
    QTRY_VERIFY_WITH_TIMEOUT(map->currentLayout() && map->currentLayout()->sourceStep > 0 && !map->animating(), setscope::testing::scaledMs(120000));

    // Click a point of the map.
    const std::vector<float> pos = map->currentPositions();
    const QPoint at = map->mapToWidget(QPointF(pos[6], pos[7])).toPoint();
    // The item under that pixel (documents of the same words share a place on the map).
    const std::int64_t clicked = map->itemAt(at);
    QVERIFY(clicked >= 0);
    QTest::mouseClick(map->surface(), Qt::LeftButton, {}, at); // the map's native window takes the mouse
    QCOMPARE(window.selection()->current(), clicked);

    // The three views follow it when shown.
    auto* retrieval = qobject_cast<gui::RetrievalView*>(window.explorerView("retrieval"));
    auto* pointswap = qobject_cast<gui::PointSwapView*>(window.explorerView("pointswap"));
    auto* flow = qobject_cast<gui::FlowView*>(window.explorerView("flow"));
    QVERIFY(retrieval && pointswap && flow);
    window.showView("retrieval");
    QTRY_VERIFY_WITH_TIMEOUT(retrieval->result() && retrieval->result()->query == clicked, setscope::testing::scaledMs(60000));
    QVERIFY(retrieval->embeddingTable()->rowCount() > 0);
    QVERIFY(retrieval->emdTable()->rowCount() > 0);
    window.showView("pointswap");
    QTRY_VERIFY_WITH_TIMEOUT(pointswap->preview() && pointswap->preview()->request.item == clicked, setscope::testing::scaledMs(60000));
    QVERIFY(pointswap->preview()->partner.item >= 0);
    window.showView("flow");
    QTRY_VERIFY_WITH_TIMEOUT(flow->canvas()->flow() && flow->canvas()->flow()->a == clicked, setscope::testing::scaledMs(60000));
    QVERIFY(!flow->canvas()->flow()->arcs.empty());

    // The window as the user sees it (kept beside the test binary for a look).
    const QImage shot = gui::exporting::grabWidget(&window);
    QVERIFY(!shot.isNull());
    shot.save(QStringLiteral(SETSCOPE_BINARY_DIR "/explorer-e2e.png"));
}

QTEST_MAIN(TestExplorer)
#include "tst_Explorer.moc"
