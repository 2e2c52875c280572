// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Exact EMD against independent references: brute-force assignment, the 1-D closed form,
// a textbook LP solved in this file, and the constraints of seed 001 Eq. 1.
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace setscope::ot;

namespace {

/// Dense two-phase simplex with Bland's rule: min cᵀx, A x = b (b ≥ 0), x ≥ 0.
/// Slow and simple on purpose: an independent reference for tiny problems.
double solveLp(std::vector<std::vector<double>> A, std::vector<double> b, const std::vector<double>& c)
{
    const std::size_t m = A.size(), n = c.size();
    // Tableau with artificials: columns [x (n) | art (m) | rhs].
    const std::size_t W = n + m + 1;
    std::vector<std::vector<double>> T(m + 1, std::vector<double>(W, 0.0));
    std::vector<std::size_t> basis(m);
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j)
            T[i][j] = A[i][j];
        T[i][n + i] = 1;
        T[i][W - 1] = b[i];
        basis[i] = n + i;
    }
    auto pivot = [&](std::size_t r, std::size_t col) {
        const double p = T[r][col];
        for (double& x : T[r])
            x /= p;
        for (std::size_t i = 0; i <= m; ++i)
            if (i != r && T[i][col] != 0) {
                const double f = T[i][col];
                for (std::size_t j = 0; j < W; ++j)
                    T[i][j] -= f * T[r][j];
            }
        basis[r] = col;
    };
    auto simplex = [&](std::size_t cols) {
        for (int guard = 0; guard < 100000; ++guard) {
            std::size_t enter = cols;
            for (std::size_t j = 0; j < cols; ++j)
                if (T[m][j] < -1e-12) {
                    enter = j; // Bland: the first improving column
                    break;
                }
            if (enter == cols)
                return;
            std::size_t leave = m;
            double best = INFINITY;
            for (std::size_t i = 0; i < m; ++i)
                if (T[i][enter] > 1e-12) {
                    const double ratio = T[i][W - 1] / T[i][enter];
                    if (ratio < best - 1e-15 || (std::abs(ratio - best) <= 1e-15 && basis[i] < basis[leave])) {
                        best = ratio;
                        leave = i;
                    }
                }
            QVERIFY2(leave < m, "LP unbounded");
            pivot(leave, enter);
        }
    };
    // Phase 1: minimise the sum of artificials.
    for (std::size_t j = 0; j < W; ++j) {
        double s = 0;
        for (std::size_t i = 0; i < m; ++i)
            s += T[i][j];
        T[m][j] = (j >= n && j < n + m) ? 0.0 : -s;
    }
    simplex(n + m);
    // Artificials still basic (at zero) must leave before phase 2, or a later pivot could
    // raise them: pivot each on any real column of its row (a degenerate pivot). A row with
    // no such column is redundant and keeps its artificial at zero for good.
    for (std::size_t i = 0; i < m; ++i)
        if (basis[i] >= n)
            for (std::size_t j = 0; j < n; ++j)
                if (std::abs(T[i][j]) > 1e-9) {
                    pivot(i, j);
                    break;
                }
    // Phase 2: the real objective (artificials out of the game).
    for (std::size_t j = 0; j < W; ++j)
        T[m][j] = j < n ? c[j] : 0.0;
    for (std::size_t i = 0; i < m; ++i)
        if (basis[i] < n && T[m][basis[i]] != 0) {
            const double f = T[m][basis[i]];
            for (std::size_t j = 0; j < W; ++j)
                T[m][j] -= f * T[i][j];
        }
    for (std::size_t i = 0; i < m; ++i) // artificial columns may not re-enter
        for (std::size_t j = n; j < n + m; ++j)
            T[i][j] = 0;
    simplex(n);
    return -T[m][W - 1];
}

