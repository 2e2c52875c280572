// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The label-and-retrain loop end to end (issue 11 item 8), in the real window under xvfb:
// a small document dataset in a temporary project, a first run, a lasso on the map, the
// lassoed items assigned to a new class of a new label set, Edit ▸ Undo and Redo, the rest
// assigned to a second class, Labels ▸ Retrain from the first run's weights -- then the
// project file, opened on its own, holds the labels, the history and the run.
#include "gui/MainWindow.h"

#include "core/builtins/Builtins.h"
#include "core/plugin/Registry.h"
#include "core/project/ProjectStore.h"
#include "core/train/TrainerConfig.h"
#include "core/train/TrainingJob.h"
#include "gui/labels/LabelController.h"
#include "gui/panels/TrainingPanel.h"
#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"
#include "gui/views/export/ExportActions.h"
#include "gui/views/map/EmbeddingView.h"
#include "tests/support/ExplorerFixture.h"
#include "tests/support/TimeFactor.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QOpenGLWindow>
#include <QtTest/QtTest>

#include <algorithm>

using namespace setscope;

namespace {

void sendMouse(QWindow* w, QEvent::Type type, QPointF pos, Qt::MouseButton button, Qt::MouseButtons buttons,
               Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QMouseEvent e(type, pos, w->mapToGlobal(pos), button, buttons, modifiers);
    QCoreApplication::sendEvent(w, &e);
}

} // namespace

class TestLabelLoop : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void lassoLabelUndoRedoRetrain();
};

