// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The prior metrics of the APLLR / APIT baselines (core/semi/PriorMetrics.h): KISSME's
// log-likelihood ratio and ITML against hand-computed cases and a brute-force 2 x 2 reference,
// ITML's constraints after convergence, the spectrum floor, bad input.
#include "core/losses/PriorMetrics.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

using namespace setscope;

namespace {

Eigen::MatrixXd rowsOf(std::initializer_list<std::initializer_list<double>> r)
{
    Eigen::MatrixXd m(static_cast<Eigen::Index>(r.size()), static_cast<Eigen::Index>(r.begin()->size()));
    Eigen::Index i = 0;
    for (const auto& row : r) {
        Eigen::Index j = 0;
        for (double v : row)
            m(i, j++) = v;
        ++i;
    }
    return m;
}

void expectThrows(const std::function<void()>& f, const std::string& needle)
{
    try {
        f();
    } catch (const std::exception& e) {
        QVERIFY2(std::string(e.what()).find(needle) != std::string::npos, e.what());
        return;
    }
    QFAIL(("no exception; expected one mentioning " + needle).c_str());
}

/// 2 x 2 inverse by the adjugate.
void inverse2(const double a[4], double out[4])
{
    const double det = a[0] * a[3] - a[1] * a[2];
    out[0] = a[3] / det;
    out[1] = -a[1] / det;
    out[2] = -a[2] / det;
    out[3] = a[0] / det;
}

} // namespace

class TestPriorMetrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void kissmeOneDimensionByHand();
    void kissmeTwoDimensionsBruteForce();
    void kissmeFloorWhenIndefinite();
    void itmlOneProjectionByHand();
    void itmlSatisfiesConstraintsWhenConverged();
    void itmlDefaultBoundsArePercentiles();
    void badInput();
};

void TestPriorMetrics::kissmeOneDimensionByHand()
{
    // Labelled 0, 1 (class 0), 3, 5 (class 1). Similar differences 1, 2: Σ_S = 5/2. Dissimilar
    // 3, 5, 2, 4: Σ_D = 54/4 = 27/2. M0 = 2/5 - 2/27 = 44/135.
    const Eigen::MatrixXd m = losses::kissmePrior(rowsOf({{0}, {1}, {3}, {5}}), {0, 0, 1, 1}, {0.0, 1e-3});
    QCOMPARE(m.rows(), Eigen::Index(1));
    QVERIFY(std::abs(m(0, 0) - 44.0 / 135.0) < 1e-12);
    // The ridge adds ridge · tr(Σ)/d to each covariance: Σ_S' = 2.5 (1.1), Σ_D' = 13.5 (1.1).
    const Eigen::MatrixXd r = losses::kissmePrior(rowsOf({{0}, {1}, {3}, {5}}), {0, 0, 1, 1}, {0.1, 1e-3});
    QVERIFY(std::abs(r(0, 0) - 44.0 / 135.0 / 1.1) < 1e-12);
}

void TestPriorMetrics::kissmeTwoDimensionsBruteForce()
{
    // Three tight classes spread in both directions: Σ_S⁻¹ - Σ_D⁻¹ is positive definite
    // (eigenvalues 1.92 and 0.69), so the floor is idle.
    const Eigen::MatrixXd x = rowsOf({{0, 0}, {1, 0}, {0, 1}, {6, 0}, {7, 0}, {6, 1.5}, {0, 6}, {1.5, 6}, {0, 7}});
    const std::vector<std::int32_t> y{0, 0, 0, 1, 1, 1, 2, 2, 2};
    double s[4] = {0, 0, 0, 0}, dd[4] = {0, 0, 0, 0};
    int ns = 0, nd = 0;
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j) {
            const double v0 = x(i, 0) - x(j, 0), v1 = x(i, 1) - x(j, 1);
            double* t = y[i] == y[j] ? s : dd;
            (y[i] == y[j] ? ns : nd) += 1;
            t[0] += v0 * v0;
            t[1] += v0 * v1;
            t[2] += v1 * v0;
            t[3] += v1 * v1;
        }
    QCOMPARE(ns, 9);
    QCOMPARE(nd, 27);
    for (int k = 0; k < 4; ++k) {
        s[k] /= ns;
        dd[k] /= nd;
    }
    double si[4], di[4];
    inverse2(s, si);
    inverse2(dd, di);
    const Eigen::MatrixXd m = losses::kissmePrior(x, y, {0.0, 1e-6});
    for (int k = 0; k < 4; ++k)
        QVERIFY2(std::abs(m(k / 2, k % 2) - (si[k] - di[k])) < 1e-10,
                 qPrintable(QString("entry %1: %2 vs %3").arg(k).arg(m(k / 2, k % 2)).arg(si[k] - di[k])));
}

