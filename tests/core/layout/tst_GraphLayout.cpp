// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/layout/GraphLayout.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace setscope::layout;

namespace {

using Pairs = std::vector<std::int32_t>;

double dist(const GraphLayout& l, int i, int j)
{
    const auto a = static_cast<std::size_t>(i), b = static_cast<std::size_t>(j);
    return std::hypot(l.xy[2 * a] - l.xy[2 * b], l.xy[2 * a + 1] - l.xy[2 * b + 1]);
}

/// The mean drawn length of the edges: distances divided by it are "at edge length 1".
double meanEdge(const GraphLayout& l, const Pairs& p)
{
    double s = 0.0;
    for (std::size_t k = 0; k < p.size(); k += 2)
        s += dist(l, p[k], p[k + 1]);
    return s / static_cast<double>(p.size() / 2);
}

/// Floyd-Warshall over the edge list (a reference independent of the layout's BFS).
std::vector<std::vector<double>> allPairs(int n, const Pairs& p)
{
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> d(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), inf));
    for (int i = 0; i < n; ++i)
        d[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)] = 0;
    for (std::size_t k = 0; k < p.size(); k += 2)
        if (p[k] != p[k + 1])
            d[static_cast<std::size_t>(p[k])][static_cast<std::size_t>(p[k + 1])] =
                d[static_cast<std::size_t>(p[k + 1])][static_cast<std::size_t>(p[k])] = 1;
    for (std::size_t k = 0; k < d.size(); ++k)
        for (std::size_t i = 0; i < d.size(); ++i)
            for (std::size_t j = 0; j < d.size(); ++j)
                d[i][j] = std::min(d[i][j], d[i][k] + d[k][j]);
    return d;
}

/// sum_{i<j, connected} (|x_i - x_j| - d_ij)^2 / d_ij^2 of positions `xy`.
double stress(const std::vector<double>& xy, const std::vector<std::vector<double>>& d)
{
    double s = 0.0;
    for (std::size_t i = 0; i < d.size(); ++i)
        for (std::size_t j = i + 1; j < d.size(); ++j) {
            if (!std::isfinite(d[i][j]))
                continue;
            const double r = std::hypot(xy[2 * i] - xy[2 * j], xy[2 * i + 1] - xy[2 * j + 1]) - d[i][j];
            s += r * r / (d[i][j] * d[i][j]);
        }
    return s;
}

/// A connected random graph: a random spanning tree plus extra random edges.
Pairs randomGraph(int n, int extra, unsigned seed)
{
    std::mt19937 rng(seed);
    Pairs p;
    for (int i = 1; i < n; ++i) {
        p.push_back(static_cast<std::int32_t>(rng() % static_cast<unsigned>(i)));
        p.push_back(i);
    }
    for (int k = 0; k < extra; ++k) {
        p.push_back(static_cast<std::int32_t>(rng() % static_cast<unsigned>(n)));
        p.push_back(static_cast<std::int32_t>(rng() % static_cast<unsigned>(n)));
    }
    return p;
}

} // namespace

class TestGraphLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pathLiesOnALine();
    void fourCycleIsASquare();
    void triangleIsEquilateral();
    void starLeavesAreEquidistant_data();
    void starLeavesAreEquidistant();
    void stressDoesNotRise_data();
    void stressDoesNotRise();
    void deterministic();
    void componentsSideBySide();
    void loopsRepeatsAndCap();
    void boundedWork();
};

void TestGraphLayout::pathLiesOnALine()
{
    // 0 - 1 - 2 (given in a scrambled order): distances 1, 1, 2 are a line, stress 0.
    const Pairs p{2, 1, 1, 0};
    const GraphLayout l = layoutGraph(3, p);
    QCOMPARE(l.nodeCount(), std::size_t(3));
    const double s = meanEdge(l, p);
    QVERIFY(std::abs(dist(l, 0, 1) / s - 1.0) < 1e-6);
    QVERIFY(std::abs(dist(l, 1, 2) / s - 1.0) < 1e-6);
    QVERIFY(std::abs(dist(l, 0, 2) / s - 2.0) < 1e-6); // |02| = |01| + |12|: collinear
    QVERIFY(std::abs(s - 1.0) < 1e-6);                   // an exact embedding keeps unit edges
    QVERIFY(l.stress < 1e-10);
}