/// Seed 001 Eq. 1–2 as an LP: f_ij ≥ 0, Σ_j f_ij ≤ a_i, Σ_i f_ij ≤ b_j, Σ f = min(Σa, Σb).
double emdByLp(const std::vector<double>& C, const std::vector<double>& a, const std::vector<double>& b)
{
    const std::size_t na = a.size(), nb = b.size(), nf = na * nb;
    const std::size_t nvar = nf + na + nb; // flows, row slacks, column slacks
    std::vector<std::vector<double>> A;
    std::vector<double> rhs;
    for (std::size_t i = 0; i < na; ++i) {
        std::vector<double> row(nvar, 0.0);
        for (std::size_t j = 0; j < nb; ++j)
            row[i * nb + j] = 1;
        row[nf + i] = 1;
        A.push_back(row);
        rhs.push_back(a[i]);
    }
    for (std::size_t j = 0; j < nb; ++j) {
        std::vector<double> row(nvar, 0.0);
        for (std::size_t i = 0; i < na; ++i)
            row[i * nb + j] = 1;
        row[nf + na + j] = 1;
        A.push_back(row);
        rhs.push_back(b[j]);
    }
    std::vector<double> all(nvar, 0.0);
    std::fill(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(nf), 1.0);
    const double total = std::min(std::accumulate(a.begin(), a.end(), 0.0), std::accumulate(b.begin(), b.end(), 0.0));
    A.push_back(all);
    rhs.push_back(total);
    std::vector<double> cost(nvar, 0.0);
    std::copy(C.begin(), C.end(), cost.begin());
    return solveLp(A, rhs, cost) / total;
}

struct Sets {
    int d = 0;
    std::vector<float> pa, pb, wa, wb;
    PointSet a() const { return {pa.data(), wa.data(), static_cast<std::int64_t>(wa.size()), d}; }
    PointSet b() const { return {pb.data(), wb.data(), static_cast<std::int64_t>(wb.size()), d}; }
};

Sets randomSets(std::mt19937_64& rng, int na, int nb, int d, bool equalMass, bool grid = false)
{
    std::uniform_real_distribution<float> U(0, 1);
    Sets s;
    s.d = d;
    for (int i = 0; i < na * d; ++i)
        s.pa.push_back(grid ? std::round(U(rng) * 3) : U(rng));
    for (int i = 0; i < nb * d; ++i)
        s.pb.push_back(grid ? std::round(U(rng) * 3) : U(rng));
    for (int i = 0; i < na; ++i)
        s.wa.push_back(0.1f + U(rng));
    for (int i = 0; i < nb; ++i)
        s.wb.push_back(0.1f + U(rng));
    if (equalMass) {
        const float sa = std::accumulate(s.wa.begin(), s.wa.end(), 0.0f);
        const float sb = std::accumulate(s.wb.begin(), s.wb.end(), 0.0f);
        for (float& w : s.wa)
            w /= sa;
        for (float& w : s.wb)
            w /= sb;
    }
    return s;
}

std::vector<double> toDouble(const std::vector<float>& v) { return {v.begin(), v.end()}; }

double relErr(double x, double ref) { return std::abs(x - ref) / std::max(1e-300, std::abs(ref)); }

} // namespace

class TestEmd : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void assignmentBruteForce();
    void oneDimensionalClosedForm();
    void unequalMassesAgainstLp();
    void equalMassesAgainstLp();
    void flowsAreFeasibleAndOptimalWork_data();
    void flowsAreFeasibleAndOptimalWork();
    void degenerateCases();
    void noSizeLimit();
    void groundDistances();
    void identicalElementsAtDistanceZero();
    void badInput_data();
    void badInput();
    void solverReuse();
};

