// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// workspace::TsneMap: the vectors a map is made of (a .npy's rows, a dataset's items) and the
// map, checked against what each must give: the rows and means by hand, PCA's width, a map of
// n x 2 finite points on which every point's nearest neighbour is of its own (far-apart) cluster.
#include "core/data/Synthetic.h"
#include "core/data/VectorLoaders.h"
#include "core/workspace/TsneMap.h"

#include <QtTest>

#include <setscope/sdk/Errors.h>

#include <cmath>
#include <limits>

using namespace setscope;

class TestTsneMap : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void inputFromNpy();
    void inputFromDatasetIsTheSetMeans();
    void mapKeepsClustersApart();
};

void TestTsneMap::inputFromNpy()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("x.npy").toStdString();
    const std::vector<float> x{1, 2, 3, 4, 5, 6}; // 3 x 2
    data::writeNpy(path, x.data(), {3, 2});
    workspace::TsneInput in = workspace::tsneInputFromNpy(path, 0);
    QCOMPARE(in.n, std::int64_t(3));
    QCOMPARE(in.d, 2);
    QCOMPARE(in.x, x);
    in = workspace::tsneInputFromNpy(path, 2);
    QCOMPARE(in.x, (std::vector<float>{1, 2, 3, 4}));

    std::vector<float> bad = x;
    bad[3] = std::numeric_limits<float>::quiet_NaN(); // row 1, column 1
    data::writeNpy(path, bad.data(), {3, 2});
    try {
        workspace::tsneInputFromNpy(path, 0);
        QFAIL("a NaN was accepted");
    } catch (const sdk::InputError& e) {
        QCOMPARE(QString::fromStdString(e.location()), QString("row 1"));
        QVERIFY2(std::string(e.what()).find("column 1") != std::string::npos, e.what());
    }
    data::writeNpy(path, x.data(), {6});
    QVERIFY_THROWS_EXCEPTION(sdk::InputError, workspace::tsneInputFromNpy(path, 0));
}

void TestTsneMap::inputFromDatasetIsTheSetMeans()
{
    data::SyntheticSpec s;
    s.dim = 3;
    s.coarseClasses = 2;
    s.finePerCoarse = 1;
    s.pointsPerFine = 3;
    s.setSize = 4;
    const data::Dataset ds = data::makeHierarchicalGaussians(s);
    const workspace::TsneInput in = workspace::tsneInputFromDataset(ds, 2);
    QCOMPARE(in.n, std::int64_t(2));
    QCOMPARE(in.d, 3);
    for (std::size_t i = 0; i < 2; ++i) {
        const data::ItemView v = ds.item(i);
        for (int c = 0; c < 3; ++c) {
            double sum = 0, w = 0;
            for (std::size_t e = 0; e < v.count; ++e) {
                sum += v.weights[e] * v.element(e)[c];
                w += v.weights[e];
            }
            QVERIFY(std::abs(in.x[i * 3 + static_cast<std::size_t>(c)] - sum / w) < 1e-5);
        }
    }
    workspace::TsneInput reduced = in;
    workspace::reduceByPca(reduced, 2);
    QCOMPARE(reduced.d, 2);
    QCOMPARE(reduced.x.size(), std::size_t(4));
    workspace::TsneInput kept = in;
    workspace::reduceByPca(kept, 5); // no more components than dimensions: unchanged
    QCOMPARE(kept.x, in.x);
}

void TestTsneMap::mapKeepsClustersApart()
{
    // 40 points: 20 near the origin, 20 near (100, 100, 100).
    workspace::TsneInput in;
    in.n = 40;
    in.d = 3;
    std::mt19937_64 rng(3);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    for (int i = 0; i < 40; ++i)
        for (int c = 0; c < 3; ++c)
            in.x.push_back((i < 20 ? 0.0f : 100.0f) + noise(rng));
    layout::FastTsneOptions o;
    o.perplexity = 5;
    o.maxIterations = 500;
    int reports = 0;
    const workspace::TsneMap m = workspace::mapByTsne(in, o, 20, [&](int) { ++reports; });
    QCOMPARE(m.map.size(), std::size_t(80));
    QCOMPARE(reports, 50);
    QVERIFY(m.seconds.warmIterations > 0.0);
    // t-SNE keeps neighbourhoods: each point's nearest point on the map is of its own cluster.
    int kept = 0;
    for (int i = 0; i < 40; ++i) {
        int nearest = -1;
        double best = 1e300;
        for (int j = 0; j < 40; ++j) {
            const double d = std::hypot(m.map[static_cast<std::size_t>(2 * i)] - m.map[static_cast<std::size_t>(2 * j)],
                                        m.map[static_cast<std::size_t>(2 * i + 1)] - m.map[static_cast<std::size_t>(2 * j + 1)]);
            if (j != i && d < best) {
                best = d;
                nearest = j;
            }
        }
        kept += (nearest < 20) == (i < 20);
    }
    QCOMPARE(kept, 40);
    for (float v : m.map)
        QVERIFY(std::isfinite(v));
}

QTEST_GUILESS_MAIN(TestTsneMap)
#include "tst_TsneMap.moc"
