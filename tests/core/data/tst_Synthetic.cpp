// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Synthetic.h"

#include <QtTest>

#include <cmath>
#include <map>

using namespace setscope::data;

class TestSynthetic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void countsAndNesting();
    void hierarchyIsInTheGeometry();
    void setsOfPoints();
    void deterministic();
    void stratifiedSplit();
    void stratifiedSplitKeepsEdges();
    void parse_data();
    void parse();
};

void TestSynthetic::countsAndNesting()
{
    SyntheticSpec s;
    s.coarseClasses = 3;
    s.finePerCoarse = 4;
    s.pointsPerFine = 20;
    s.dim = 5;
    const Dataset ds = makeHierarchicalGaussians(s);
    QCOMPARE(ds.size(), std::size_t(3 * 4 * 20));
    QCOMPARE(ds.dim(), 5);
    const LabelSet& fine = ds.requireLabelSet("fine");
    const LabelSet& coarse = ds.requireLabelSet("coarse");
    QCOMPARE(fine.numClasses(), 12);
    QCOMPARE(coarse.numClasses(), 3);
    for (std::size_t c : fine.counts())
        QCOMPARE(c, std::size_t(20));
    // Every fine class sits inside exactly one coarse class.
    for (std::size_t i = 0; i < ds.size(); ++i)
        QCOMPARE(coarse.labels[i], fine.labels[i] / 4);
}

void TestSynthetic::hierarchyIsInTheGeometry()
{
    // Mean distance between fine centres: within a coarse class ~ fineSpread*sqrt(2d),
    // across coarse classes ~ sqrt(2d (coarse² + fine²)). Check the ordering on the data.
    SyntheticSpec s;
    s.dim = 10;
    s.coarseClasses = 4;
    s.finePerCoarse = 3;
    s.pointsPerFine = 50;
    s.testFraction = 0;
    const Dataset ds = makeHierarchicalGaussians(s);
    const LabelSet& fine = ds.requireLabelSet("fine");
    std::vector<std::vector<double>> mean(12, std::vector<double>(10, 0.0));
    for (std::size_t i = 0; i < ds.size(); ++i)
        for (int k = 0; k < 10; ++k)
            mean[std::size_t(fine.labels[i])][std::size_t(k)] += ds.item(i).values[k] / 50.0;
    double within = 0, across = 0;
    int nw = 0, na = 0;
    for (int a = 0; a < 12; ++a)
        for (int b = a + 1; b < 12; ++b) {
            double d = 0;
            for (int k = 0; k < 10; ++k)
                d += std::pow(mean[std::size_t(a)][std::size_t(k)] - mean[std::size_t(b)][std::size_t(k)], 2);
            d = std::sqrt(d);
            if (a / 3 == b / 3) {
                within += d;
                ++nw;
            } else {
                across += d;
                ++na;
            }
        }
    within /= nw;
    across /= na;
    QVERIFY2(within > 0.6 * s.fineSpread * std::sqrt(20.0) && within < 1.4 * s.fineSpread * std::sqrt(20.0),
             qPrintable(QString::number(within)));
    QVERIFY2(across > 2.0 * within, qPrintable(QString("%1 vs %2").arg(across).arg(within)));
}

void TestSynthetic::setsOfPoints()
{
    SyntheticSpec s;
    s.setSize = 7;
    s.pointsPerFine = 5;
    const Dataset ds = makeHierarchicalGaussians(s);
    QCOMPARE(ds.maxSetSize(), std::size_t(7));
    QCOMPARE(ds.elementCount(), ds.size() * 7);
    QVERIFY(!ds.isVectorDataset());
}

void TestSynthetic::deterministic()
{
    SyntheticSpec s;
    const Dataset a = makeHierarchicalGaussians(s);
    const Dataset b = makeHierarchicalGaussians(s);
    QCOMPARE(a.values(), b.values());
    QCOMPARE(a.contentHash(), b.contentHash());
    s.seed = 8;
    QVERIFY(makeHierarchicalGaussians(s).values() != a.values());
}

void TestSynthetic::stratifiedSplit()
{
    SyntheticSpec s;
    s.pointsPerFine = 40;
    s.testFraction = 0.25;
    const Dataset ds = makeHierarchicalGaussians(s);
    const LabelSet& fine = ds.requireLabelSet("fine");
    std::map<int, int> testPerClass;
    for (std::int64_t i : ds.indices(Split::Test))
        ++testPerClass[fine.labels[std::size_t(i)]];
    QCOMPARE(int(testPerClass.size()), fine.numClasses());
    for (const auto& [c, n] : testPerClass)
        QCOMPARE(n, 10); // 25 % of 40 in every class
}

void TestSynthetic::stratifiedSplitKeepsEdges()
{
    DatasetBuilder b("graphs");
    b.setDimension(1);
    b.defineLabelSet("fine", {"a", "b"});
    const float v[] = {0, 1, 2};
    const std::int32_t path[] = {0, 1, 1, 2};
    for (int i = 0; i < 8; ++i) {
        const std::size_t it = b.addItem(v, nullptr, std::size_t(1 + i % 3), Split::Train);
        b.setLabel("fine", it, i % 2);
        b.setElementEdges(it, path, std::size_t(i % 3)); // 0, 1 or 2 edges: fit 1, 2 or 3 nodes
    }
    const Dataset ds = b.finish();
    const Dataset split = withStratifiedTestSplit(ds, "fine", 0.25, 3);
    QCOMPARE(split.count(Split::Test), std::size_t(2));
    QCOMPARE(split.edgeOffsets(), ds.edgeOffsets());
    QCOMPARE(split.edgePairs(), ds.edgePairs());
}

void TestSynthetic::parse_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::newRow("empty") << "" << true;
    QTest::newRow("full") << "dim=8,coarse=3,fine=4,points=200,set=2,test=0.1,seed=3" << true;
    QTest::newRow("unknown key") << "colour=red" << false;
    QTest::newRow("bad number") << "dim=eight" << false;
    QTest::newRow("trailing junk") << "dim=8x" << false;
    QTest::newRow("out of range") << "test=1.5" << false;
    QTest::newRow("no equals") << "dim" << false;
}

void TestSynthetic::parse()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    if (ok) {
        const SyntheticSpec s = SyntheticSpec::parse(text.toStdString());
        if (text.startsWith("dim=8")) {
            QCOMPARE(s.dim, 8);
            QCOMPARE(s.pointsPerFine, 200);
            QCOMPARE(s.setSize, 2);
            QCOMPARE(s.seed, std::uint64_t(3));
        }
    } else {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, SyntheticSpec::parse(text.toStdString()));
    }
}

QTEST_GUILESS_MAIN(TestSynthetic)
#include "tst_Synthetic.moc"