void TestEmd::assignmentBruteForce()
{
    // Equal sizes, uniform weights: EMD = the optimal assignment's mean cost.
    std::mt19937_64 rng(1);
    for (int trial = 0; trial < 300; ++trial) {
        const int n = 1 + static_cast<int>(rng() % 7);
        const Sets s = randomSets(rng, n, n, 2, false, trial % 2 == 0); // grid: ties and duplicates
        Sets u = s;
        std::fill(u.wa.begin(), u.wa.end(), 1.0f);
        std::fill(u.wb.begin(), u.wb.end(), 1.0f);
        std::vector<double> C;
        costMatrix(u.a(), u.b(), GroundDistance::Euclidean, C);
        std::vector<int> p(static_cast<std::size_t>(n));
        std::iota(p.begin(), p.end(), 0);
        double best = INFINITY;
        do {
            double sum = 0;
            for (int i = 0; i < n; ++i)
                sum += C[static_cast<std::size_t>(i * n + p[static_cast<std::size_t>(i)])];
            best = std::min(best, sum / n);
        } while (std::next_permutation(p.begin(), p.end()));
        const EmdResult r = emd(u.a(), u.b());
        QVERIFY2(std::abs(r.emd - best) <= 1e-12 * std::max(1.0, best),
                 qPrintable(QString("trial %1 n=%2: %3 vs %4").arg(trial).arg(n).arg(r.emd, 0, 'g', 17).arg(best, 0, 'g', 17)));
        QCOMPARE(r.totalFlow, double(n));
    }
}

void TestEmd::oneDimensionalClosedForm()
{
    // In 1-D with |x - y| and equal masses, EMD = ∫ |F_a(x) - F_b(x)| dx / W.
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> U(0, 1);
    for (int trial = 0; trial < 100; ++trial) {
        const int na = 1 + static_cast<int>(rng() % 40), nb = 1 + static_cast<int>(rng() % 40);
        std::vector<float> xa(static_cast<std::size_t>(na)), xb(static_cast<std::size_t>(nb)), wa(xa.size()), wb(xb.size());
        for (auto& x : xa)
            x = static_cast<float>(U(rng) * 10);
        for (auto& x : xb)
            x = static_cast<float>(U(rng) * 10);
        double sa = 0, sb = 0;
        for (auto& w : wa)
            sa += (w = static_cast<float>(0.5 + U(rng)));
        for (auto& w : wb)
            sb += (w = static_cast<float>(0.5 + U(rng)));
        // Scale B's weights so both totals are the same double value (the closed form needs
        // equal masses): give B weights in double through emdFromCost.
        std::vector<double> da(wa.begin(), wa.end()), db(wb.size());
        for (std::size_t j = 0; j < wb.size(); ++j)
            db[j] = wb[j] * (sa / sb);
        std::vector<std::pair<double, double>> events; // (x, +w for A, -w for B)
        for (int i = 0; i < na; ++i)
            events.push_back({xa[static_cast<std::size_t>(i)], da[static_cast<std::size_t>(i)]});
        for (int j = 0; j < nb; ++j)
            events.push_back({xb[static_cast<std::size_t>(j)], -db[static_cast<std::size_t>(j)]});
        std::sort(events.begin(), events.end());
        double F = 0, integral = 0;
        for (std::size_t e = 0; e + 1 < events.size(); ++e) {
            F += events[e].second;
            integral += std::abs(F) * (events[e + 1].first - events[e].first);
        }
        const double expect = integral / sa;
        std::vector<double> C(static_cast<std::size_t>(na * nb));
        for (int i = 0; i < na; ++i)
            for (int j = 0; j < nb; ++j)
                C[static_cast<std::size_t>(i * nb + j)] =
                    std::abs(double(xa[static_cast<std::size_t>(i)]) - double(xb[static_cast<std::size_t>(j)]));
        const EmdResult r = emdFromCost(C.data(), da.data(), na, db.data(), nb);
        QVERIFY2(relErr(r.emd, expect) < 1e-10, qPrintable(QString("%1 vs %2").arg(r.emd, 0, 'g', 17).arg(expect, 0, 'g', 17)));
    }
}

void TestEmd::unequalMassesAgainstLp()
{
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 150; ++trial) {
        const int na = 1 + static_cast<int>(rng() % 4), nb = 1 + static_cast<int>(rng() % 4);
        const Sets s = randomSets(rng, na, nb, 3, false, trial % 3 == 0);
        std::vector<double> C;
        costMatrix(s.a(), s.b(), GroundDistance::Euclidean, C);
        const double lp = emdByLp(C, toDouble(s.wa), toDouble(s.wb));
        const EmdResult r = emd(s.a(), s.b(), {GroundDistance::Euclidean, true});
        QVERIFY2(std::abs(r.emd - lp) <= 1e-9 * std::max(1.0, lp),
                 qPrintable(QString("trial %1: %2 vs LP %3").arg(trial).arg(r.emd, 0, 'g', 17).arg(lp, 0, 'g', 17)));
        const double total = std::min(std::accumulate(s.wa.begin(), s.wa.end(), 0.0),
                                      std::accumulate(s.wb.begin(), s.wb.end(), 0.0));
        QVERIFY(relErr(r.totalFlow, total) < 1e-12);
    }
}