void TestPriorMetrics::kissmeFloorWhenIndefinite()
{
    // Class 0: (0,0), (2,0); class 1: (3,0), (3,1). Similar differences (2,0), (0,1):
    // Σ_S = diag(2, 1/2). Dissimilar (3,0), (3,1), (1,0), (1,1): Σ_D = [[5, 1], [1, 1/2]].
    // Σ_S⁻¹ - Σ_D⁻¹ = [[1/6, 2/3], [2/3, -4/3]] is indefinite: the floor (1 %) replaces the
    // negative eigenvalue by 0.01 × the positive one.
    const Eigen::MatrixXd x = rowsOf({{0, 0}, {2, 0}, {3, 0}, {3, 1}});
    const std::vector<std::int32_t> y{0, 0, 1, 1};
    const Eigen::MatrixXd m = losses::kissmePrior(x, y, {0.0, 0.01});
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(m);
    const double lo = es.eigenvalues()(0), hi = es.eigenvalues()(1);
    double sd[4] = {5, 1, 1, 0.5}, di[4];
    inverse2(sd, di);
    const double a = 0.5 - di[0], b = -di[1], c = 2.0 - di[3];
    const double mean = 0.5 * (a + c), rad = std::sqrt(0.25 * (a - c) * (a - c) + b * b);
    const double rawLo = mean - rad, rawHi = mean + rad;
    QVERIFY2(rawLo < 0.0, "the case must be indefinite");
    QVERIFY(std::abs(hi - rawHi) < 1e-10);
    QVERIFY(std::abs(lo - 0.01 * rawHi) < 1e-10);
}

void TestPriorMetrics::itmlOneProjectionByHand()
{
    // One similar pair v = (2, 0), p = 4 > u = 1, hard constraint (γ = ∞), one sweep:
    // α = 1/4 - 1 = -3/4, β = α / (1 - α p) = -3/16, A = I + β (Av)(Av)ᵀ = diag(1 - 3/4, 1).
    losses::ItmlOptions o;
    o.gamma = std::numeric_limits<double>::infinity();
    o.sweeps = 1;
    o.upper = 1.0;
    o.floor = 1e-9;
    Eigen::MatrixXd a = losses::itmlPrior(rowsOf({{0, 0}, {2, 0}}), {0, 0}, o);
    QVERIFY((a - rowsOf({{0.25, 0}, {0, 1}})).cwiseAbs().maxCoeff() < 1e-12);
    // One dissimilar pair v = (0, 1), p = 1 < l = 4: α = -(1 - 1/4) = -3/4,
    // β = -α / (1 + α p) = 3, A = diag(1, 1 + 3) and p' = 4 = l.
    o.lower = 4.0;
    a = losses::itmlPrior(rowsOf({{0, 0}, {0, 1}}), {0, 1}, o);
    QVERIFY((a - rowsOf({{1, 0}, {0, 4}})).cwiseAbs().maxCoeff() < 1e-12);
    // A satisfied constraint leaves A = I (α = min(λ = 0, positive) = 0).
    a = losses::itmlPrior(rowsOf({{0, 0}, {0.5, 0}}), {0, 0}, o);
    QVERIFY((a - Eigen::MatrixXd::Identity(2, 2)).cwiseAbs().maxCoeff() < 1e-12);
    // Zero sweeps: A0 = I.
    o.sweeps = 0;
    a = losses::itmlPrior(rowsOf({{0, 0}, {2, 0}}), {0, 0}, o);
    QVERIFY((a - Eigen::MatrixXd::Identity(2, 2)).cwiseAbs().maxCoeff() < 1e-12);
}