void TestLabelLoop::lassoLabelUndoRedoRetrain()
{
    QTemporaryDir dir;
    qputenv("XDG_CACHE_HOME", dir.filePath("cache").toUtf8());
    plugin::Registry registry;
    builtins::registerBuiltins(registry);
    gui::MainWindow window(registry);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    gui::Session* s = window.session();
    layout::LayoutJob::Options pca; // a quick map: the loop does not depend on t-SNE
    pca.method = layout::LayoutMethod::Pca;
    s->setLayoutOptions(pca);
    QSignalSpy errors(s, &gui::Session::error);

    // Without a project, labels are refused with the reason.
    QVERIFY(!window.labels()->canEdit());

    // A temporary project, then a document dataset through the loaders.
    const QString projectFile = dir.filePath("loop.setscope");
    QVERIFY(s->openProject(projectFile));
    QSignalSpy changed(s, &gui::Session::datasetChanged);
    window.openDataset(testutil::writeTopicCorpus(dir.filePath("corpus"), 12));
    QVERIFY(changed.wait(60000));
    QVERIFY(s->projectDatasetId() > 0);
    QVERIFY(window.labels()->canEdit());
    QVERIFY(!window.undoAction()->isEnabled());
    QVERIFY(!window.redoAction()->isEnabled());

    // A first (self-supervised) run: the model a retrain starts from.
    train::TrainerConfig first = testutil::ExplorerFixture::quickConfig();
    first.recipe = "ours";
    first.model = "deepsets";
    first.samplerOptions = {{"batch-size", "16"}};
    QSignalSpy finished(s, &gui::Session::trainingFinished);
    QVERIFY2(s->startTraining(first), errors.isEmpty() ? "" : qPrintable(errors.front().front().toString()));
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, setscope::testing::scaledMs(120000));
    QCOMPARE(finished.front().front().toInt(), static_cast<int>(job::JobStatus::Finished));
    const std::string firstCheckpoint = window.labels()->currentCheckpoint();
    QVERIFY(!firstCheckpoint.empty());

    // The map of that run, still.
    gui::EmbeddingView* map = window.view();
    map->setAnimationDuration(0);
    QTRY_VERIFY_WITH_TIMEOUT(map->currentLayout() && map->currentLayout()->sourceStep > 0 && !map->animating(), setscope::testing::scaledMs(60000));
    map->fitAll();
    map->grabMap();

    // A lasso (Alt-drag) around the left half of the points, as a hand draws it.
    const std::vector<float> xy = map->currentPositions();
    std::vector<float> xs;
    for (std::size_t i = 0; i < xy.size(); i += 2)
        xs.push_back(xy[i]);
    std::vector<float> sorted = xs;
    std::sort(sorted.begin(), sorted.end());
    const float cut = sorted[sorted.size() / 2];
    float top = xy[1], bottom = xy[1];
    for (std::size_t i = 1; i < xy.size(); i += 2) {
        top = std::max(top, xy[i]);
        bottom = std::min(bottom, xy[i]);
    }
    const float margin = 0.05f * (sorted.back() - sorted.front()) + 1e-3f;
    const QPointF corners[] = {{sorted.front() - margin, bottom - margin},
                               {cut, bottom - margin},
                               {cut, top + margin},
                               {sorted.front() - margin, top + margin}};
    QPolygonF path;
    for (int k = 0; k < 4; ++k) {
        const QPointF a = map->mapToWidget(corners[k]), b = map->mapToWidget(corners[(k + 1) % 4]);
        const int steps = std::max(1, int(QLineF(a, b).length() / 5.0));
        for (int i = 0; i < steps; ++i)
            path << a + (b - a) * (double(i) / steps);
    }
    sendMouse(map->surface(), QEvent::MouseButtonPress, path.front(), Qt::LeftButton, Qt::LeftButton, Qt::AltModifier);
    for (int k = 1; k < path.size(); ++k)
        sendMouse(map->surface(), QEvent::MouseMove, path[k], Qt::NoButton, Qt::LeftButton, Qt::AltModifier);
    sendMouse(map->surface(), QEvent::MouseButtonRelease, path.front(), Qt::LeftButton, Qt::NoButton, Qt::AltModifier);
    const std::vector<std::int64_t> lassoed = window.selection()->items();
    QCOMPARE(lassoed, map->itemsInPolygon(path));
    const std::size_t n = s->dataset()->size();
    QVERIFY2(lassoed.size() >= n / 4 && lassoed.size() < n, qPrintable(QString::number(lassoed.size())));
    QVERIFY(window.assignAction()->isEnabled());

    // Assign them to a new class of a new label set: one edit, on disk at once.
    const QString edit = QStringLiteral("assign %1 items to 'left'").arg(lassoed.size());
    QVERIFY(window.assignSelectionTo(QStringLiteral("sides"), QStringLiteral("left")));
    QCOMPARE(map->colorBy(), QStringLiteral("sides")); // the map shows the edited set
    QVERIFY(map->currentLayout()); // and keeps its layout
    QCOMPARE(window.undoAction()->text(), QStringLiteral("&Undo ") + edit);
    QVERIFY(window.undoAction()->isEnabled());
    QVERIFY(!window.redoAction()->isEnabled());
    const data::LabelSet* sides = s->dataset()->labelSet("sides");
    QVERIFY(sides);
    QCOMPARE(sides->labels[static_cast<std::size_t>(lassoed.front())], 0);

    window.undoAction()->trigger();
    QCOMPARE(s->dataset()->requireLabelSet("sides").unlabelledCount(), n);
    QCOMPARE(window.redoAction()->text(), QStringLiteral("&Redo ") + edit);
    QVERIFY(window.redoAction()->isEnabled());
    QVERIFY(!window.undoAction()->isEnabled());
    window.redoAction()->trigger();
    QCOMPARE(s->dataset()->requireLabelSet("sides").unlabelledCount(), n - lassoed.size());
    QVERIFY(!window.redoAction()->isEnabled());

    // Written at once: another connection to the file (the app still has it open) sees one
    // live edit -- what survives a kill at this point.
    {
        auto store = project::ProjectStore::open(projectFile.toStdString());
        const auto rec = store->findLabelSet(s->projectDatasetId(), "sides");
        QVERIFY(rec);
        const auto history = store->history(rec->id);
        QCOMPARE(history.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(history[0].description), edit);
        QVERIFY(!history[0].undone);
    }

    // The rest goes to a second class (a supervised run needs two).
    std::vector<std::int64_t> rest;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i)
        if (!std::binary_search(lassoed.begin(), lassoed.end(), i))
            rest.push_back(i);
    window.selection()->select(rest);
    QVERIFY(window.assignSelectionTo(QStringLiteral("sides"), QStringLiteral("right")));

    // Retrain: triplet on 'sides', from the first run's weights; the map follows.
    train::TrainerConfig again = testutil::ExplorerFixture::quickConfig();
    again.epochs = 4; // a class-balanced epoch of this small set is one or two batches
    again.maxSteps = 6;
    again.samplerOptions = {{"classes", "2"}, {"per-class", "4"}};
    window.trainingPanel()->setConfig(again);
    QCOMPARE(window.retrainAction()->text(), QStringLiteral("&Retrain with 'sides'"));
    finished.clear();
    QSignalSpy layouts(s, &gui::Session::layoutChanged);
    window.retrainAction()->trigger();
    QVERIFY2(s->trainingState() != gui::Session::TrainingState::Idle,
             errors.isEmpty() ? "" : qPrintable(errors.back().front().toString()));
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, setscope::testing::scaledMs(60000));
    QVERIFY2(finished.front().front().toInt() == static_cast<int>(job::JobStatus::Finished),
             qPrintable(finished.front().at(1).toString()));
    QCOMPARE(s->trainingJob()->config().labelSet, std::string("sides"));
    QCOMPARE(window.trainingPanel()->config().labelSet, std::string("sides")); // the panel says so too
    QCOMPARE(s->trainingJob()->config().initFrom, firstCheckpoint);
    QVERIFY2(s->trainingJob()->counters().done.load() >= 3, qPrintable(QString::number(s->trainingJob()->counters().done.load())));
    QVERIFY(s->trainingJob()->snapshots().sequence() >= 2);
    QTRY_VERIFY_WITH_TIMEOUT(layouts.count() > 0, setscope::testing::scaledMs(60000)); // a map of the retrained model

    // The project file on its own: labels, history, and the run with its label set.
    auto store = project::ProjectStore::open(projectFile.toStdString());
    const auto rec = store->findLabelSet(s->projectDatasetId(), "sides");
    QVERIFY(rec);
    QCOMPARE(rec->classNames, (std::vector<std::string>{"left", "right"}));
    const std::vector<std::int32_t> labels = store->labels(rec->id);
    QCOMPARE(labels.size(), n);
    for (std::size_t i = 0; i < n; ++i)
        QCOMPARE(labels[i], std::binary_search(lassoed.begin(), lassoed.end(), std::int64_t(i)) ? 0 : 1);
    const auto history = store->history(rec->id);
    QCOMPARE(history.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(history[0].description), edit);
    QVERIFY(!history[0].undone && !history[1].undone);
    const auto runs = store->runs();
    QCOMPARE(runs.size(), std::size_t(2));
    const auto& last = *std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    const nlohmann::json cfg = nlohmann::json::parse(last.configJson);
    QCOMPARE(cfg.at("label_set").get<std::string>(), std::string("sides"));
    QCOMPARE(cfg.at("init_from").get<std::string>(), firstCheckpoint);
    QCOMPARE(QString::fromStdString(last.status), QStringLiteral("finished"));

    gui::exporting::grabWidget(&window).save(QStringLiteral(SETSCOPE_BINARY_DIR "/label-loop-e2e.png"));
}

QTEST_MAIN(TestLabelLoop)
#include "tst_LabelLoop.moc"
