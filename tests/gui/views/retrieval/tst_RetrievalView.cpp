// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The Retrieval view on a word corpus read by the real loaders, with the model of a short
// run: its lists against brute force (Euclidean distances of the model's own embedding of
// every item; exact EMD by the solver, item by item), its marks against the labels.
#include "gui/views/retrieval/RetrievalView.h"

#include "core/model/ModelHandle.h"
#include "core/ot/Emd.h"
#include "tests/support/ExplorerFixture.h"

#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>

using namespace setscope;

class TestRetrievalView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void withoutAModelSaysWhy();
    void listsMatchBruteForce();
    void followsTheCurrentItem();
    void exportsSvg();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<testutil::ExplorerFixture> m_fx;
};

void TestRetrievalView::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_fx = std::make_unique<testutil::ExplorerFixture>();
    qputenv("XDG_CACHE_HOME", m_dir.filePath("cache").toUtf8()); // parsed word vectors are cached there
    QVERIFY(m_fx->open(testutil::writeTopicCorpus(m_dir.filePath("corpus"))));
    QVERIFY(m_fx->session->dataset()->hasElementText());
}

void TestRetrievalView::withoutAModelSaysWhy()
{
    gui::RetrievalView view(m_fx->session.get(), m_fx->selection.get());
    QVERIFY(!view.model());
    QVERIFY(!view.retrieve(0));
    QVERIFY2(view.statusText().contains("No model"), qPrintable(view.statusText()));
}

void TestRetrievalView::listsMatchBruteForce()
{
    QVERIFY(m_fx->train());
    gui::RetrievalView view(m_fx->session.get(), m_fx->selection.get());
    QVERIFY(view.model()); // the live run's, taken at construction
    QVERIFY(view.model().get() == m_fx->session->currentModel().get());
    view.kSpin()->setValue(5);
    const data::Dataset& ds = *m_fx->session->dataset();
    const std::int64_t q = ds.indices(data::Split::Test).front();
    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    QVERIFY(view.retrieve(q));
    QVERIFY(ended.wait(60000));
    QCOMPARE(ended.front().front().toInt(), static_cast<int>(job::JobStatus::Finished));
    QVERIFY(view.result());

    // Brute force over the train split.
    const std::vector<float> db = view.model()->embed(ds);
    const int dim = view.model()->dim();
    std::vector<std::pair<double, std::int64_t>> euclid, emd;
    for (const std::int64_t i : ds.indices(data::Split::Train)) {
        double s = 0;
        for (int k = 0; k < dim; ++k) {
            const double d = db[static_cast<std::size_t>(q * dim + k)] - db[static_cast<std::size_t>(i * dim + k)];
            s += d * d;
        }
        euclid.emplace_back(std::sqrt(s), i);
        emd.emplace_back(ot::emd(ot::pointSet(ds, static_cast<std::size_t>(q)), ot::pointSet(ds, static_cast<std::size_t>(i))).emd, i);
    }
    std::sort(euclid.begin(), euclid.end());
    std::sort(emd.begin(), emd.end());
    const data::LabelSet* ls = ds.labelSet("fine");
    QVERIFY(ls);
    const std::int32_t ql = ls->labels[static_cast<std::size_t>(q)];
    QCOMPARE(view.embeddingTable()->rowCount(), 5);
    QCOMPARE(view.emdTable()->rowCount(), 5);
    for (int r = 0; r < 5; ++r) {
        // Distances can tie (documents of the same words): compare the distance, and the item
        // where the brute force has no tie at that rank.
        const double embD = view.embeddingTable()->item(r, 3)->text().toDouble();
        const double emdD = view.emdTable()->item(r, 3)->text().toDouble();
        QVERIFY2(std::abs(embD - euclid[static_cast<std::size_t>(r)].first) < 1e-3 * (1 + embD), qPrintable(QString::number(r)));
        QVERIFY2(std::abs(emdD - emd[static_cast<std::size_t>(r)].first) < 1e-4 * (1 + emdD), qPrintable(QString::number(r)));
        const qlonglong item = view.emdTable()->item(r, 1)->text().toLongLong();
        // Correct / wrong by the label, in the mark and the row colour.
        const bool same = ls->labels[static_cast<std::size_t>(item)] == ql;
        QCOMPARE(view.emdTable()->item(r, 4)->text().startsWith(QStringLiteral("✓")), same);
        QCOMPARE(view.emdTable()->item(r, 0)->background().color().green() >
                     view.emdTable()->item(r, 0)->background().color().red(),
                 same);
    }
    // The summary names both paths' times and the scores.
    QVERIFY(view.summaryLabel()->text().contains("recall-hit@5"));
    QVERIFY(view.summaryLabel()->text().contains("exact EMD"));
    QVERIFY(view.result()->exactSeconds > 0);
}

void TestRetrievalView::followsTheCurrentItem()
{
    QVERIFY(m_fx->session->currentModel());
    gui::RetrievalView view(m_fx->session.get(), m_fx->selection.get());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    m_fx->selection->select({7}); // a click on the map
    QVERIFY(ended.wait(60000));
    QCOMPARE(view.query(), std::int64_t(7));
    QCOMPARE(view.result()->query, std::int64_t(7));
    // A new dataset clears the view.
    m_fx->open(std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse("points=20"))));
    QVERIFY(!view.result());
    QCOMPARE(view.embeddingTable()->rowCount(), 0);
    QVERIFY(!view.model()); // the run's model belonged to the corpus
    QVERIFY(m_fx->open(testutil::writeTopicCorpus(m_dir.filePath("corpus"))));
}

void TestRetrievalView::exportsSvg()
{
    QVERIFY(m_fx->train());
    gui::RetrievalView view(m_fx->session.get(), m_fx->selection.get());
    QVERIFY(view.toSvg().isEmpty()); // nothing to show yet
    QSignalSpy ended(&view, &gui::ExplorerView::jobEnded);
    QVERIFY(view.retrieve(1));
    QVERIFY(ended.wait(60000));
    const QString svg = view.toSvg();
    QVERIFY(svg.startsWith("<?xml"));
    QVERIFY(svg.contains("By exact EMD"));
    QXmlStreamReader xml(svg);
    while (!xml.atEnd())
        xml.readNext();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
}

QTEST_MAIN(TestRetrievalView)
#include "tst_RetrievalView.moc"
