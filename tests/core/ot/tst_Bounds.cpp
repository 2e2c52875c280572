// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Lower bounds on the EMD (WCD, RWMD and their partial-transport forms) against exact EMD
// (ot::emd) on random pairs, hand-solved values, and the counterexamples that show where
// Kusner's equal-mass bounds stop being bounds (docs/OT_BOUNDS.md).
#include "core/ot/Bounds.h"
#include "core/ot/Chamfer.h"
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

using namespace setscope::ot;

namespace {

struct Set {
    int d = 0;
    std::vector<float> x;
    std::vector<float> w;
    PointSet view() const { return {x.data(), w.data(), static_cast<std::int64_t>(w.size()), d}; }
    double mass() const
    {
        double s = 0;
        for (const float v : w)
            s += v;
        return s;
    }
};

Set makeSet(int d, std::vector<float> x, std::vector<float> w)
{
    return {d, std::move(x), std::move(w)};
}

std::vector<double> cost(const Set& a, const Set& b, GroundDistance g)
{
    std::vector<double> c;
    costMatrix(a.view(), b.view(), g, c);
    return c;
}

double rwmd(const Set& a, const Set& b, GroundDistance g = GroundDistance::Euclidean)
{
    const auto c = cost(a, b, g);
    return relaxedEmd(c.data(), a.w.data(), std::int64_t(a.w.size()), b.w.data(), std::int64_t(b.w.size()));
}

double directed(const Set& a, const Set& b, GroundDistance g = GroundDistance::Euclidean)
{
    const auto c = cost(a, b, g);
    return relaxedEmdDirected(c.data(), a.w.data(), std::int64_t(a.w.size()), b.w.data(),
                              std::int64_t(b.w.size()));
}

/// A set without its zero-weight elements: the same measure (seed 001 Eq. 1 gives them no
/// flow), so the same EMD.
Set present(const Set& s)
{
    Set out{s.d, {}, {}};
    for (std::size_t i = 0; i < s.w.size(); ++i)
        if (s.w[i] > 0) {
            out.x.insert(out.x.end(), s.x.begin() + std::ptrdiff_t(i) * s.d, s.x.begin() + std::ptrdiff_t(i + 1) * s.d);
            out.w.push_back(s.w[i]);
        }
    return out;
}

/// Exact EMD by ot::emd, given the sets without their zero-weight elements (the same
/// measures; ot::emd's own handling of zero weights is tst_Emd's business).
double exactEmd(const Set& a, const Set& b, GroundDistance g = GroundDistance::Euclidean)
{
    return emd(present(a).view(), present(b).view(), {g, false}).emd;
}

double wcd(const Set& a, const Set& b)
{
    return centroidDistance(centroid(a.view()), centroid(b.view()));
}

double bound(const Set& a, const Set& b, GroundDistance g = GroundDistance::Euclidean)
{
    return centroidBound(summarize(a.view()), summarize(b.view()), g);
}

bool near(double got, double want)
{
    return std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want));
}

enum class Masses { EqualCounts, EqualIntegers, Unequal, Superset };

