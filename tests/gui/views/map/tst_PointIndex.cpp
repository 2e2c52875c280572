// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// PointIndex (gui/views/map/PointIndex.h) against brute force: the nearest point within a
// radius, the points in a rectangle and in a polygon (lasso), on random and on degenerate
// point sets. The polygon reference is Qt's own QPolygonF::containsPoint (odd-even fill).
#include "gui/views/map/PointIndex.h"

#include <QPolygonF>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using setscope::gui::PointIndex;

namespace {

std::int64_t bruteNearest(const std::vector<float>& xy, double x, double y, double radius)
{
    double best = radius * radius;
    std::int64_t found = -1;
    for (std::size_t i = 0; i < xy.size() / 2; ++i) {
        if (!std::isfinite(xy[2 * i]) || !std::isfinite(xy[2 * i + 1]))
            continue;
        const double dx = xy[2 * i] - x, dy = xy[2 * i + 1] - y, d2 = dx * dx + dy * dy;
        if (d2 <= best) { // "<=": the later (higher) index wins a tie, as when drawn on top
            best = d2;
            found = static_cast<std::int64_t>(i);
        }
    }
    return found;
}

std::vector<std::int64_t> bruteRect(const std::vector<float>& xy, double x0, double y0, double x1, double y1)
{
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < xy.size() / 2; ++i)
        if (xy[2 * i] >= std::min(x0, x1) && xy[2 * i] <= std::max(x0, x1) && xy[2 * i + 1] >= std::min(y0, y1) &&
            xy[2 * i + 1] <= std::max(y0, y1))
            out.push_back(static_cast<std::int64_t>(i));
    return out;
}

/// Points inside `poly` by QPolygonF's odd-even test, over every point.
std::vector<std::int64_t> brutePolygon(const std::vector<float>& xy, const QPolygonF& poly)
{
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < xy.size() / 2; ++i)
        if (std::isfinite(xy[2 * i]) && std::isfinite(xy[2 * i + 1]) &&
            poly.containsPoint(QPointF(xy[2 * i], xy[2 * i + 1]), Qt::OddEvenFill))
            out.push_back(static_cast<std::int64_t>(i));
    return out;
}

std::vector<double> flat(const QPolygonF& poly)
{
    std::vector<double> v;
    for (const QPointF& p : poly) {
        v.push_back(p.x());
        v.push_back(p.y());
    }
    return v;
}

} // namespace

class TestPointIndex : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void nearestMatchesBruteForce_data();
    void nearestMatchesBruteForce();
    void rectMatchesBruteForce();
    void tiesGoToTheHigherIndex();
    void polygonMatchesBruteForce();
    void kNearestMatchesBruteForce();
    void agreementMatchesBruteForce();
    void degenerateInputs();
};

void TestPointIndex::nearestMatchesBruteForce_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("clustered");
    QTest::newRow("uniform 10000") << 10000 << false;
    QTest::newRow("clustered 10000") << 10000 << true;
    QTest::newRow("uniform 7") << 7 << false;
}

void TestPointIndex::nearestMatchesBruteForce()
{
    QFETCH(int, n);
    QFETCH(bool, clustered);
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> u(-50.0, 50.0);
    std::normal_distribution<double> g(0.0, 0.3);
    std::vector<float> xy(2 * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        // Clustered: five tight blobs far apart, the shape t-SNE maps have (most cells empty).
        const double cx = clustered ? 40.0 * ((i % 5) - 2) : 0.0;
        xy[2 * i] = float(clustered ? cx + g(rng) : u(rng));
        xy[2 * i + 1] = float(clustered ? 3.0 * (i % 3) + g(rng) : u(rng));
    }
    PointIndex index;
    index.build(xy.data(), xy.size() / 2);
    QCOMPARE(index.size(), std::size_t(n));
    int hits = 0;
    for (int q = 0; q < 3000; ++q) {
        const double x = u(rng) * (clustered ? 1.8 : 1.1), y = clustered ? u(rng) * 0.2 : u(rng) * 1.1;
        const double radius = q % 3 == 0 ? 0.05 : q % 3 == 1 ? 1.0 : 20.0;
        const std::int64_t expected = bruteNearest(xy, x, y, radius);
        QCOMPARE(index.nearest(x, y, radius), expected);
        hits += expected >= 0;
    }
    QVERIFY2(hits > 300, qPrintable(QString("only %1 queries found a point: the test would not test").arg(hits)));
    // Every point finds itself (or a coincident later point) at radius 0.
    for (int i = 0; i < n; i += std::max(1, n / 500)) {
        const std::int64_t found = index.nearest(xy[2 * i], xy[2 * i + 1], 0.0);
        QVERIFY(found >= i);
        QCOMPARE(xy[2 * found], xy[2 * i]);
    }
}

