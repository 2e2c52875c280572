// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The PointSwap view on a word corpus (the real loaders): partner against a brute-force EMD
// search, substitutions against an independent solve of the flow, the ω slider re-sampling,
// PointDrop / PointMixup for comparison, and the 2-D glyph for point sets.
#include "gui/views/pointswap/PointSwapView.h"

#include "core/ot/Emd.h"
#include "core/workspace/ItemText.h"
#include "gui/views/pointswap/SetGlyph.h"
#include "tests/support/ExplorerFixture.h"

#include <QTableWidget>
#include <QTextBrowser>
#include <QtTest/QtTest>

#include <limits>

using namespace setscope;

namespace {

bool augmentAndWait(gui::PointSwapView& view, std::int64_t item)
{
    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    return view.augment(item) && ended.wait(60000) &&
           ended.front().front().toInt() == static_cast<int>(job::JobStatus::Finished);
}

} // namespace

class TestPointSwapView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void swapsAlongTheFlowOfTheNearestDocument();
    void sliderResamples();
    void dropAndMixupForComparison();
    void pointSetsAreDrawn();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<testutil::ExplorerFixture> m_fx;
};

void TestPointSwapView::initTestCase()
{
    QVERIFY(m_dir.isValid());
    qputenv("XDG_CACHE_HOME", m_dir.filePath("cache").toUtf8());
    m_fx = std::make_unique<testutil::ExplorerFixture>();
    QVERIFY(m_fx->open(testutil::writeTopicCorpus(m_dir.filePath("corpus"))));
}

void TestPointSwapView::swapsAlongTheFlowOfTheNearestDocument()
{
    const data::Dataset& ds = *m_fx->session->dataset();
    gui::PointSwapView view(m_fx->session.get(), m_fx->selection.get());
    view.setValue(1.0); // every word swapped
    const std::int64_t item = ds.indices(data::Split::Test).front();
    QVERIFY(augmentAndWait(view, item));
    const workspace::AugmentPreview* pv = view.preview();
    QVERIFY(pv);

    // Partner: the EMD-nearest train document, by brute force (ties: the lower index).
    double best = std::numeric_limits<double>::infinity();
    std::int64_t nearest = -1;
    for (const std::int64_t i : ds.indices(data::Split::Train)) {
        const double e = ot::emd(ot::pointSet(ds, static_cast<std::size_t>(item)), ot::pointSet(ds, static_cast<std::size_t>(i))).emd;
        if (e < best - 1e-12) {
            best = e;
            nearest = i;
        }
    }
    QCOMPARE(pv->partner.item, nearest);
    QVERIFY(std::abs(pv->partner.emd - best) < 1e-9);

    // Every word is in the table with a substitute of the partner along the optimal flow.
    ot::EmdOptions eo;
    eo.flows = true;
    const ot::EmdResult flow =
        ot::emd(ot::pointSet(ds, static_cast<std::size_t>(item)), ot::pointSet(ds, static_cast<std::size_t>(nearest)), eo);
    QCOMPARE(view.table()->rowCount(), static_cast<int>(ds.setSize(static_cast<std::size_t>(item))));
    for (int r = 0; r < view.table()->rowCount(); ++r) {
        const int e = view.table()->item(r, 0)->text().toInt();
        const int j = view.table()->item(r, 3)->text().toInt();
        QCOMPARE(view.table()->item(r, 1)->text().toStdString(), workspace::describeElement(ds, static_cast<std::size_t>(item), e));
        QCOMPARE(view.table()->item(r, 2)->text().toStdString(), workspace::describeElement(ds, static_cast<std::size_t>(nearest), j));
        QVERIFY(std::any_of(flow.flows.begin(), flow.flows.end(), [&](const ot::Flow& f) { return f.i == e && f.j == j && f.amount > 0; }));
    }
    // The document before and after, the changed words highlighted.
    QVERIFY(view.documentView()->isVisibleTo(&view));
    const QString html = view.documentView()->toHtml();
    QVERIFY(html.contains("Augmented"));
    QVERIFY(html.contains(QString::fromStdString(workspace::describeElement(ds, static_cast<std::size_t>(nearest), view.table()->item(0, 3)->text().toInt()))));
}

void TestPointSwapView::sliderResamples()
{
    gui::PointSwapView view(m_fx->session.get(), m_fx->selection.get());
    view.setValue(1.0);
    QVERIFY(augmentAndWait(view, 0));
    const std::int64_t partner = view.preview()->partner.item;
    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    view.setValue(0.0); // moving the slider re-samples against the same partner
    QVERIFY(ended.wait(60000));
    QCOMPARE(view.preview()->request.omega, 0.0);
    QCOMPARE(view.preview()->partner.item, partner);
    QCOMPARE(view.table()->rowCount(), 0);
}

void TestPointSwapView::dropAndMixupForComparison()
{
    gui::PointSwapView view(m_fx->session.get(), m_fx->selection.get());
    view.setValue(1.0);
    QVERIFY(augmentAndWait(view, 0));
    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    view.setMethod(workspace::AugmentMethod::PointDrop);
    QVERIFY(ended.wait(60000));
    QCOMPARE(view.preview()->request.method, workspace::AugmentMethod::PointDrop);
    QCOMPARE(view.preview()->partner.item, std::int64_t(-1));
    view.setValue(0.5);
    QVERIFY(ended.wait(60000));
    view.setMethod(workspace::AugmentMethod::PointMixup);
    QVERIFY(ended.wait(60000));
    const workspace::AugmentPreview* pv = view.preview();
    QCOMPARE(pv->request.method, workspace::AugmentMethod::PointMixup);
    // Each mixed vector is named by a word of the vocabulary.
    QVERIFY(!pv->rows.empty());
    for (const workspace::ChangeRow& r : pv->rows)
        QVERIFY2(!r.mixed.empty() && r.mixed.front() != '(', r.mixed.c_str());
}

void TestPointSwapView::pointSetsAreDrawn()
{
    testutil::ExplorerFixture fx;
    fx.open(std::make_shared<const data::Dataset>(
        data::makeHierarchicalGaussians(data::SyntheticSpec::parse("dim=2,coarse=2,fine=2,points=24,set=6"))));
    gui::PointSwapView view(fx.session.get(), fx.selection.get());
    view.resize(400, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(!view.documentView()->isVisible());
    QVERIFY(view.glyph()->isVisible());
    view.setValue(1.0);
    QVERIFY(augmentAndWait(view, 0));
    // Six elements: all swapped, drawn as the six new (marked, orange) elements.
    const auto& pts = view.glyph()->points();
    QCOMPARE(pts.size(), std::size_t(6));
    QVERIFY(std::all_of(pts.begin(), pts.end(), [](const gui::SetGlyph::Point& p) { return p.marked; }));
    // The glyph shows them: an orange pixel where the first one is drawn.
    const QImage img = view.glyph()->grab().toImage();
    const QPoint at = view.glyph()->position(0).toPoint();
    const QColor c = img.pixelColor(at);
    QVERIFY2(c.red() > 180 && c.blue() < 140, qPrintable(c.name()));
}

QTEST_MAIN(TestPointSwapView)
#include "tst_PointSwapView.moc"