/// A random pair of one of four kinds. Equal masses are exact in float: integer weights.
/// Points are Gaussian around shifted centres, sometimes snapped to a grid (duplicates
/// inside a set), sometimes shared between the sets (zero-cost entries), sometimes the same
/// set permuted (EMD 0).
std::pair<Set, Set> randomPair(std::mt19937_64& rng, int trial, Masses kind)
{
    const int dims[] = {1, 2, 3, 8};
    const int d = dims[trial % 4];
    std::normal_distribution<float> g(0.f, 1.f);
    std::uniform_real_distribution<float> u(0.05f, 3.f);
    const int na = 1 + int(rng() % 9);
    int nb = kind == Masses::EqualCounts ? na : 1 + int(rng() % 9);
    const bool grid = trial % 5 == 0;
    const float shift = float(trial % 3) * 1.5f;
    auto point = [&](float offset) {
        const float v = g(rng) + offset;
        return grid ? std::round(v * 2.f) / 2.f : v;
    };
    Set a{d, {}, {}}, b{d, {}, {}};
    for (int i = 0; i < na * d; ++i)
        a.x.push_back(point(0.f));
    for (int i = 0; i < nb * d; ++i)
        b.x.push_back(point(shift));
    if (trial % 7 == 0) // shared elements
        for (int i = 0; i < std::min(na, nb) / 2 + 1 && i < std::min(na, nb); ++i)
            std::copy_n(a.x.begin() + i * d, d, b.x.begin() + (nb - 1 - i) * d);

    switch (kind) {
    case Masses::EqualCounts:
        a.w.assign(std::size_t(na), 1.f);
        b.w.assign(std::size_t(nb), 1.f);
        if (trial % 11 == 0) { // b = a permuted: EMD 0
            std::vector<int> perm(static_cast<std::size_t>(na));
            std::iota(perm.begin(), perm.end(), 0);
            std::shuffle(perm.begin(), perm.end(), rng);
            for (int i = 0; i < na; ++i)
                std::copy_n(a.x.begin() + perm[std::size_t(i)] * d, d, b.x.begin() + i * d);
        }
        break;
    case Masses::EqualIntegers: {
        int total = 0;
        for (int i = 0; i < na; ++i) {
            const int w = 1 + int(rng() % 4);
            a.w.push_back(float(w));
            total += w;
        }
        // The same total spread over b's elements, one unit at a time (zeros happen).
        b.w.assign(std::size_t(nb), 0.f);
        for (int t = 0; t < total; ++t)
            b.w[std::size_t(rng() % std::uint64_t(nb))] += 1.f;
        break;
    }
    case Masses::Unequal:
        for (int i = 0; i < na; ++i)
            a.w.push_back(trial % 6 == 0 && i == 0 && na > 1 ? 0.f : u(rng));
        for (int j = 0; j < nb; ++j)
            b.w.push_back(u(rng));
        break;
    case Masses::Superset: // b = a plus extra elements: b strictly heavier
        b = a;
        b.w.clear();
        for (int i = 0; i < na; ++i)
            a.w.push_back(u(rng));
        b.w = a.w;
        for (int j = 0; j < nb; ++j) {
            for (int k = 0; k < d; ++k)
                b.x.push_back(point(shift));
            b.w.push_back(u(rng));
        }
        break;
    }
    return {a, b};
}

} // namespace

