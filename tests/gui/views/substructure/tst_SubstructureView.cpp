// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The Substructure view on a small project with a weak-metric run (trained on the coarse
// labels of the hierarchical clusters): its run menu lists that run and not the run on the fine
// labels; both maps show the scored items coloured by the fine labels (checked point by point
// against the palette, and on the rendered maps); the table holds the scores that core/eval's
// own functions give on the same embeddings (the raw vectors, the checkpoint re-embedded here);
// the selection is the window's.
#include "gui/views/substructure/SubstructureView.h"

#include "core/eval/StructureScores.h"
#include "core/model/ModelHandle.h"
#include "core/project/ProjectStore.h"
#include "core/workspace/Models.h"
#include "core/workspace/Substructure.h"
#include "gui/views/Palette.h"
#include "gui/views/map/EmbeddingView.h"
#include "tests/support/ExplorerFixture.h"
#include "tests/support/TimeFactor.h"

#include <QComboBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>
#include <set>

using namespace setscope;

class TestSubstructureView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void showsTheWeakRunBeforeAndAfter();
};

namespace {

int colourDistance(QColor a, QColor b)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

/// Pixels of the image within `tol` of colour `c`.
int pixelsOf(const QImage& img, QColor c, int tol = 12)
{
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            n += colourDistance(img.pixelColor(x, y), c) <= tol ? 1 : 0;
    return n;
}

} // namespace