void TestEmd::equalMassesAgainstLp()
{
    std::mt19937_64 rng(4);
    for (int trial = 0; trial < 100; ++trial) {
        const int na = 1 + static_cast<int>(rng() % 5), nb = 1 + static_cast<int>(rng() % 5);
        const Sets s = randomSets(rng, na, nb, 2, true);
        std::vector<double> C;
        costMatrix(s.a(), s.b(), GroundDistance::SquaredEuclidean, C);
        const double lp = emdByLp(C, toDouble(s.wa), toDouble(s.wb));
        const EmdResult r = emd(s.a(), s.b(), {GroundDistance::SquaredEuclidean, false});
        QVERIFY2(std::abs(r.emd - lp) <= 1e-9 * std::max(1.0, lp), qPrintable(QString::number(trial)));
    }
}

void TestEmd::flowsAreFeasibleAndOptimalWork_data()
{
    QTest::addColumn<int>("na");
    QTest::addColumn<int>("nb");
    QTest::addColumn<bool>("equal");
    QTest::newRow("20x30 equal") << 20 << 30 << true;
    QTest::newRow("90x90 equal") << 90 << 90 << true;
    QTest::newRow("50x120 unequal") << 50 << 120 << false;
    QTest::newRow("200x150 unequal") << 200 << 150 << false;
}

void TestEmd::flowsAreFeasibleAndOptimalWork()
{
    QFETCH(int, na);
    QFETCH(int, nb);
    QFETCH(bool, equal);
    std::mt19937_64 rng(static_cast<std::uint64_t>(na * 1000 + nb));
    const Sets s = randomSets(rng, na, nb, 5, equal);
    std::vector<double> C;
    costMatrix(s.a(), s.b(), GroundDistance::Euclidean, C);
    const EmdResult r = emd(s.a(), s.b(), {GroundDistance::Euclidean, true});
    std::vector<double> rows(static_cast<std::size_t>(na), 0.0), cols(static_cast<std::size_t>(nb), 0.0);
    double work = 0, total = 0;
    for (const Flow& f : r.flows) {
        QVERIFY(f.amount > 0);
        QVERIFY(f.i >= 0 && f.i < na && f.j >= 0 && f.j < nb);
        rows[static_cast<std::size_t>(f.i)] += f.amount;
        cols[static_cast<std::size_t>(f.j)] += f.amount;
        work += f.amount * C[static_cast<std::size_t>(f.i * nb + f.j)];
        total += f.amount;
    }
    for (int i = 0; i < na; ++i)
        QVERIFY(rows[static_cast<std::size_t>(i)] <= s.wa[static_cast<std::size_t>(i)] * (1 + 1e-12) + 1e-15);
    for (int j = 0; j < nb; ++j)
        QVERIFY(cols[static_cast<std::size_t>(j)] <= s.wb[static_cast<std::size_t>(j)] * (1 + 1e-12) + 1e-15);
    const double expectTotal = std::min(std::accumulate(s.wa.begin(), s.wa.end(), 0.0),
                                        std::accumulate(s.wb.begin(), s.wb.end(), 0.0));
    QVERIFY(relErr(total, expectTotal) < 1e-12);
    QVERIFY(relErr(work, r.work) < 1e-12);
    QVERIFY(relErr(r.emd, work / total) < 1e-12);
    // A basic optimal solution has at most na + nb - 1 non-zero flows (plus the slack's).
    QVERIFY(static_cast<int>(r.flows.size()) <= na + nb);
    // Optimality, independently of the solver: EMD is symmetric in its arguments.
    const EmdResult back = emd(s.b(), s.a());
    QVERIFY(relErr(back.emd, r.emd) < 1e-10);
}

