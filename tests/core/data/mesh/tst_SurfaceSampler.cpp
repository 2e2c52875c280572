// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/mesh/SurfaceSampler.h"

#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

using namespace setscope::data::mesh;

namespace {

using Vec = std::array<double, 3>;

Vec sub(Vec a, Vec b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(Vec a, Vec b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec add(Vec a, Vec b, double s) { return {a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]}; }

/// Closest point on triangle abc to p (Ericson, Real-Time Collision Detection, 5.1.5).
Vec closestOnTriangle(Vec p, Vec a, Vec b, Vec c)
{
    const Vec ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
    const double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return a;
    const Vec bp = sub(p, b);
    const double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return b;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0)
        return add(a, ab, d1 / (d1 - d3));
    const Vec cp = sub(p, c);
    const double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return c;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0)
        return add(a, ac, d2 / (d2 - d6));
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
        return add(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    const double denom = 1.0 / (va + vb + vc);
    return add(add(a, ab, vb * denom), ac, vc * denom);
}

double distanceToMesh(const TriangleMesh& m, Vec p)
{
    double best = 1e300;
    auto vert = [&](std::uint32_t i) { return Vec{m.vertices[3 * i], m.vertices[3 * i + 1], m.vertices[3 * i + 2]}; };
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        const Vec q = closestOnTriangle(p, vert(m.triangles[3 * t]), vert(m.triangles[3 * t + 1]), vert(m.triangles[3 * t + 2]));
        const Vec d = sub(p, q);
        best = std::min(best, std::sqrt(dot(d, d)));
    }
    return best;
}

TriangleMesh makeMesh(std::vector<float> v, std::vector<std::uint32_t> t)
{
    TriangleMesh m;
    m.vertices = std::move(v);
    m.triangles = std::move(t);
    return m;
}

/// A unit cube as 12 triangles, shifted away from the origin (so centring matters).
TriangleMesh cube()
{
    std::vector<float> v;
    for (int i = 0; i < 8; ++i)
        v.insert(v.end(), {float(i & 1) + 3.0f, float((i >> 1) & 1) - 2.0f, float((i >> 2) & 1) * 2.0f});
    return makeMesh(v, {0, 1, 3, 0, 3, 2, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 3, 7, 1, 7, 5});
}

} // namespace

class TestSurfaceSampler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pointsLieOnTheSurface();
    void normalisationIsCentroidAndFarthestPoint();
    void areaWeighting();
    void uniformInsideATriangle();
    void jitterStatistics();
    void jitterInThePipeline();
    void deterministicPerSeedAndPath();
    void pointSetSubsetAndReplacement();
};

void TestSurfaceSampler::pointsLieOnTheSurface()
{
    const TriangleMesh m = cube();
    std::mt19937_64 rng(11);
    const std::vector<float> p = sampleSurface(m, 2000, rng);
    QCOMPARE(p.size(), std::size_t(6000));
    double worst = 0;
    for (std::size_t i = 0; i < 2000; ++i)
        worst = std::max(worst, distanceToMesh(m, {p[3 * i], p[3 * i + 1], p[3 * i + 2]}));
    QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));
    // Every face of the cube receives points (each holds 1/6 of the area: ~333 expected).
    int faces[6] = {};
    for (std::size_t i = 0; i < 2000; ++i) {
        const double x = p[3 * i] - 3, y = p[3 * i + 1] + 2, z = p[3 * i + 2];
        if (z < 1e-6) ++faces[0];
        else if (z > 2 - 1e-6) ++faces[1];
        else if (y < 1e-6) ++faces[2];
        else if (y > 1 - 1e-6) ++faces[3];
        else if (x < 1e-6) ++faces[4];
        else if (x > 1 - 1e-6) ++faces[5];
    }
    // Areas: z faces 1, y faces 2, x faces 2 (the cube is 1 x 1 x 2): total 10.
    const double expected[6] = {200, 200, 400, 400, 400, 400};
    double chi2 = 0;
    for (int f = 0; f < 6; ++f)
        chi2 += (faces[f] - expected[f]) * (faces[f] - expected[f]) / expected[f];
    QVERIFY2(chi2 < 20.5, qPrintable(QString("chi2 %1 (5 dof, p = 0.001 at 20.5)").arg(chi2)));
}