void TestSubstructureView::showsTheWeakRunBeforeAndAfter()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    testutil::ExplorerFixture fx;
    QVERIFY(fx.session->openProject(dir.filePath("p.setscope")));
    QSignalSpy changed(fx.session.get(), &gui::Session::datasetChanged);
    fx.open(std::make_shared<const data::Dataset>(
        data::makeHierarchicalGaussians(data::SyntheticSpec::parse("dim=6,coarse=2,fine=2,points=40"))));
    QTRY_VERIFY_WITH_TIMEOUT(changed.count() > 0, setscope::testing::scaledMs(60000));
    QVERIFY(fx.session->projectDatasetId() > 0);

    gui::SubstructureView view(fx.session.get(), fx.selection.get());
    view.resize(1100, 520);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.runMenu()->count(), 0);
    QVERIFY(!view.showSelected());

    // A run on the fine labels (not weak), then one on the coarse labels (weak).
    train::TrainerConfig onFine = testutil::ExplorerFixture::quickConfig();
    QVERIFY(fx.train(onFine));
    train::TrainerConfig onCoarse = testutil::ExplorerFixture::quickConfig();
    onCoarse.labelSet = "coarse";
    onCoarse.samplerOptions = {{"classes", "2"}, {"per-class", "8"}};
    QVERIFY(fx.train(onCoarse));
    view.refreshRuns();
    QCOMPARE(view.runMenu()->count(), 1);
    QVERIFY2(view.runMenu()->itemText(0).contains("'coarse' (fine: 'fine')"), qPrintable(view.runMenu()->itemText(0)));
    const auto runs = workspace::weakMetricRuns(*fx.session->project(), fx.session->projectDatasetId(), *fx.session->dataset());
    QCOMPARE(runs.size(), std::size_t(1));

    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    QVERIFY(view.showSelected());
    QVERIFY(ended.wait(180000));
    const auto report = view.report();
    QVERIFY2(report, qPrintable(view.statusText()));
    const data::Dataset& ds = *fx.session->dataset();
    const data::LabelSet& fine = ds.requireLabelSet("fine");
    const data::LabelSet& coarse = ds.requireLabelSet("coarse");

    // Both maps: the report's items (the test split), every one of them.
    const std::vector<std::int64_t> test = ds.indices(data::Split::Test);
    QVERIFY(test.size() >= 10);
    QCOMPARE(report->items, test);
    for (gui::EmbeddingView* map : {view.beforeMap(), view.afterMap()}) {
        QCOMPARE(map->items().size(), test.size());
        QCOMPARE(map->colorBy(), QStringLiteral("fine"));
        // Each point in its fine class's colour.
        const auto& colours = map->pointColors();
        QCOMPARE(colours.size(), map->items().size());
        std::set<int> classes;
        for (std::size_t v = 0; v < colours.size(); ++v) {
            const int y = fine.labels[static_cast<std::size_t>(map->items()[v])];
            classes.insert(y);
            QCOMPARE(colours[v], static_cast<std::uint32_t>(gui::Palette::color(y).rgb() & 0xffffff));
        }
        QCOMPARE(classes.size(), std::size_t(4));
    }

    // The table against core/eval on the same embeddings: the raw vectors of the items, and the
    // run's checkpoint embedding them again.
    std::vector<std::int32_t> y, yc;
    std::vector<float> raw;
    for (const std::int64_t i : test) {
        y.push_back(fine.labels[static_cast<std::size_t>(i)]);
        yc.push_back(coarse.labels[static_cast<std::size_t>(i)]);
        const float* row = ds.values().data() + i * ds.dim();
        raw.insert(raw.end(), row, row + ds.dim());
    }
    const auto model = workspace::openModel(runs.front().checkpoint, fx.registry);
    const std::vector<float> emb = model->embed(ds, test);
    const std::int64_t n = static_cast<std::int64_t>(test.size());
    const eval::MatrixView rawView{raw.data(), n, ds.dim()}, embView{emb.data(), n, model->dim()};
    // CSL's tree: the class means of every item's raw vector (the whole dataset, as eval's csl).
    const eval::Dendrogram tree =
        eval::classMeanDendrogram({ds.values().data(), static_cast<std::int64_t>(ds.size()), ds.dim()}, fine.labels);
    auto scores = [&](eval::MatrixView m) {
        const eval::CslResult csl = eval::contextSensitiveLoss(m, y, tree, 1);
        return std::vector<double>{eval::neighbourhoodPurity(m, y, 10), eval::ndcg(m, y, yc).ndcg, csl.average, csl.total};
    };
    const std::vector<double> before = scores(rawView), after = scores(embView);
    QTableWidget* t = view.table();
    for (int r = 0; r < 4; ++r) {
        const double b = t->item(r, 0)->data(Qt::UserRole).toDouble(), a = t->item(r, 1)->data(Qt::UserRole).toDouble(),
                     d = t->item(r, 2)->data(Qt::UserRole).toDouble();
        QVERIFY2(std::abs(b - before[static_cast<std::size_t>(r)]) < 1e-9,
                 qPrintable(QStringLiteral("row %1 before %2, eval %3").arg(r).arg(b).arg(before[static_cast<std::size_t>(r)])));
        QVERIFY2(std::abs(a - after[static_cast<std::size_t>(r)]) < 1e-6,
                 qPrintable(QStringLiteral("row %1 after %2, eval %3").arg(r).arg(a).arg(after[static_cast<std::size_t>(r)])));
        QVERIFY(std::abs(d - (after[static_cast<std::size_t>(r)] - before[static_cast<std::size_t>(r)])) < 1e-6);
        QCOMPARE(t->item(r, 0)->text(), QString::number(b, 'f', 4));
    }
    QVERIFY(t->verticalHeaderItem(0)->text().contains("Purity"));

    // The selection is the window's: both maps show it.
    fx.selection->select({test[0], test[1]});
    QCOMPARE(view.beforeMap()->selectionModel(), fx.selection.get());
    QCOMPARE(view.afterMap()->selectionModel(), fx.selection.get());

    // The rendered maps (the screenshot sanity check): drawn, with every fine class's colour.
    for (gui::EmbeddingView* map : {view.beforeMap(), view.afterMap()}) {
        map->setAnimationDuration(0);
        const QImage img = map->grabMap();
        QVERIFY(!img.isNull());
        QVERIFY2(map->glProblem().isEmpty(), qPrintable(map->glProblem()));
        for (int c = 0; c < 4; ++c)
            QVERIFY2(pixelsOf(img, gui::Palette::color(c)) > 5,
                     qPrintable(QStringLiteral("%1: no pixel of class %2").arg(map->objectName()).arg(c)));
        if (!qEnvironmentVariableIsEmpty("SETSCOPE_TEST_SHOTS"))
            img.save(qEnvironmentVariable("SETSCOPE_TEST_SHOTS") + "/" + map->objectName() + ".png");
    }
}

QTEST_MAIN(TestSubstructureView)
#include "tst_SubstructureView.moc"