void TestEmd::degenerateCases()
{
    // All points identical: 0.
    {
        const std::vector<float> p(20, 1.5f), w(10, 0.1f);
        const PointSet a{p.data(), w.data(), 10, 2};
        QCOMPARE(emd(a, a).emd, 0.0);
    }
    // One point against many, equal masses: the weighted mean distance to it.
    // Distances 5, 1 and 10 with weights 1, 1, 2: (5 + 1 + 20) / 4.
    {
        const std::vector<float> one{0, 0}, w1{4};
        const std::vector<float> many{3, 4, 0, 1, -6, 8}, wm{1, 1, 2};
        const EmdResult r = emd({one.data(), w1.data(), 1, 2}, {many.data(), wm.data(), 3, 2});
        QVERIFY(std::abs(r.emd - 26.0 / 4.0) < 1e-12);
        // Mass 3 against 4: only 3 units move, to the cheapest places: 1 + 5 + 10 over 3.
        const std::vector<float> w3{3};
        const EmdResult p = emd({one.data(), w3.data(), 1, 2}, {many.data(), wm.data(), 3, 2});
        QVERIFY(std::abs(p.emd - 16.0 / 3.0) < 1e-12);
        QCOMPARE(p.totalFlow, 3.0);
    }
    // Uniform weights on a 4x4 grid against its shifted copy: every point moves by 1.
    {
        std::vector<float> a, b, w;
        for (int x = 0; x < 4; ++x)
            for (int y = 0; y < 4; ++y) {
                a.insert(a.end(), {float(x), float(y)});
                b.insert(b.end(), {float(x + 1), float(y)});
                w.push_back(1.0f);
            }
        // Optimal: shift the whole grid by one (cost 1 each) — any cheaper plan would have to
        // move mass less than one unit in x, impossible since the x-marginals differ by a shift.
        const EmdResult r = emd({a.data(), w.data(), 16, 2}, {b.data(), w.data(), 16, 2});
        QVERIFY(std::abs(r.emd - 1.0) < 1e-12);
    }
    // A zero-weight element dropped on the lighter side and the slack node added on that
    // same side keep the row count: the cost matrix must still be rebuilt (regression).
    {
        std::mt19937_64 rng(11);
        for (int t = 0; t < 200; ++t) {
            Sets s = randomSets(rng, 2 + static_cast<int>(rng() % 4), 2 + static_cast<int>(rng() % 4), 2, false);
            s.wa[rng() % s.wa.size()] = 0.0f;
            std::vector<double> C;
            costMatrix(s.a(), s.b(), GroundDistance::Euclidean, C);
            const double lp = emdByLp(C, toDouble(s.wa), toDouble(s.wb));
            const EmdResult r = emd(s.a(), s.b());
            QVERIFY2(std::abs(r.emd - lp) <= 1e-9 * std::max(1.0, lp),
                     qPrintable(QString("trial %1: %2 vs LP %3").arg(t).arg(r.emd).arg(lp)));
        }
    }
    // Zero-weight elements are ignored, and never appear in flows.
    {
        const std::vector<float> a{0, 10}, wa{1, 0}, b{1}, wb{1};
        const EmdResult r = emd({a.data(), wa.data(), 2, 1}, {b.data(), wb.data(), 1, 1}, {GroundDistance::Euclidean, true});
        QCOMPARE(r.emd, 1.0);
        QCOMPARE(r.flows.size(), std::size_t(1));
        QCOMPARE(r.flows[0].i, 0);
    }
}

void TestEmd::noSizeLimit()
{
    // The reference C code stops at 100 elements; this one does not.
    std::mt19937_64 rng(6);
    const Sets s = randomSets(rng, 700, 500, 3, true);
    const EmdResult r = emd(s.a(), s.b());
    QVERIFY(r.emd > 0);
    QVERIFY(relErr(r.totalFlow, 1.0) < 1e-6);
}

