// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Chamfer distance against hand-solved cases, a double-loop reference on raw coordinates
// and PyTorch3D's published definition (sqeuclidean, unweighted), computed here.
#include "core/ot/Chamfer.h"
#include "core/ot/CostMatrix.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace setscope::ot;

namespace {

struct Set {
    int d = 0;
    std::vector<float> x;
    std::vector<float> w;
    PointSet view() const { return {x.data(), w.data(), static_cast<std::int64_t>(w.size()), d}; }
};

Set makeSet(int d, std::vector<float> x, std::vector<float> w)
{
    return {d, std::move(x), std::move(w)};
}

Set randomSet(std::mt19937_64& rng, int n, int d, bool zeroWeights)
{
    std::normal_distribution<float> g(0.f, 1.f);
    std::uniform_real_distribution<float> u(0.1f, 3.f);
    Set s{d, {}, {}};
    for (int i = 0; i < n * d; ++i)
        s.x.push_back(g(rng));
    for (int i = 0; i < n; ++i)
        s.w.push_back(zeroWeights && i % 3 == 1 ? 0.f : u(rng));
    return s;
}

/// Ground distance straight from the coordinates (no norm expansion, no GEMM).
double ground(const float* a, const float* b, int d, GroundDistance g)
{
    double s = 0, na = 0, nb = 0, dot = 0;
    for (int k = 0; k < d; ++k) {
        s += (double(a[k]) - b[k]) * (double(a[k]) - b[k]);
        na += double(a[k]) * a[k];
        nb += double(b[k]) * b[k];
        dot += double(a[k]) * b[k];
    }
    switch (g) {
    case GroundDistance::Euclidean: return std::sqrt(s);
    case GroundDistance::SquaredEuclidean: return s;
    case GroundDistance::Cosine: return na > 0 && nb > 0 ? 1.0 - dot / std::sqrt(na * nb) : 1.0;
    }
    return NAN;
}

/// The definition as a double loop: for each element of one set with non-zero mass, its
/// nearest present element of the other set.
double referenceChamfer(const Set& a, const Set& b, GroundDistance g, bool weighted)
{
    auto directed = [&](const Set& p, const Set& q) {
        double sum = 0, mass = 0;
        for (std::size_t i = 0; i < p.w.size(); ++i) {
            const double wi = weighted ? p.w[i] : 1.0;
            mass += wi;
            if (wi == 0)
                continue;
            double best = std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < q.w.size(); ++j)
                if (!weighted || q.w[j] > 0)
                    best = std::min(best, ground(&p.x[i * p.d], &q.x[j * q.d], p.d, g));
            sum += wi * best;
        }
        return sum / mass;
    };
    return directed(a, b) + directed(b, a);
}

/// PyTorch3D's chamfer_distance(x, y) with its defaults (norm=2, point_reduction="mean",
/// batch of one, no normals): cham_x = mean over x of the squared distance to the nearest
/// y (knn_points, K=1), cham_y likewise, result cham_x + cham_y.
double pytorch3dChamfer(const Set& x, const Set& y)
{
    auto chamMean = [](const Set& p, const Set& q) {
        const std::size_t np = p.w.size(), nq = q.w.size();
        double total = 0;
        for (std::size_t i = 0; i < np; ++i) {
            double nearest = std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < nq; ++j) {
                double d2 = 0;
                for (int k = 0; k < p.d; ++k) {
                    const double diff = double(p.x[i * p.d + k]) - double(q.x[j * q.d + k]);
                    d2 += diff * diff;
                }
                nearest = std::min(nearest, d2);
            }
            total += nearest;
        }
        return total / double(np);
    };
    return chamMean(x, y) + chamMean(y, x);
}

bool close(double got, double want, double rel = 1e-12)
{
    return std::abs(got - want) <= rel * std::max(1.0, std::abs(want));
}

} // namespace