void TestSurfaceSampler::normalisationIsCentroidAndFarthestPoint()
{
    const TriangleMesh m = cube();
    std::mt19937_64 a(5), b(5);
    const std::vector<float> raw = sampleSurface(m, 1024, a);
    const std::vector<float> norm = meshToPointCloud(m, SamplingOptions{}, b, "cube");
    QCOMPARE(norm.size(), raw.size());
    double c[3] = {0, 0, 0};
    for (std::size_t i = 0; i < 1024; ++i)
        for (int d = 0; d < 3; ++d)
            c[d] += raw[3 * i + d] / 1024.0;
    double r = 0;
    for (std::size_t i = 0; i < 1024; ++i) {
        double s = 0;
        for (int d = 0; d < 3; ++d)
            s += (raw[3 * i + d] - c[d]) * (raw[3 * i + d] - c[d]);
        r = std::max(r, std::sqrt(s));
    }
    double maxNorm = 0, mean[3] = {0, 0, 0};
    for (std::size_t i = 0; i < 1024; ++i) {
        double s = 0;
        for (int d = 0; d < 3; ++d) {
            QVERIFY(std::abs(norm[3 * i + d] - (raw[3 * i + d] - c[d]) / r) < 1e-6);
            s += double(norm[3 * i + d]) * norm[3 * i + d];
            mean[d] += norm[3 * i + d] / 1024.0;
        }
        maxNorm = std::max(maxNorm, std::sqrt(s));
    }
    QVERIFY2(std::abs(maxNorm - 1.0) < 1e-6, qPrintable(QString::number(maxNorm, 'g', 10)));
    for (double x : mean)
        QVERIFY(std::abs(x) < 1e-6);
}

void TestSurfaceSampler::areaWeighting()
{
    // Area 1 at z = 0, area 3 at z = 5, and a zero-area (collinear) triangle at z = 10.
    const TriangleMesh m = makeMesh({0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 5, 3, 0, 5, 0, 2, 5, 0, 0, 10, 1, 1, 10, 2, 2, 10},
                                    {0, 1, 2, 6, 7, 8, 3, 4, 5});
    std::mt19937_64 rng(2026);
    const int n = 4000;
    const std::vector<float> p = sampleSurface(m, n, rng);
    int low = 0, high = 0, degenerate = 0;
    for (int i = 0; i < n; ++i) {
        const float z = p[3 * i + 2];
        if (z == 0)
            ++low;
        else if (std::abs(z - 5) < 1e-5f)
            ++high;
        else
            ++degenerate;
    }
    QCOMPARE(degenerate, 0);
    const double e1 = n * 0.25, e3 = n * 0.75;
    const double chi2 = (low - e1) * (low - e1) / e1 + (high - e3) * (high - e3) / e3;
    QVERIFY2(chi2 < 10.83, qPrintable(QString("%1 : %2, chi2 %3 (1 dof, p = 0.001 at 10.83)").arg(low).arg(high).arg(chi2)));
}

void TestSurfaceSampler::uniformInsideATriangle()
{
    // The midpoint subdivision splits the triangle into 4 triangles of equal area.
    const TriangleMesh m = makeMesh({0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 1, 2});
    std::mt19937_64 rng(7);
    const int n = 8000;
    const std::vector<float> p = sampleSurface(m, n, rng);
    int cell[4] = {};
    for (int i = 0; i < n; ++i) {
        const float x = p[3 * i], y = p[3 * i + 1];
        QVERIFY(x >= 0 && y >= 0 && x + y <= 1 + 1e-6);
        if (x + y < 0.5f) ++cell[0];
        else if (x > 0.5f) ++cell[1];
        else if (y > 0.5f) ++cell[2];
        else ++cell[3];
    }
    double chi2 = 0;
    for (int c : cell)
        chi2 += (c - n / 4.0) * (c - n / 4.0) / (n / 4.0);
    QVERIFY2(chi2 < 16.27, qPrintable(QString("chi2 %1 (3 dof, p = 0.001 at 16.27)").arg(chi2)));
}