class TestBounds : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void handSolvedEqualMasses()
    {
        // A = {(0,0), (2,0)}, B = {(0,2), (2,2)}: a translation by 2, so every bound is tight.
        const Set a = makeSet(2, {0, 0, 2, 0}, {1, 1});
        const Set b = makeSet(2, {0, 2, 2, 2}, {1, 1});
        QVERIFY(near(exactEmd(a, b), 2.0));
        QVERIFY(near(wcd(a, b), 2.0));
        QVERIFY(near(bound(a, b), 2.0));
        QVERIFY(near(directed(a, b), 2.0));
        QVERIFY(near(directed(b, a), 2.0));
        QVERIFY(near(rwmd(a, b), 2.0));
        QVERIFY(near(bound(a, b, GroundDistance::SquaredEuclidean), 4.0));
        QVERIFY(near(exactEmd(a, b, GroundDistance::SquaredEuclidean), 4.0));

        // Centroid (1, 0) for A = {(0,0) w3, (4,0) w1}.
        const Set c = makeSet(2, {0, 0, 4, 0}, {3, 1});
        const auto cc = centroid(c.view());
        QCOMPARE(cc.size(), std::size_t(2));
        QVERIFY(near(cc[0], 1.0) && near(cc[1], 0.0));
        const CentroidSummary s = summarize(c.view());
        QVERIFY(near(s.mass, 4.0));
        QVERIFY(near(s.radius, 3.0));
        QVERIFY(near(s.scale, 4.0));
        QCOMPARE(bound(a, c, GroundDistance::Cosine), 0.0);
    }

    void wcdIsNotBelowRwmdInGeneral()
    {
        // Kusner et al. prove WCD ≤ EMD and RWMD ≤ EMD; neither bound dominates the other.
        // 1-D, equal masses 10: A = {-1 (5), 1 (5)}, B = {-1 (9), 1 (1)}. Every element has
        // an exact twin, so RWMD = 0; the centroids are 0 and -0.8; EMD moves 4 units by 2.
        const Set a = makeSet(1, {-1, 1}, {5, 5});
        const Set b = makeSet(1, {-1, 1}, {9, 1});
        QVERIFY(near(exactEmd(a, b), 0.8));
        QVERIFY(near(wcd(a, b), 0.8));
        QCOMPARE(rwmd(a, b), 0.0);
        QVERIFY(wcd(a, b) > rwmd(a, b));
        // And the other way round: A = {-1, 1}, B = {0} (mass 2): WCD 0, RWMD = EMD = 1.
        const Set c = makeSet(1, {-1, 1}, {1, 1});
        const Set e = makeSet(1, {0}, {2});
        QVERIFY(near(exactEmd(c, e), 1.0));
        QCOMPARE(wcd(c, e), 0.0);
        QVERIFY(near(rwmd(c, e), 1.0));
    }

    void unequalMassCounterexamples()
    {
        // A = {0} mass 1, B = {0 (1), 10 (1)}: partial EMD moves A's unit onto B's 0: EMD 0.
        const Set a = makeSet(1, {0}, {1});
        const Set b = makeSet(1, {0, 10}, {1, 1});
        QCOMPARE(exactEmd(a, b), 0.0);
        // Plain WCD and the heavier side's one-sided relaxation are NOT bounds here.
        QVERIFY(near(wcd(a, b), 5.0));
        QVERIFY(near(directed(b, a), 5.0));
        // The partial-transport forms are: centroid bound 5 - 2 (1 - 1/2) 5 = 0; the lighter
        // side's ℓ is 0; the heavier side's cheapest unit costs 0.
        QCOMPARE(bound(a, b), 0.0);
        QCOMPARE(bound(b, a), 0.0);
        QCOMPARE(directed(a, b), 0.0);
        QCOMPARE(rwmd(a, b), 0.0);
        QCOMPARE(rwmd(b, a), 0.0);
    }

    void handSolvedUnequalMasses()
    {
        // A = {0} mass 1, B = {1 (1), 3 (1)}: A's unit goes to 1, EMD 1. Lighter side ℓ_A = 1;
        // heavier side: the cheapest unit of B costs 1; centroid bound: |0 - 2| - 2·(1/2)·1 = 1.
        const Set a = makeSet(1, {0}, {1});
        const Set b = makeSet(1, {1, 3}, {1, 1});
        QVERIFY(near(exactEmd(a, b), 1.0));
        QVERIFY(near(rwmd(a, b), 1.0));
        QVERIFY(near(rwmd(b, a), 1.0));
        QVERIFY(near(bound(a, b), 1.0));
        QVERIFY(near(bound(b, a), 1.0));

        // A = {0} mass 2, B = {1 (1), 3 (2)}: 2 units move, 1 to 1 and 1 to 3: EMD 2.
        // ℓ_A = 1; heavier side's cheapest 2 units: (1·1 + 1·3) / 2 = 2, so RWMD = 2.
        // Centroid bound: c_B = 7/3, ρ_B = 4/3, 7/3 - 2·(1/3)·(4/3) = 13/9.
        const Set c = makeSet(1, {0}, {2});
        const Set e = makeSet(1, {1, 3}, {1, 2});
        QVERIFY(near(exactEmd(c, e), 2.0));
        QVERIFY(near(directed(c, e), 1.0));
        QVERIFY(near(rwmd(c, e), 2.0));
        QVERIFY(near(rwmd(e, c), 2.0));
        QVERIFY(near(bound(c, e), 13.0 / 9.0));
        QVERIFY(near(bound(c, e, GroundDistance::SquaredEuclidean), 169.0 / 81.0));
        QVERIFY(near(exactEmd(c, e, GroundDistance::SquaredEuclidean), 5.0));

        // Zero-weight elements take no part: B's element at 0 has weight 0, so A's unit at 0
        // must travel to 4: EMD 4, and the bounds must not use the free twin.
        const Set f = makeSet(1, {0}, {1});
        const Set h = makeSet(1, {0, 4}, {0, 1});
        QVERIFY(near(exactEmd(f, h), 4.0));
        QVERIFY(near(rwmd(f, h), 4.0));
        QVERIFY(near(directed(f, h), 4.0));
        QVERIFY(near(bound(f, h), 4.0));
    }

    void randomPairsAreLowerBounds_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("equal masses, equal counts") << int(Masses::EqualCounts);
        QTest::newRow("equal masses, integer weights") << int(Masses::EqualIntegers);
        QTest::newRow("unequal masses") << int(Masses::Unequal);
        QTest::newRow("unequal masses, superset") << int(Masses::Superset);
    }

    void randomPairsAreLowerBounds()
    {
        QFETCH(int, kind);
        const auto masses = Masses(kind);
        std::mt19937_64 rng(1000 + std::uint64_t(kind));
        const GroundDistance grounds[] = {GroundDistance::Euclidean, GroundDistance::SquaredEuclidean,
                                          GroundDistance::Cosine};
        int pairs = 0, wcdAboveRwmd = 0, rwmdAboveWcd = 0, plainWcdViolations = 0, heavySideViolations = 0;
        for (int trial = 0; trial < 400; ++trial) {
            const auto [a, b] = randomPair(rng, trial, masses);
            const double ma = a.mass(), mb = b.mass();
            const bool equal = ma == mb;
            QCOMPARE(equal, masses == Masses::EqualCounts || masses == Masses::EqualIntegers);
            const CentroidSummary sa = summarize(a.view()), sb = summarize(b.view());
            const double scale = std::max(sa.scale, sb.scale);
            for (const GroundDistance g : grounds) {
                const double e = exactEmd(a, b, g);
                // 1e-12 relative to the EMD and to the size of the numbers it is made of
                // (the data's scale; its square for squared distances).
                const double unit = g == GroundDistance::Euclidean ? scale
                    : g == GroundDistance::SquaredEuclidean        ? scale * scale
                                                                   : 1.0;
                const double tol = 1e-12 * (e + unit);
                auto check = [&](const char* what, double value) {
                    if (value > e + tol)
                        QFAIL(qPrintable(QStringLiteral("trial %1, %2 ground: %3 = %4 > EMD = %5")
                                             .arg(trial)
                                             .arg(groundDistanceName(g))
                                             .arg(what)
                                             .arg(value, 0, 'g', 17)
                                             .arg(e, 0, 'g', 17)));
                };
                const double cb = centroidBound(sa, sb, g);
                check("centroid bound", cb);
                QCOMPARE(centroidBound(sb, sa, g), cb);
                const double r = rwmd(a, b, g);
                check("RWMD", r);
                QVERIFY(near(rwmd(b, a, g), r));
                const double light = ma <= mb ? directed(a, b, g) : directed(b, a, g);
                check("lighter side's relaxation", light);
                QVERIFY(r >= light);
                const double heavy = ma <= mb ? directed(b, a, g) : directed(a, b, g);
                if (equal) {
                    check("heavier side's relaxation (equal masses)", heavy);
                    QVERIFY(near(r, std::max(light, heavy))); // Kusner's RWMD
                    // Weighted Chamfer is ℓ_A + ℓ_B, so half of it is at most the RWMD.
                    const double cd = chamfer(a.view(), b.view(), {g, true});
                    QVERIFY(near(cd, light + heavy));
                    check("Chamfer / 2", cd / 2);
                } else if (heavy > e + tol) {
                    ++heavySideViolations;
                }
                if (g == GroundDistance::Euclidean) {
                    const double plain = centroidDistance(sa.centroid, sb.centroid);
                    if (equal) {
                        check("WCD", plain);
                        QCOMPARE(cb, plain);
                        wcdAboveRwmd += plain > r + tol;
                        rwmdAboveWcd += r > plain + tol;
                    } else if (plain > e + tol) {
                        ++plainWcdViolations;
                    }
                }
                if (g == GroundDistance::Cosine)
                    QCOMPARE(cb, 0.0);
            }
            ++pairs;
        }
        QCOMPARE(pairs, 400);
        if (masses == Masses::EqualCounts || masses == Masses::EqualIntegers)
            qInfo("%d pairs x 3 grounds: WCD > RWMD in %d, RWMD > WCD in %d (Euclidean)", pairs, wcdAboveRwmd,
                  rwmdAboveWcd);
        else
            qInfo("%d pairs x 3 grounds: Kusner's equal-mass forms would have exceeded the EMD: plain WCD in %d, "
                  "the heavier side's relaxation in %d",
                  pairs, plainWcdViolations, heavySideViolations);
        if (masses == Masses::Superset) {
            // Here the lighter set sits inside the heavier one: Kusner's forms overshoot.
            QVERIFY(plainWcdViolations > 0);
            QVERIFY(heavySideViolations > 0);
        }
    }

    void badInput()
    {
        const double c[] = {1.0, 2.0};
        const float w[] = {1.f, 1.f};
        const float zero[] = {0.f, 0.f};
        QVERIFY_THROWS_EXCEPTION(OtError, relaxedEmd(c, zero, 2, w, 1));
        QVERIFY_THROWS_EXCEPTION(OtError, relaxedEmd(c, w, 1, zero, 2));
        QVERIFY_THROWS_EXCEPTION(OtError, relaxedEmd(c, w, 0, w, 2));
        QVERIFY_THROWS_EXCEPTION(OtError, relaxedEmdDirected(c, w, 1, zero, 2));
        QVERIFY_THROWS_EXCEPTION(OtError, centroidDistance({0.0, 1.0}, {0.0}));
    }
};

QTEST_GUILESS_MAIN(TestBounds)
#include "tst_Bounds.moc"