void TestEmd::groundDistances()
{
    const std::vector<float> a{1, 0, 0, 2}, b{0, 3, 0, 0}, w{1, 1};
    std::vector<double> C;
    costMatrix({a.data(), w.data(), 2, 2}, {b.data(), w.data(), 2, 2}, GroundDistance::Euclidean, C);
    QVERIFY(std::abs(C[0] - std::sqrt(10.0)) < 1e-12); // (1,0)-(0,3)
    QVERIFY(std::abs(C[1] - 1.0) < 1e-12);             // (1,0)-(0,0)
    QVERIFY(std::abs(C[2] - 1.0) < 1e-12);             // (0,2)-(0,3)
    QVERIFY(std::abs(C[3] - 2.0) < 1e-12);
    costMatrix({a.data(), w.data(), 2, 2}, {b.data(), w.data(), 2, 2}, GroundDistance::SquaredEuclidean, C);
    QVERIFY(std::abs(C[0] - 10.0) < 1e-12);
    costMatrix({a.data(), w.data(), 2, 2}, {b.data(), w.data(), 2, 2}, GroundDistance::Cosine, C);
    QVERIFY(std::abs(C[0] - 1.0) < 1e-12); // orthogonal
    QVERIFY(std::abs(C[2] - 0.0) < 1e-12); // parallel
    QCOMPARE(C[1], 1.0);                   // zero vector: defined as 1
    QCOMPARE(parseGroundDistance("sqeuclidean"), GroundDistance::SquaredEuclidean);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseGroundDistance("manhattan"));
}

void TestEmd::identicalElementsAtDistanceZero()
{
    // 300-d vectors of norm ~17: the GEMM expansion alone would leave ~1e-7 for d(x, x).
    std::mt19937_64 rng(7);
    std::normal_distribution<float> g(0, 1);
    std::vector<float> p(300 * 3);
    for (auto& x : p)
        x = g(rng);
    const std::vector<float> w{1, 1, 1};
    std::vector<double> C;
    costMatrix({p.data(), w.data(), 3, 300}, {p.data(), w.data(), 3, 300}, GroundDistance::Euclidean, C);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(C[static_cast<std::size_t>(i * 3 + i)], 0.0);
    QCOMPARE(emd({p.data(), w.data(), 3, 300}, {p.data(), w.data(), 3, 300}).emd, 0.0);
}

void TestEmd::badInput_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expect");
    QTest::newRow("empty A") << 0 << "set A is empty";
    QTest::newRow("zero weight B") << 1 << "set B has zero total weight";
    QTest::newRow("NaN point") << 2 << "set A: element 1, component 0 is NaN";
    QTest::newRow("negative weight") << 3 << "set B: element 0 has weight";
    QTest::newRow("dimensions") << 4 << "different dimensions (2 and 3)";
}

void TestEmd::badInput()
{
    QFETCH(int, kind);
    QFETCH(QString, expect);
    std::vector<float> pa{0, 0, 1, 1}, pb{0, 0, 0}, wa{1, 1}, wb{1};
    PointSet a{pa.data(), wa.data(), 2, 2}, b{pb.data(), wb.data(), 1, 2};
    switch (kind) {
    case 0: a.n = 0; break;
    case 1: wb[0] = 0; break;
    case 2: pa[2] = std::nanf(""); break;
    case 3: wb[0] = -1; break;
    case 4: b.d = 3; break;
    }
    try {
        emd(a, b);
        QFAIL("accepted");
    } catch (const OtError& e) {
        QVERIFY2(QString(e.what()).contains(expect), e.what());
    }
}

void TestEmd::solverReuse()
{
    std::mt19937_64 rng(8);
    EmdSolver solver;
    for (int t = 0; t < 30; ++t) {
        const Sets s = randomSets(rng, 1 + static_cast<int>(rng() % 40), 1 + static_cast<int>(rng() % 40), 4, t % 2 == 0);
        const EmdResult a = solver.solve(s.a(), s.b(), {GroundDistance::Euclidean, true});
        const EmdResult b = emd(s.a(), s.b(), {GroundDistance::Euclidean, true});
        QCOMPARE(a.emd, b.emd);
        QCOMPARE(a.flows.size(), b.flows.size());
    }
}

QTEST_GUILESS_MAIN(TestEmd)
#include "tst_Emd.moc"