void TestSurfaceSampler::jitterStatistics()
{
    std::mt19937_64 rng(99);
    std::vector<float> p(3 * 30000, 0.0f);
    jitter(p, 0.01f, 0.05f, rng);
    double sum = 0, sum2 = 0, maxAbs = 0;
    for (float x : p) {
        sum += x;
        sum2 += double(x) * x;
        maxAbs = std::max(maxAbs, std::abs(double(x)));
    }
    const double n = double(p.size());
    const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
    QVERIFY2(std::abs(mean) < 2e-4, qPrintable(QString::number(mean)));
    QVERIFY2(std::abs(sd - 0.01) < 3e-4, qPrintable(QString::number(sd)));
    QVERIFY(maxAbs <= 0.05 + 1e-9);

    // A tight clip: |delta| never exceeds it, and P(|Z| > 1.5) = 0.1336 of values sit on it.
    std::vector<float> q(3 * 30000, 0.0f);
    jitter(q, 0.01f, 0.015f, rng);
    int clipped = 0;
    for (float x : q) {
        QVERIFY(std::abs(x) <= 0.015f);
        clipped += std::abs(x) == 0.015f ? 1 : 0;
    }
    const double frac = clipped / double(q.size());
    QVERIFY2(std::abs(frac - 0.1336) < 0.01, qPrintable(QString::number(frac)));
}

void TestSurfaceSampler::jitterInThePipeline()
{
    // Jitter is applied after normalisation, on the same random stream: the jittered cloud
    // is the plain one plus bounded noise.
    const TriangleMesh m = cube();
    SamplingOptions plain, jittered;
    jittered.jitter = true;
    std::mt19937_64 a(4), b(4);
    const auto p = meshToPointCloud(m, plain, a, "c");
    const auto q = meshToPointCloud(m, jittered, b, "c");
    double sum2 = 0, maxAbs = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double d = double(q[i]) - p[i];
        sum2 += d * d;
        maxAbs = std::max(maxAbs, std::abs(d));
    }
    const double sd = std::sqrt(sum2 / double(p.size()));
    QVERIFY(maxAbs <= 0.05 + 1e-6);
    QVERIFY2(sd > 0.009 && sd < 0.011, qPrintable(QString::number(sd)));
}

void TestSurfaceSampler::deterministicPerSeedAndPath()
{
    const TriangleMesh m = cube();
    std::mt19937_64 a(fileSeed(1, "chair/train/chair_0001.off")), b(fileSeed(1, "chair/train/chair_0001.off"));
    QCOMPARE(meshToPointCloud(m, SamplingOptions{}, a, "x"), meshToPointCloud(m, SamplingOptions{}, b, "x"));
    QVERIFY(fileSeed(1, "chair/train/chair_0001.off") != fileSeed(1, "chair/train/chair_0002.off"));
    QVERIFY(fileSeed(1, "chair/train/chair_0001.off") != fileSeed(2, "chair/train/chair_0001.off"));
    std::mt19937_64 c(fileSeed(2, "chair/train/chair_0001.off"));
    std::mt19937_64 d(fileSeed(1, "chair/train/chair_0001.off"));
    QVERIFY(meshToPointCloud(m, SamplingOptions{}, c, "x") != meshToPointCloud(m, SamplingOptions{}, d, "x"));
}

void TestSurfaceSampler::pointSetSubsetAndReplacement()
{
    TriangleMesh big;
    big.pointSet = true;
    for (int i = 0; i < 2000; ++i)
        big.vertices.insert(big.vertices.end(), {float(i), float(i % 7), float(i % 13)});
    std::mt19937_64 rng(8);
    bool repl = true;
    const auto p = samplePointSet(big, 1024, rng, repl);
    QVERIFY(!repl);
    std::set<int> seen;
    for (std::size_t i = 0; i < 1024; ++i) {
        const int id = int(p[3 * i]);
        QCOMPARE(p[3 * i + 1], float(id % 7)); // a real input point
        QCOMPARE(p[3 * i + 2], float(id % 13));
        seen.insert(id);
    }
    QCOMPARE(seen.size(), std::size_t(1024)); // without replacement

    TriangleMesh few;
    few.pointSet = true;
    for (int i = 0; i < 10; ++i)
        few.vertices.insert(few.vertices.end(), {float(i), 0, 0});
    const auto q = samplePointSet(few, 1024, rng, repl);
    QVERIFY(repl);
    std::set<int> all;
    for (std::size_t i = 0; i < 1024; ++i)
        all.insert(int(q[3 * i]));
    QCOMPARE(all.size(), std::size_t(10)); // every point at least once
}

QTEST_GUILESS_MAIN(TestSurfaceSampler)
#include "tst_SurfaceSampler.moc"