void TestPointIndex::rectMatchesBruteForce()
{
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-10.0, 10.0);
    std::vector<float> xy(2 * 5000);
    for (float& v : xy)
        v = float(u(rng));
    PointIndex index;
    index.build(xy.data(), 5000);
    for (int q = 0; q < 200; ++q) {
        const double x0 = u(rng) * 1.2, y0 = u(rng) * 1.2, x1 = u(rng) * 1.2, y1 = u(rng) * 1.2;
        QCOMPARE(index.inRect(x0, y0, x1, y1), bruteRect(xy, x0, y0, x1, y1));
    }
    // Edges are inclusive: a rectangle exactly around one point finds it.
    QCOMPARE(index.inRect(xy[20], xy[21], xy[20], xy[21]), std::vector<std::int64_t>({10}));
    // The whole plane finds everything.
    QCOMPARE(index.inRect(-1e9, -1e9, 1e9, 1e9).size(), std::size_t(5000));
}

void TestPointIndex::polygonMatchesBruteForce()
{
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(-10.0, 10.0);
    std::vector<float> xy(2 * 5000);
    for (float& v : xy)
        v = float(u(rng));
    xy[0] = std::numeric_limits<float>::quiet_NaN(); // never found
    PointIndex index;
    index.build(xy.data(), 5000);
    // Random star-shaped lassos (what a hand draws: many vertices, concave), some reaching
    // past the points' extent.
    for (int q = 0; q < 100; ++q) {
        const QPointF c(u(rng), u(rng));
        const int m = 3 + q % 60;
        QPolygonF poly;
        for (int k = 0; k < m; ++k) {
            const double a = 2.0 * M_PI * k / m, r = 1.0 + std::abs(u(rng)) * (q % 3 == 0 ? 1.5 : 0.6);
            poly << c + QPointF(r * std::cos(a), r * std::sin(a));
        }
        QCOMPARE(index.inPolygon(flat(poly)), brutePolygon(xy, poly));
    }
    // A self-crossing lasso (a bow tie): both lobes are inside, as drawn.
    const QPolygonF bowtie({{-8, -8}, {8, 8}, {8, -8}, {-8, 8}});
    const std::vector<std::int64_t> tie = index.inPolygon(flat(bowtie));
    QCOMPARE(tie, brutePolygon(xy, bowtie));
    QVERIFY(tie.size() > 1000);
    // Fewer than three vertices: nothing.
    QVERIFY(index.inPolygon({0.0, 0.0, 5.0, 5.0}).empty());
}

void TestPointIndex::kNearestMatchesBruteForce()
{
    std::mt19937_64 rng(13);
    std::normal_distribution<double> g(0.0, 3.0);
    std::vector<float> xy(2 * 3000);
    for (std::size_t i = 0; i < xy.size(); i += 2) { // clustered, and a far outlier
        const double c = (i / 2) % 3 == 0 ? 20.0 : 0.0;
        xy[i] = float(c + g(rng));
        xy[i + 1] = float(g(rng));
    }
    xy[2 * 17] = 500.0f;
    xy[3] = std::numeric_limits<float>::quiet_NaN(); // point 1: never found, has no neighbours
    PointIndex index;
    index.build(xy.data(), 3000);
    for (std::size_t i : {std::size_t(0), std::size_t(17), std::size_t(42), std::size_t(1500), std::size_t(2999)})
        for (std::size_t k : {std::size_t(1), std::size_t(10), std::size_t(50)}) {
            std::vector<std::pair<double, std::int64_t>> all;
            for (std::size_t j = 0; j < 3000; ++j)
                if (j != i && std::isfinite(xy[2 * j]) && std::isfinite(xy[2 * j + 1])) {
                    const double dx = double(xy[2 * j]) - xy[2 * i], dy = double(xy[2 * j + 1]) - xy[2 * i + 1];
                    all.emplace_back(dx * dx + dy * dy, std::int64_t(j));
                }
            std::sort(all.begin(), all.end());
            std::vector<std::int64_t> expected;
            for (std::size_t q = 0; q < k; ++q)
                expected.push_back(all[q].second);
            QCOMPARE(index.kNearest(i, k), expected);
        }
    QVERIFY(index.kNearest(1, 5).empty());
    QCOMPARE(index.kNearest(0, 5000).size(), std::size_t(2998)); // all the other finite points
}

