// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The EMD-flow view against a hand-solved transport, its hover and picking, its picture,
// and the choice of the second set (selection, else the EMD-nearest by brute force).
#include "gui/views/flow/FlowView.h"

#include "core/ot/Emd.h"
#include "gui/views/flow/FlowCanvas.h"
#include "tests/support/ExplorerFixture.h"
#include "tests/support/TimeFactor.h"

#include <QLabel>
#include <QtTest/QtTest>

#include <limits>

using namespace setscope;

namespace {

/// Three 2-D sets: A = {(0,0), (10,0)}, B = {(1,0), (12,0)}, C = {(0,5), (10,5)}, unit weights;
/// all test items, so every other item is a candidate.
std::shared_ptr<const data::Dataset> threeSets()
{
    data::DatasetBuilder b("three");
    b.setName("three");
    b.setDimension(2);
    const float a[] = {0, 0, 10, 0}, c[] = {1, 0, 12, 0}, d[] = {0, 5, 10, 5}, w[] = {1, 1};
    b.addItem(a, w, 2, data::Split::Test);
    b.addItem(c, w, 2, data::Split::Test);
    b.addItem(d, w, 2, data::Split::Test);
    return std::make_shared<const data::Dataset>(b.finish());
}

bool showAndWait(gui::FlowView& view, std::int64_t a, std::int64_t b)
{
    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    return view.showFlow(a, b) && ended.wait(60000) &&
           ended.front().front().toInt() == static_cast<int>(job::JobStatus::Finished);
}

} // namespace

class TestFlowView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handSolvedFlow();
    void hoverListsAnElementsArcs();
    void secondSetIsTheNearestOrTheSelected();
    void exportsSvg();
};

void TestFlowView::handSolvedFlow()
{
    testutil::ExplorerFixture fx;
    fx.open(threeSets());
    gui::FlowView view(fx.session.get(), fx.selection.get());
    view.resize(500, 450);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(showAndWait(view, 0, 1));
    const auto& f = view.canvas()->flow();
    QVERIFY(f);
    // 0 -> 0 at distance 1 and 1 -> 1 at distance 2: EMD (1 + 2) / 2.
    QCOMPARE(f->emd, 1.5);
    QCOMPARE(f->arcs.size(), std::size_t(2));
    QVERIFY(view.summaryLabel()->text().contains("EMD <b>1.5</b>"));
    // The picture: blue where A's elements are, orange where B's are, on white.
    const QImage img = view.canvas()->grab().toImage();
    const QColor a0 = img.pixelColor(view.canvas()->position({0, 1}).toPoint());
    const QColor b1 = img.pixelColor(view.canvas()->position({1, 1}).toPoint());
    QVERIFY2(a0.blue() > 150 && a0.red() < 120, qPrintable(a0.name()));
    QVERIFY2(b1.red() > 180 && b1.blue() < 140, qPrintable(b1.name()));
    QCOMPARE(img.pixelColor(2, 2), QColor(Qt::white));
    // A flow line between A's element 1 (10,0) and B's element 1 (12,0): its midpoint is dark.
    const QPointF mid = 0.5 * (view.canvas()->position({0, 1}) + view.canvas()->position({1, 1}));
    QVERIFY(img.pixelColor(mid.toPoint()).lightness() < 230);
}

void TestFlowView::hoverListsAnElementsArcs()
{
    testutil::ExplorerFixture fx;
    fx.open(threeSets());
    gui::FlowView view(fx.session.get(), fx.selection.get());
    view.resize(500, 450);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(showAndWait(view, 0, 1));
    gui::FlowCanvas* c = view.canvas();
    for (int set = 0; set < 2; ++set)
        for (int i = 0; i < 2; ++i)
            QCOMPARE(c->elementAt(c->position({set, i})), (gui::FlowCanvas::Element{set, i}));
    QVERIFY(!c->elementAt(QPointF(1, 1)).valid());
    QTest::mouseMove(c, c->position({0, 0}).toPoint());
    QTRY_COMPARE(c->hovered(), (gui::FlowCanvas::Element{0, 0}));
    const QStringList lines = c->describe({0, 0});
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines[0], QStringLiteral("(0, 0)"));
    QVERIFY2(lines[1].contains("(1, 0): 1 (cost 1)"), qPrintable(lines[1]));
}

void TestFlowView::secondSetIsTheNearestOrTheSelected()
{
    testutil::ExplorerFixture fx;
    fx.open(threeSets());
    gui::FlowView view(fx.session.get(), fx.selection.get());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // Alone, item 0's partner is its EMD-nearest: B (1.5) rather than C (5).
    QVERIFY(showAndWait(view, 0, -1));
    QCOMPARE(view.canvas()->flow()->b, std::int64_t(1));
    // Clicking C and Ctrl-clicking A: A becomes current, C is the other selected item, and the
    // flow is between the two.
    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    fx.selection->select({2});
    QVERIFY(ended.wait(60000));
    QCOMPARE(view.canvas()->flow()->a, std::int64_t(2));
    fx.selection->select({0}, gui::SelectionModel::Mode::Add);
    QTRY_VERIFY_WITH_TIMEOUT(view.canvas()->flow() && view.canvas()->flow()->a == 0, setscope::testing::scaledMs(60000));
    QCOMPARE(view.canvas()->flow()->b, std::int64_t(2));
    QCOMPARE(view.canvas()->flow()->emd, 5.0);
}

void TestFlowView::exportsSvg()
{
    testutil::ExplorerFixture fx;
    fx.open(threeSets());
    gui::FlowView view(fx.session.get(), fx.selection.get());
    QVERIFY(view.toSvg().isEmpty());
    QVERIFY(showAndWait(view, 0, 1));
    const QString svg = view.toSvg();
    QCOMPARE(svg.count("<line"), 2);
    QCOMPARE(svg.count("<circle"), 4);
    QXmlStreamReader xml(svg);
    while (!xml.atEnd())
        xml.readNext();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
}

QTEST_MAIN(TestFlowView)
#include "tst_FlowView.moc"
