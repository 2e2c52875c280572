// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Two runs side by side: the Compare view maps another model's embedding of the main map's
// items, starting from the main map (aligned), and shares the window's selection.
#include "gui/views/compare/CompareView.h"

#include "core/layout/FastTsne.h"
#include "core/model/ModelHandle.h"
#include "core/workspace/ModelMap.h"
#include "gui/views/map/EmbeddingView.h"
#include "tests/support/ExplorerFixture.h"
#include "tests/support/TimeFactor.h"

#include <QtTest/QtTest>

#include <cmath>
#include <numeric>

using namespace setscope;

class TestCompareView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mapsTheMainMapsItemsAlignedAndShared();
    void mapModelWarmStartsFromTheGivenMap();
};

void TestCompareView::mapsTheMainMapsItemsAlignedAndShared()
{
    testutil::ExplorerFixture fx;
    fx.open(std::make_shared<const data::Dataset>(
        data::makeHierarchicalGaussians(data::SyntheticSpec::parse("dim=6,coarse=2,fine=2,points=40"))));
    QTRY_VERIFY_WITH_TIMEOUT(fx.session->layout() != nullptr, setscope::testing::scaledMs(60000));
    QVERIFY(fx.train());
    const auto model = fx.session->currentModel();
    QTRY_VERIFY_WITH_TIMEOUT(fx.session->layout() && fx.session->layout()->sourceStep == model->step() &&
                                 fx.session->layout()->converged, setscope::testing::scaledMs(60000));
    gui::CompareView view(fx.session.get(), fx.selection.get());
    view.resize(600, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    QVERIFY(view.compareWith(model, QStringLiteral("the run")));
    QVERIFY(ended.wait(120000));
    QVERIFY2(view.layout(), qPrintable(view.statusText()));
    // The main map's items, every one of them.
    QCOMPARE(view.layout()->items, fx.session->layout()->items);
    QCOMPARE(view.layout()->items.size(), fx.session->dataset()->size());
    QCOMPARE(view.map()->items(), view.layout()->items);
    // The selection is the window's: selecting in one map selects in the other.
    fx.selection->select({3, 5});
    QVERIFY(view.map()->selectionModel()->contains(5));
    QCOMPARE(view.map()->selectionModel(), fx.selection.get());
    // A model that cannot embed the dataset is refused with the reason.
    testutil::ExplorerFixture other;
    other.open(std::make_shared<const data::Dataset>(
        data::makeHierarchicalGaussians(data::SyntheticSpec::parse("dim=3,points=20"))));
    QVERIFY(other.train());
    QVERIFY(view.compareWith(other.session->currentModel(), QStringLiteral("other")));
    QVERIFY(ended.wait(60000));
    QVERIFY2(view.statusText().contains("3-d elements"), qPrintable(view.statusText()));
}

// The warm start keeps the map where it was given: from the map of the model's own t-SNE, a
// warm start moves the points little (the affinities are the same), while the same warm start
// from a shuffled map cannot reproduce it.
void TestCompareView::mapModelWarmStartsFromTheGivenMap()
{
    testutil::ExplorerFixture fx;
    fx.open(std::make_shared<const data::Dataset>(
        data::makeHierarchicalGaussians(data::SyntheticSpec::parse("dim=6,coarse=2,fine=2,points=40"))));
    QVERIFY(fx.train());
    const auto model = fx.session->currentModel();
    const data::Dataset& ds = *fx.session->dataset();
    std::vector<std::int64_t> items(ds.size());
    std::iota(items.begin(), items.end(), 0);
    workspace::ModelMapOptions o;
    const layout::Layout cold = workspace::mapModel(ds, *model, items, nullptr, o, nullptr);
    QCOMPARE(cold.items, items);
    QCOMPARE(cold.iteration, o.tsne.maxIterations);
    o.warmIterations = 50;
    const layout::Layout warm = workspace::mapModel(ds, *model, items, &cold.xy, o, nullptr);
    QCOMPARE(warm.iteration, 50);
    double moved = 0, spread = 0;
    for (std::size_t i = 0; i < cold.xy.size(); ++i) {
        moved += std::abs(warm.xy[i] - cold.xy[i]);
        spread += std::abs(cold.xy[i]);
    }
    QVERIFY2(moved < 0.1 * spread, qPrintable(QStringLiteral("moved %1 of %2").arg(moved).arg(spread)));
    std::vector<float> bad = cold.xy;
    bad.pop_back();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, workspace::mapModel(ds, *model, items, &bad, o, nullptr));
}

QTEST_MAIN(TestCompareView)
#include "tst_CompareView.moc"