void TestPointIndex::tiesGoToTheHigherIndex()
{
    const std::vector<float> xy = {0, 0, 1, 0, 0, 0, -1, 0}; // 0 and 2 coincide; 1 and 3 equidistant from 0
    PointIndex index;
    index.build(xy.data(), 4);
    QCOMPARE(index.nearest(0.0, 0.0, 0.5), std::int64_t(2));
    QCOMPARE(index.nearest(0.0, 0.0, 0.0), std::int64_t(2));
    PointIndex ring;
    const std::vector<float> two = {1, 0, -1, 0};
    ring.build(two.data(), 2);
    QCOMPARE(ring.nearest(0.0, 0.0, 1.0), std::int64_t(1));
    QCOMPARE(ring.nearest(0.0, 0.0, 0.99), std::int64_t(-1));
}

void TestPointIndex::agreementMatchesBruteForce()
{
    // Two overlapping classes and unlabelled points: each labelled point's share of its 10
    // nearest (by brute force) with its label.
    std::mt19937_64 rng(5);
    std::normal_distribution<double> g(0.0, 1.0);
    const std::size_t n = 600, k = 10;
    std::vector<float> xy(2 * n);
    std::vector<std::int32_t> labels(n);
    for (std::size_t i = 0; i < n; ++i) {
        labels[i] = i % 7 == 0 ? -1 : std::int32_t(i % 2);
        xy[2 * i] = float(g(rng) + (i % 2) * 1.5);
        xy[2 * i + 1] = float(g(rng));
    }
    const std::vector<float> got = setscope::gui::neighbourAgreement(xy.data(), labels, k);
    QCOMPARE(got.size(), n);
    int partial = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (labels[i] < 0) {
            QVERIFY(std::isnan(got[i]));
            continue;
        }
        std::vector<std::pair<double, std::size_t>> d;
        for (std::size_t j = 0; j < n; ++j)
            if (j != i)
                d.emplace_back(std::hypot(double(xy[2 * j]) - xy[2 * i], double(xy[2 * j + 1]) - xy[2 * i + 1]), j);
        std::sort(d.begin(), d.end());
        int same = 0;
        for (std::size_t q = 0; q < k; ++q)
            same += labels[d[q].second] == labels[i];
        QCOMPARE(got[i], float(same) / float(k));
        partial += same > 0 && same < int(k);
    }
    QVERIFY(partial > 50);
    // Asked to stop: no values.
    QVERIFY(setscope::gui::neighbourAgreement(xy.data(), labels, k, [] { return true; }).empty());
}

void TestPointIndex::degenerateInputs()
{
    PointIndex empty;
    empty.build(nullptr, 0);
    QCOMPARE(empty.nearest(0, 0, 100), std::int64_t(-1));
    QVERIFY(empty.inRect(-1, -1, 1, 1).empty());

    // All points equal: one cell; non-finite points are never found.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> xy = {3, 3, 3, 3, nan, 0, 3, 3, 0, std::numeric_limits<float>::infinity()};
    PointIndex index;
    index.build(xy.data(), 5);
    QCOMPARE(index.nearest(3.0, 3.0, 0.1), std::int64_t(3));
    QCOMPARE(index.inRect(-100, -100, 100, 100), std::vector<std::int64_t>({0, 1, 3}));
    QCOMPARE(index.nearest(0.0, 0.0, 1.0), std::int64_t(-1));
    QCOMPARE(index.nearest(nan, 0.0, 1.0), std::int64_t(-1));
    QCOMPARE(index.nearest(3.0, 3.0, -1.0), std::int64_t(-1));

    // A line of points (zero height).
    std::vector<float> line;
    for (int i = 0; i < 100; ++i) {
        line.push_back(float(i));
        line.push_back(0.0f);
    }
    PointIndex l;
    l.build(line.data(), 100);
    QCOMPARE(l.nearest(41.2, 0.3, 1.0), std::int64_t(41));
    QCOMPARE(l.inRect(10.5, -1, 12.5, 1), std::vector<std::int64_t>({11, 12}));
}

QTEST_APPLESS_MAIN(TestPointIndex)
#include "tst_PointIndex.moc"