void TestPriorMetrics::itmlSatisfiesConstraintsWhenConverged()
{
    // Two clusters in 3-d, hard constraints with bounds u = 0.5 (similar) and l = 30
    // (dissimilar): after many sweeps every constraint holds, checked pair by pair.
    std::mt19937_64 rng(5);
    std::normal_distribution<double> g(0.0, 0.3);
    Eigen::MatrixXd x(8, 3);
    std::vector<std::int32_t> y(8);
    for (int i = 0; i < 8; ++i) {
        y[static_cast<std::size_t>(i)] = i < 4 ? 0 : 1;
        for (int c = 0; c < 3; ++c)
            x(i, c) = (i < 4 ? 0.0 : 2.0) + g(rng);
    }
    losses::ItmlOptions o;
    o.gamma = std::numeric_limits<double>::infinity();
    o.sweeps = 2000;
    o.upper = 0.5;
    o.lower = 30.0;
    o.floor = 1e-12;
    const Eigen::MatrixXd a = losses::itmlPrior(x, y, o);
    double worstS = 0.0, worstD = 1e300;
    for (int i = 0; i < 8; ++i)
        for (int j = i + 1; j < 8; ++j) {
            const Eigen::VectorXd v = (x.row(i) - x.row(j)).transpose();
            const double p = v.dot(a * v);
            if (y[i] == y[j])
                worstS = std::max(worstS, p);
            else
                worstD = std::min(worstD, p);
        }
    QVERIFY2(worstS <= 0.5 * (1 + 1e-3), qPrintable(QString("largest similar distance %1").arg(worstS)));
    QVERIFY2(worstD >= 30.0 * (1 - 1e-3), qPrintable(QString("smallest dissimilar distance %1").arg(worstD)));
    // Positive definite and symmetric.
    QVERIFY((a - a.transpose()).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a).eigenvalues().minCoeff() > 0.0);
}

void TestPriorMetrics::itmlDefaultBoundsArePercentiles()
{
    // 1-d, labelled 0, 1, 3 (classes 0, 0, 1): squared distances 1 (similar), 9 and 4
    // (dissimilar); sorted 1, 4, 9: 5th percentile index ⌊0.05 · 2⌋ = 0 → u = 1, 95th
    // ⌊0.95 · 2⌋ = 1 → l = 4. The similar pair already meets p = 1 ≤ u; the dissimilar (0, 3)
    // at 9 ≥ 4 too; (1, 3) at 4 ≥ 4: nothing moves, A = 1.
    losses::ItmlOptions o;
    o.gamma = std::numeric_limits<double>::infinity();
    o.sweeps = 5;
    Eigen::MatrixXd a = losses::itmlPrior(rowsOf({{0}, {1}, {3}}), {0, 0, 1}, o);
    QVERIFY(std::abs(a(0, 0) - 1.0) < 1e-12);
    // With the bounds swapped by hand (u = 4, l = 9) the dissimilar (1, 3) at 4 < 9 pulls A up;
    // but the similar pair allows at most A · 1 ≤ 4: the alternating projections settle at a
    // value in between; with u = 4 and l = 9 both hold for A in [9/4, 4].
    o.upper = 4.0;
    o.lower = 9.0;
    o.sweeps = 500;
    a = losses::itmlPrior(rowsOf({{0}, {1}, {3}}), {0, 0, 1}, o);
    QVERIFY2(a(0, 0) >= 9.0 / 4.0 * (1 - 1e-6) && a(0, 0) <= 4.0 * (1 + 1e-6), qPrintable(QString::number(a(0, 0))));
}

void TestPriorMetrics::badInput()
{
    const Eigen::MatrixXd x = rowsOf({{0}, {1}, {3}});
    expectThrows([&] { losses::kissmePrior(x, {0, 0}); }, "labels");
    expectThrows([&] { losses::kissmePrior(x, {0, -1, 1}); }, "labelled");
    expectThrows([&] { losses::kissmePrior(x, {0, 0, 0}); }, "dissimilar");
    expectThrows([&] { losses::kissmePrior(x, {0, 1, 2}); }, "similar");
    expectThrows([&] { losses::kissmePrior(x, {0, 0, 1}, {0.0, 0.0}); }, "floor");
    expectThrows([&] { losses::itmlPrior(rowsOf({{0}}), {0}); }, "two labelled");
    losses::ItmlOptions o;
    o.gamma = 0.0;
    expectThrows([&] { losses::itmlPrior(x, {0, 0, 1}, o); }, "slack");
    // Similar pairs spread wider than dissimilar ones in the only direction: no positive eigenvalue.
    expectThrows([&] { losses::kissmePrior(rowsOf({{0}, {10}, {1}, {11}}), {0, 0, 1, 1}, {0.0, 1e-3}); },
                 "no positive eigenvalue");
}

QTEST_GUILESS_MAIN(TestPriorMetrics)
#include "tst_PriorMetrics.moc"