void TestGraphLayout::fourCycleIsASquare()
{
    const Pairs p{0, 1, 1, 2, 2, 3, 3, 0};
    const GraphLayout l = layoutGraph(4, p);
    const double s = meanEdge(l, p);
    for (int k = 0; k < 4; ++k)
        QVERIFY2(std::abs(dist(l, k, (k + 1) % 4) / s - 1.0) < 1e-4, qPrintable(QString::number(dist(l, k, (k + 1) % 4) / s)));
    QVERIFY(std::abs(dist(l, 0, 2) / s - std::sqrt(2.0)) < 1e-4);
    QVERIFY(std::abs(dist(l, 1, 3) / s - std::sqrt(2.0)) < 1e-4);
    // The weighted-stress optimum of a square of side a (4 sides at 1, 2 diagonals at 2 with
    // weight 1/4): d/da [4 (a - 1)^2 + (a sqrt2 - 2)^2 / 2] = 0 gives a = (4 + sqrt2) / 5.
    QVERIFY2(std::abs(s - (4.0 + std::sqrt(2.0)) / 5.0) < 1e-4, qPrintable(QString::number(s)));
}

void TestGraphLayout::triangleIsEquilateral()
{
    const Pairs p{0, 1, 1, 2, 0, 2};
    const GraphLayout l = layoutGraph(3, p);
    const double s = meanEdge(l, p);
    QVERIFY(std::abs(dist(l, 0, 1) / s - 1.0) < 1e-6);
    QVERIFY(std::abs(dist(l, 1, 2) / s - 1.0) < 1e-6);
    QVERIFY(std::abs(dist(l, 0, 2) / s - 1.0) < 1e-6);
}

void TestGraphLayout::starLeavesAreEquidistant_data()
{
    QTest::addColumn<int>("leaves");
    QTest::addColumn<int>("centre");
    QTest::newRow("3 leaves, centre 0") << 3 << 0;
    QTest::newRow("5 leaves, centre 2") << 5 << 2;
    QTest::newRow("6 leaves, centre 6") << 6 << 6;
}

void TestGraphLayout::starLeavesAreEquidistant()
{
    QFETCH(int, leaves);
    QFETCH(int, centre);
    Pairs p;
    for (int v = 0; v <= leaves; ++v)
        if (v != centre) {
            p.push_back(centre);
            p.push_back(v);
        }
    const GraphLayout l = layoutGraph(static_cast<std::size_t>(leaves + 1), p);
    const double s = meanEdge(l, p);
    for (int v = 0; v <= leaves; ++v)
        if (v != centre)
            QVERIFY2(std::abs(dist(l, centre, v) / s - 1.0) < 1e-3,
                     qPrintable(QString("leaf %1 at %2").arg(v).arg(dist(l, centre, v) / s)));
}

void TestGraphLayout::stressDoesNotRise_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("extra");
    QTest::addColumn<unsigned>("seed");
    QTest::newRow("tree of 12") << 12 << 0 << 1u;
    QTest::newRow("30 nodes, 15 chords") << 30 << 15 << 2u;
    QTest::newRow("60 nodes, 40 chords") << 60 << 40 << 3u;
}

void TestGraphLayout::stressDoesNotRise()
{
    QFETCH(int, n);
    QFETCH(int, extra);
    QFETCH(unsigned, seed);
    const Pairs p = randomGraph(n, extra, seed);
    const GraphLayout l = layoutGraph(static_cast<std::size_t>(n), p);
    const auto d = allPairs(n, p);
    const double before = stress(l.initialXy, d), after = stress(l.xy, d);
    // The reported stresses are the stresses of the positions, by the reference formula.
    QVERIFY(std::abs(before - l.initialStress) <= 1e-9 * std::max(1.0, before));
    QVERIFY(std::abs(after - l.stress) <= 1e-9 * std::max(1.0, after));
    QVERIFY2(after <= before, qPrintable(QString("%1 > %2").arg(after).arg(before)));
    QVERIFY(l.iterations > 0);
    qInfo("n=%d: stress %.4f (classical MDS start) -> %.4f after %d SMACOF iterations", n, before, after, l.iterations);
}