class TestChamfer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void handSolvedUnweighted()
    {
        // A = {(0,0), (2,0)}, B = {(0,1)}: A -> B nearest distances 1 and √5; B -> A: 1.
        const Set a = makeSet(2, {0, 0, 2, 0}, {1, 1});
        const Set b = makeSet(2, {0, 1}, {1});
        const double euclid = chamfer(a.view(), b.view(), {GroundDistance::Euclidean, false});
        QVERIFY(close(euclid, (1.0 + std::sqrt(5.0)) / 2.0 + 1.0));
        const double sq = chamfer(a.view(), b.view(), {GroundDistance::SquaredEuclidean, false});
        QVERIFY(close(sq, (1.0 + 5.0) / 2.0 + 1.0));
        // Swapping the sets swaps the two directed terms and leaves their sum.
        QVERIFY(close(chamfer(b.view(), a.view(), {GroundDistance::Euclidean, false}), euclid));
        // Identical sets: 0.
        QCOMPARE(chamfer(a.view(), a.view(), {GroundDistance::Euclidean, false}), 0.0);
    }

    void handSolvedWeighted()
    {
        // Weights 3 and 1 on A: forward (3·1 + 1·√5) / 4; backward 1.
        const Set a = makeSet(2, {0, 0, 2, 0}, {3, 1});
        const Set b = makeSet(2, {0, 1}, {2});
        QVERIFY(close(chamfer(a.view(), b.view(), {GroundDistance::Euclidean, true}),
                      (3.0 + std::sqrt(5.0)) / 4.0 + 1.0));
        QVERIFY(close(chamfer(a.view(), b.view(), {GroundDistance::SquaredEuclidean, true}), (3.0 + 5.0) / 4.0 + 1.0));
        // Unweighted ignores the weights.
        QVERIFY(close(chamfer(a.view(), b.view(), {GroundDistance::Euclidean, false}),
                      (1.0 + std::sqrt(5.0)) / 2.0 + 1.0));

        // A zero-weight element is absent when weighted: A = {(0,0) w1, (10,0) w0},
        // B = {(10,0)}: forward 10 (its twin in A is absent), backward 10.
        const Set a0 = makeSet(2, {0, 0, 10, 0}, {1, 0});
        const Set b0 = makeSet(2, {10, 0}, {1});
        QVERIFY(close(chamfer(a0.view(), b0.view(), {GroundDistance::Euclidean, true}), 20.0));
        // ... and present when unweighted: forward (10 + 0) / 2, backward 0.
        QVERIFY(close(chamfer(a0.view(), b0.view(), {GroundDistance::Euclidean, false}), 5.0));

        // 1-D, both directions non-trivial: A = {0 (w1), 4 (w3)}, B = {1 (w1), 5 (w1), 9 (w2)}.
        // A -> B: 0 -> 1 (1), 4 -> 5 (1): (1·1 + 3·1) / 4 = 1.
        // B -> A: 1 -> 0 (1), 5 -> 4 (1), 9 -> 4 (5): (1 + 1 + 2·5) / 4 = 3.
        const Set a1 = makeSet(1, {0, 4}, {1, 3});
        const Set b1 = makeSet(1, {1, 5, 9}, {1, 1, 2});
        QVERIFY(close(chamfer(a1.view(), b1.view()), 4.0));
        // Unweighted: (1 + 1) / 2 + (1 + 1 + 5) / 3.
        QVERIFY(close(chamfer(a1.view(), b1.view(), {GroundDistance::Euclidean, false}), 1.0 + 7.0 / 3.0));
    }

    void matchesDoubleLoopReference()
    {
        std::mt19937_64 rng(11);
        const GroundDistance grounds[] = {GroundDistance::Euclidean, GroundDistance::SquaredEuclidean,
                                          GroundDistance::Cosine};
        int checked = 0;
        for (int trial = 0; trial < 120; ++trial) {
            const int d = 1 + trial % 7;
            const Set a = randomSet(rng, 1 + int(rng() % 15), d, trial % 4 == 0);
            Set b = randomSet(rng, 1 + int(rng() % 15), d, trial % 5 == 0);
            if (trial % 6 == 0) // duplicates across the sets: exact zeros
                std::copy(a.x.begin(), a.x.begin() + d, b.x.begin());
            for (const GroundDistance g : grounds)
                for (const bool weighted : {true, false}) {
                    const double got = chamfer(a.view(), b.view(), {g, weighted});
                    const double want = referenceChamfer(a, b, g, weighted);
                    if (!close(got, want, 1e-9))
                        QFAIL(qPrintable(QStringLiteral("trial %1 ground %2 weighted %3: %4 vs %5")
                                             .arg(trial)
                                             .arg(groundDistanceName(g))
                                             .arg(weighted)
                                             .arg(got, 0, 'g', 17)
                                             .arg(want, 0, 'g', 17)));
                    ++checked;
                }
        }
        QCOMPARE(checked, 120 * 6);
    }

    void equalsPyTorch3dDefinition()
    {
        std::mt19937_64 rng(5);
        for (int trial = 0; trial < 60; ++trial) {
            const int d = trial % 2 ? 3 : 1 + trial % 9;
            const Set x = randomSet(rng, 1 + int(rng() % 40), d, false);
            const Set y = randomSet(rng, 1 + int(rng() % 40), d, false); // random weights: ignored
            const double got = chamfer(x.view(), y.view(), {GroundDistance::SquaredEuclidean, false});
            QVERIFY2(close(got, pytorch3dChamfer(x, y), 1e-9), qPrintable(QString::number(trial)));
        }
    }

    void symmetric()
    {
        std::mt19937_64 rng(3);
        for (int trial = 0; trial < 50; ++trial) {
            const int d = 1 + trial % 5;
            const Set a = randomSet(rng, 1 + int(rng() % 12), d, trial % 3 == 0);
            const Set b = randomSet(rng, 1 + int(rng() % 12), d, trial % 2 == 0);
            for (const bool weighted : {true, false}) {
                const ChamferOptions o{GroundDistance::Euclidean, weighted};
                QVERIFY(close(chamfer(a.view(), b.view(), o), chamfer(b.view(), a.view(), o)));
            }
        }
    }

    void fromCostMatchesPointSets()
    {
        std::mt19937_64 rng(9);
        const Set a = randomSet(rng, 7, 4, true);
        const Set b = randomSet(rng, 5, 4, false);
        std::vector<double> cost;
        costMatrix(a.view(), b.view(), GroundDistance::Euclidean, cost);
        QCOMPARE(chamferFromCost(cost.data(), a.w.data(), 7, b.w.data(), 5, true), chamfer(a.view(), b.view()));
        // Unweighted needs no weights at all.
        QCOMPARE(chamferFromCost(cost.data(), nullptr, 7, nullptr, 5, false),
                 chamfer(a.view(), b.view(), {GroundDistance::Euclidean, false}));
    }

    void badInput()
    {
        const Set ok = makeSet(2, {0, 0, 1, 1}, {1, 1});
        const Set empty = makeSet(2, {}, {});
        const Set nan = makeSet(2, {0, NAN}, {1});
        const Set negative = makeSet(2, {0, 0}, {-1});
        const Set zero = makeSet(2, {0, 0, 1, 1}, {0, 0});
        const Set threeD = makeSet(3, {0, 0, 0}, {1});
        QVERIFY_THROWS_EXCEPTION(OtError, chamfer(ok.view(), empty.view()));
        QVERIFY_THROWS_EXCEPTION(OtError, chamfer(nan.view(), ok.view()));
        QVERIFY_THROWS_EXCEPTION(OtError, chamfer(ok.view(), negative.view()));
        QVERIFY_THROWS_EXCEPTION(OtError, chamfer(zero.view(), ok.view()));
        QVERIFY_THROWS_EXCEPTION(OtError, chamfer(ok.view(), threeD.view()));
        try {
            chamfer(ok.view(), nan.view());
            QFAIL("no exception");
        } catch (const OtError& e) {
            QVERIFY2(QString(e.what()).contains("set B"), e.what());
            QVERIFY2(QString(e.what()).contains("NaN"), e.what());
        }

        const double cost[] = {1.0, NAN};
        const float w[] = {1.f, 1.f};
        QVERIFY_THROWS_EXCEPTION(OtError, chamferFromCost(cost, w, 1, w, 2, true));
        const double negCost[] = {-1.0};
        QVERIFY_THROWS_EXCEPTION(OtError, chamferFromCost(negCost, w, 1, w, 1, false));
        const float zw[] = {0.f};
        const double one[] = {1.0};
        QVERIFY_THROWS_EXCEPTION(OtError, chamferFromCost(one, zw, 1, w, 1, true));
        QCOMPARE(chamferFromCost(one, zw, 1, w, 1, false), 2.0); // unweighted: weights ignored
        QVERIFY_THROWS_EXCEPTION(OtError, chamferFromCost(one, w, 0, w, 1, false));
    }
};

QTEST_GUILESS_MAIN(TestChamfer)
#include "tst_Chamfer.moc"