void TestGraphLayout::deterministic()
{
    const Pairs p = randomGraph(80, 60, 7);
    const GraphLayout a = layoutGraph(80, p);
    const GraphLayout b = layoutGraph(80, p);
    QCOMPARE(a.xy, b.xy);
    QCOMPARE(a.iterations, b.iterations);
}

void TestGraphLayout::componentsSideBySide()
{
    // Triangle {0, 4, 5}, path {1, 2} and node 3 alone: three components, laid out left to
    // right largest first, each in its own x range with at least one unit between.
    const Pairs p{0, 4, 4, 5, 5, 0, 1, 2};
    const GraphLayout l = layoutGraph(6, p);
    auto range = [&](std::initializer_list<int> nodes) {
        double lo = 1e9, hi = -1e9;
        for (int v : nodes) {
            lo = std::min(lo, l.xy[2 * static_cast<std::size_t>(v)]);
            hi = std::max(hi, l.xy[2 * static_cast<std::size_t>(v)]);
        }
        return std::pair{lo, hi};
    };
    const auto tri = range({0, 4, 5}), path = range({1, 2}), lone = range({3});
    QVERIFY(path.first - tri.second >= 1.0 - 1e-9);
    QVERIFY(lone.first - path.second >= 1.0 - 1e-9);
    // Each component keeps its own shape: an equilateral triangle of unit sides, a unit edge.
    QVERIFY(std::abs(dist(l, 0, 4) - 1.0) < 1e-6 && std::abs(dist(l, 4, 5) - 1.0) < 1e-6 &&
            std::abs(dist(l, 0, 5) - 1.0) < 1e-6);
    QVERIFY(std::abs(dist(l, 1, 2) - 1.0) < 1e-6);
    // The drawing is centred on the origin.
    QVERIFY(std::abs(tri.first + lone.second) < 1e-9);
}

void TestGraphLayout::loopsRepeatsAndCap()
{
    // A self-loop and a repeated edge change nothing.
    const GraphLayout plain = layoutGraph(4, Pairs{0, 1, 1, 2, 2, 3});
    const GraphLayout noisy = layoutGraph(4, Pairs{0, 1, 1, 1, 1, 2, 2, 1, 2, 3});
    QCOMPARE(noisy.xy, plain.xy);
    // The cap lays out the first maxNodes nodes (the path 0-1-2 here) and says how many it
    // left out; edges to the left-out nodes are skipped.
    GraphLayoutOptions o;
    o.maxNodes = 3;
    const GraphLayout capped = layoutGraph(5, Pairs{0, 1, 1, 2, 2, 3, 3, 4}, o);
    QCOMPARE(capped.nodeCount(), std::size_t(3));
    QCOMPARE(capped.droppedNodes, std::size_t(2));
    QVERIFY(std::abs(dist(capped, 0, 2) - 2.0) < 1e-6);
    QCOMPARE(layoutGraph(0, Pairs{}).nodeCount(), std::size_t(0));
}

void TestGraphLayout::boundedWork()
{
    // A 1000-node graph under the default bounds: 500 nodes laid out, at most 300
    // iterations. The times are printed, not checked (they depend on the machine's load).
    const GraphLayoutOptions defaults;
    for (int n : {50, 200, 1000}) {
        const Pairs p = randomGraph(n, n / 5, 11);
        QElapsedTimer clock;
        clock.start();
        const GraphLayout l = layoutGraph(static_cast<std::size_t>(n), p);
        const qint64 ms = clock.elapsed();
        QCOMPARE(l.nodeCount(), std::min<std::size_t>(static_cast<std::size_t>(n), defaults.maxNodes));
        QVERIFY(l.iterations <= defaults.maxIterations);
        QVERIFY(l.stress <= l.initialStress);
        qInfo("%d nodes (%zu laid out): %lld ms, %d iterations", n, l.nodeCount(), static_cast<long long>(ms), l.iterations);
    }
}

QTEST_GUILESS_MAIN(TestGraphLayout)
#include "tst_GraphLayout.moc"
