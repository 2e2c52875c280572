// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// PointSwap, PointDrop, PointMixup and the ablation variants (seed 001 §4.2, §7.8). The
// optimal flows the augmentations must follow come from an independent brute force here
// (all assignments of small sets, with integer weights replicated into unit copies), never
// from ot::emd, which the augmentations themselves call.
#include "tests/core/SetFixture.h"
#include "core/augment/PointDrop.h"
#include "core/augment/PointMixup.h"
#include "core/augment/PointSwap.h"
#include "core/ot/Emd.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

using namespace setscope;
using augment::Augmented;
using augment::ChangeKind;

namespace {

using testutil::Set;

Set randomSet(std::mt19937& g, int n, int d, float weight = 1.0f, float shift = 0.0f)
{
    std::normal_distribution<float> nd(0.0f, 1.0f);
    Set s;
    s.d = d;
    for (int i = 0; i < n * d; ++i)
        s.p.push_back(nd(g) + shift);
    s.w.assign(static_cast<std::size_t>(n), weight);
    return s;
}

double dist(const float* a, const float* b, int d)
{
    double s = 0;
    for (int k = 0; k < d; ++k)
        s += (double(a[k]) - b[k]) * (double(a[k]) - b[k]);
    return std::sqrt(s);
}

bool sameRow(const float* a, const float* b, int d) { return std::equal(a, a + d, b); }

/// The optimal transport between x and y with positive integer weights, by brute force: each
/// element is replicated into unit copies (its weight), which turns the transport into an
/// assignment between copies (Birkhoff); every injective map of the lighter side's copies into
/// the heavier side's is tried (at most 8 copies a side). Returns the plan F (n_x x n_y) and
/// the optimal work; `unique` tells whether every optimal assignment gives the same plan.
struct Plan {
    std::vector<std::vector<double>> F;
    double work = 0;
    bool unique = true;
};

Plan bruteForcePlan(const Set& x, const Set& y)
{
    std::vector<int> cx, cy; // copy -> element
    for (int i = 0; i < x.n(); ++i)
        for (int c = 0; c < int(x.w[std::size_t(i)]); ++c)
            cx.push_back(i);
    for (int j = 0; j < y.n(); ++j)
        for (int c = 0; c < int(y.w[std::size_t(j)]); ++c)
            cy.push_back(j);
    const bool xLight = cx.size() <= cy.size();
    const std::vector<int>& light = xLight ? cx : cy;
    std::vector<int> heavy = xLight ? cy : cx;
    std::vector<int> perm(heavy.size());
    std::iota(perm.begin(), perm.end(), 0);
    Plan best;
    best.work = 1e300;
    auto planOf = [&](const std::vector<int>& pm) {
        std::vector<std::vector<double>> F(std::size_t(x.n()), std::vector<double>(std::size_t(y.n()), 0.0));
        for (std::size_t a = 0; a < light.size(); ++a) {
            const int i = xLight ? light[a] : heavy[std::size_t(pm[a])];
            const int j = xLight ? heavy[std::size_t(pm[a])] : light[a];
            F[std::size_t(i)][std::size_t(j)] += 1.0;
        }
        return F;
    };
    std::vector<std::pair<double, std::vector<int>>> all;
    do {
        double w = 0;
        for (std::size_t a = 0; a < light.size(); ++a) {
            const int i = xLight ? light[a] : heavy[std::size_t(perm[a])];
            const int j = xLight ? heavy[std::size_t(perm[a])] : light[a];
            w += dist(x.row(i), y.row(j), x.d);
        }
        all.push_back({w, perm});
    } while (std::next_permutation(perm.begin(), perm.end()));
    for (const auto& [w, pm] : all)
        if (w < best.work) {
            best.work = w;
            best.F = planOf(pm);
        }
    for (const auto& [w, pm] : all)
        if (w <= best.work + 1e-9 && planOf(pm) != best.F)
            best.unique = false;
    return best;
}

/// |observed - expected| within 4 standard deviations of a sum of `n` independent draws of
/// a variable with the given mean and variance.
bool within4Sigma(double observed, double n, double mean, double var)
{
    return std::abs(observed - n * mean) <= 4.0 * std::sqrt(n * var) + 1e-9;
}

double binomPmf(int n, int k, double q)
{
    return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0)) * std::pow(q, k) *
           std::pow(1 - q, n - k);
}

/// Checks an augmented PointSwap set against its record: recorded elements hold the partner's
/// element, the others x's, weights are x's, each element at most once.
void checkSwapRecord(const Augmented& a, const Set& x, const Set& partner)
{
    QCOMPARE(a.n, x.n());
    QCOMPARE(a.weights, x.w);
    std::vector<int> seen(std::size_t(x.n()), 0);
    for (const auto& c : a.changes) {
        QCOMPARE(c.kind, ChangeKind::Swapped);
        QCOMPARE(c.output, c.element);
        QVERIFY(c.partnerElement >= 0 && c.partnerElement < partner.n());
        QVERIFY(++seen[std::size_t(c.element)] == 1);
        QVERIFY(sameRow(a.points.data() + c.element * x.d, partner.row(c.partnerElement), x.d));
    }
    for (std::int64_t i = 0; i < x.n(); ++i)
        if (!seen[std::size_t(i)])
            QVERIFY(sameRow(a.points.data() + i * x.d, x.row(i), x.d));
    for (std::size_t k = 1; k < a.changes.size(); ++k)
        QVERIFY(a.changes[k - 1].element < a.changes[k].element);
}

template <typename F>
void expectThrow(F&& f, const QString& part)
{
    try {
        f();
        QFAIL(qPrintable("no ot::OtError; expected one containing '" + part + "'"));
    } catch (const ot::OtError& e) {
        QVERIFY2(QString(e.what()).contains(part), e.what());
    }
}

} // namespace

class TestAugment : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void swapFollowsTheOptimalPermutation();
    void swapOnlyAlongPositiveFlow_data();
    void swapOnlyAlongPositiveFlow();
    void swapUnmovedElementStays();
    void swapFrequencyIsOmega();
    void omegaZeroAndOne();
    void partnerIsTheEmdNearest();
    void variantsOfTable11();
    void dropKeepRate_data();
    void dropKeepRate();
    void dropNeverEmpty();
    void mixupMidpointsHandSolved();
    void mixupUnequalSizesAndMasses();
    void sameSeedSameOutput();
    void givenFlowGivesTheSameResult();
    void badGivenFlow();
    void badInput();
};

// Equal sizes, unit weights: the optimal flow is a permutation π (found here by trying all
// 6! of them); with ω = 1 every element i must become y_π(i), with flow 1.
void TestAugment::swapFollowsTheOptimalPermutation()
{
    std::mt19937 g(11);
    for (int trial = 0; trial < 20; ++trial) {
        const int n = 2 + trial % 5; // 2..6
        const Set x = randomSet(g, n, 3), y = randomSet(g, n, 3, 1.0f, 0.5f);
        const Plan plan = bruteForcePlan(x, y);
        QVERIFY(plan.unique); // random data: no tie
        augment::PointSwapOptions o;
        o.omega = 1.0;
        augment::Rng rng(trial);
        const Augmented a = augment::pointSwapWith(x.view(), y.view(), 7, o, rng);
        checkSwapRecord(a, x, y);
        QCOMPARE(a.changes.size(), std::size_t(n));
        QCOMPARE(a.partner, std::int64_t(7));
        QVERIFY(std::abs(a.partnerEmd - plan.work / n) < 1e-6 * (1 + plan.work));
        for (const auto& c : a.changes) {
            QCOMPARE(plan.F[std::size_t(c.element)][std::size_t(c.partnerElement)], 1.0);
            QCOMPARE(c.partnerSet, std::int64_t(7));
            QVERIFY(std::abs(c.flow - 1.0) < 1e-9);
        }
    }
}

void TestAugment::swapOnlyAlongPositiveFlow_data()
{
    QTest::addColumn<int>("nx");
    QTest::addColumn<int>("ny");
    QTest::addColumn<int>("wx");
    QTest::addColumn<int>("wy");
    // Equal total masses with rows split over several partner elements.
    QTest::newRow("2x3") << 2 << 3 << 3 << 2;
    QTest::newRow("3x2") << 3 << 2 << 2 << 3;
    QTest::newRow("2x4") << 2 << 4 << 2 << 1;
    QTest::newRow("3x6") << 3 << 6 << 2 << 1;
}

// Sets of different sizes: the substitute of x_i must be some y_j with F_ij > 0 in the
// independent optimal plan, the record must carry F_ij, and j must be drawn with probability
// F_ij / Σ_j F_ij (FlowPick::Proportional) or be the row's largest flow (FlowPick::Largest).
void TestAugment::swapOnlyAlongPositiveFlow()
{
    QFETCH(int, nx);
    QFETCH(int, ny);
    QFETCH(int, wx);
    QFETCH(int, wy);
    std::mt19937 g(5);
    int splitRows = 0;
    for (int trial = 0; trial < 6; ++trial) {
        const Set x = randomSet(g, nx, 2, float(wx)), y = randomSet(g, ny, 2, float(wy));
        const Plan plan = bruteForcePlan(x, y);
        QVERIFY(plan.unique);
        augment::PointSwapOptions o;
        o.omega = 1.0;
        augment::Rng rng(100 + trial);
        const int draws = 2000;
        std::vector<std::vector<double>> picks(std::size_t(nx), std::vector<double>(std::size_t(ny), 0.0));
        for (int t = 0; t < draws; ++t) {
            const Augmented a = augment::pointSwapWith(x.view(), y.view(), 0, o, rng);
            checkSwapRecord(a, x, y);
            QCOMPARE(a.changes.size(), std::size_t(nx)); // equal masses: every element has flow
            for (const auto& c : a.changes) {
                const double f = plan.F[std::size_t(c.element)][std::size_t(c.partnerElement)];
                QVERIFY2(f > 0, "substitute without flow");
                QVERIFY(std::abs(c.flow - f) < 1e-9 * wx * wy);
                picks[std::size_t(c.element)][std::size_t(c.partnerElement)] += 1;
            }
        }
        for (int i = 0; i < nx; ++i) {
            const double row = std::accumulate(plan.F[std::size_t(i)].begin(), plan.F[std::size_t(i)].end(), 0.0);
            int arcs = 0;
            for (int j = 0; j < ny; ++j) {
                const double q = plan.F[std::size_t(i)][std::size_t(j)] / row;
                arcs += q > 0;
                QVERIFY2(within4Sigma(picks[std::size_t(i)][std::size_t(j)], draws, q, q * (1 - q)),
                         qPrintable(QString("row %1 -> %2: %3 picks of %4, expected share %5")
                                        .arg(i).arg(j).arg(picks[std::size_t(i)][std::size_t(j)]).arg(draws).arg(q)));
            }
            splitRows += arcs > 1;
        }
        // The largest flow of the row, every time.
        o.pick = augment::FlowPick::Largest;
        const Augmented a = augment::pointSwapWith(x.view(), y.view(), 0, o, rng);
        checkSwapRecord(a, x, y);
        for (const auto& c : a.changes) {
            const auto& row = plan.F[std::size_t(c.element)];
            const auto top = std::max_element(row.begin(), row.end()); // first of equal maxima: lowest j
            QCOMPARE(c.partnerElement, std::int64_t(top - row.begin()));
        }
    }
    QVERIFY(splitRows > 0); // the proportional draw was exercised
}

// x heavier than its partner: the partial transport leaves one element of x unmoved, and
// that element has no f_ij > 0, so Eq. 6 keeps it even with ω = 1.
void TestAugment::swapUnmovedElementStays()
{
    std::mt19937 g(3);
    for (int trial = 0; trial < 10; ++trial) {
        const Set x = randomSet(g, 4, 2), y = randomSet(g, 3, 2);
        const Plan plan = bruteForcePlan(x, y);
        QVERIFY(plan.unique);
        int unmoved = -1;
        for (int i = 0; i < 4; ++i)
            if (std::accumulate(plan.F[std::size_t(i)].begin(), plan.F[std::size_t(i)].end(), 0.0) == 0)
                unmoved = i;
        QVERIFY(unmoved >= 0);
        augment::PointSwapOptions o;
        o.omega = 1.0;
        augment::Rng rng(trial);
        const Augmented a = augment::pointSwapWith(x.view(), y.view(), 1, o, rng);
        checkSwapRecord(a, x, y);
        QCOMPARE(a.changes.size(), std::size_t(3));
        for (const auto& c : a.changes) {
            QVERIFY(c.element != unmoved);
            QCOMPARE(plan.F[std::size_t(c.element)][std::size_t(c.partnerElement)], 1.0);
        }
        QVERIFY(sameRow(a.points.data() + unmoved * 2, x.row(unmoved), 2));
    }
}

// Each element is swapped with probability ω: over many draws the count of swaps is within
// 4σ of the binomial mean, for several ω.
void TestAugment::swapFrequencyIsOmega()
{
    std::mt19937 g(8);
    const Set x = randomSet(g, 6, 3), y = randomSet(g, 6, 3);
    for (const double omega : {0.1, 0.3, 0.5, 0.9}) {
        augment::PointSwapOptions o;
        o.omega = omega;
        augment::Rng rng(42);
        const int draws = 3000;
        double swaps = 0;
        std::vector<double> perElement(6, 0.0);
        for (int t = 0; t < draws; ++t) {
            const Augmented a = augment::pointSwapWith(x.view(), y.view(), 0, o, rng);
            swaps += double(a.changes.size());
            for (const auto& c : a.changes)
                perElement[std::size_t(c.element)] += 1;
        }
        QVERIFY2(within4Sigma(swaps, draws * 6.0, omega, omega * (1 - omega)),
                 qPrintable(QString("omega %1: %2 swaps of %3 elements").arg(omega).arg(swaps).arg(draws * 6)));
        for (double e : perElement)
            QVERIFY(within4Sigma(e, draws, omega, omega * (1 - omega)));
    }
}

void TestAugment::omegaZeroAndOne()
{
    std::mt19937 g(9);
    const Set x = randomSet(g, 30, 4), y = randomSet(g, 25, 4, 1.2f); // equal masses: 30 = 25 * 1.2
    augment::Rng rng(1);
    augment::PointSwapOptions o;
    o.omega = 0.0;
    for (int t = 0; t < 20; ++t) {
        const Augmented a = augment::pointSwapWith(x.view(), y.view(), 0, o, rng);
        QVERIFY(a.changes.empty());
        QCOMPARE(a.points, x.p);
        QCOMPARE(a.weights, x.w);
    }
    o.omega = 1.0;
    for (int t = 0; t < 20; ++t) {
        const Augmented a = augment::pointSwapWith(x.view(), y.view(), 0, o, rng);
        QCOMPARE(a.changes.size(), std::size_t(30));
        checkSwapRecord(a, x, y);
        for (std::int64_t i = 0; i < 30; ++i) // every element really differs from the original
            QVERIFY(!sameRow(a.points.data() + i * 4, x.row(i), 4));
    }
}

// The partner is x's EMD-nearest candidate (brute force over all assignments), x itself
// (`self`) excluded; an identical candidate is the nearest at EMD 0.
void TestAugment::partnerIsTheEmdNearest()
{
    std::mt19937 g(21);
    for (int trial = 0; trial < 8; ++trial) {
        std::vector<Set> sets;
        for (int c = 0; c < 6; ++c)
            sets.push_back(randomSet(g, 4, 2, 1.0f, 0.3f * float(c)));
        std::vector<ot::PointSet> views;
        for (const auto& s : sets)
            views.push_back(s.view());
        const int self = trial % 6;
        double best = 1e300;
        int expected = -1;
        for (int c = 0; c < 6; ++c)
            if (c != self) {
                const double w = bruteForcePlan(sets[std::size_t(self)], sets[std::size_t(c)]).work;
                if (w < best) {
                    best = w;
                    expected = c;
                }
            }
        const auto nb = augment::nearestByEmd(views[std::size_t(self)], views, self);
        QCOMPARE(nb.index, std::int64_t(expected));
        QVERIFY(std::abs(nb.emd - best / 4) < 1e-6);
        augment::Rng rng(trial);
        const Augmented a = augment::pointSwap(views[std::size_t(self)], views, self, {}, rng);
        QCOMPARE(a.partner, std::int64_t(expected));
        checkSwapRecord(a, sets[std::size_t(self)], sets[std::size_t(expected)]);
        const Augmented m = augment::pointMixup(views[std::size_t(self)], views, self);
        QCOMPARE(m.partner, std::int64_t(expected));
        // Without `self`, x's own copy among the candidates is its nearest.
        QCOMPARE(augment::nearestByEmd(views[std::size_t(self)], views).index, std::int64_t(self));
    }
}

// Table 11: (1) random partner, swaps without the assignment; (2) random partner, swaps
// along the assignment; (3) EMD-nearest partner, swaps without the assignment.
void TestAugment::variantsOfTable11()
{
    std::mt19937 g(31);
    std::vector<Set> sets;
    for (int c = 0; c < 5; ++c)
        sets.push_back(randomSet(g, 4, 2, 1.0f, 0.5f * float(c)));
    std::vector<ot::PointSet> views;
    for (const auto& s : sets)
        views.push_back(s.view());
    const int self = 0;
    std::vector<Plan> plans;
    for (const auto& s : sets) {
        plans.push_back(bruteForcePlan(sets[0], s));
        QVERIFY(plans.back().unique);
    }
    const int nearest = int(augment::nearestByEmd(views[0], views, self).index);
    const int draws = 2000;

    QCOMPARE(augment::PointSwapOptions::variant(0).substitute, augment::SubstituteChoice::Assignment);
    QCOMPARE(augment::PointSwapOptions::variant(0).partner, augment::PartnerChoice::NearestEmd);
    for (const int v : {1, 2, 3}) {
        const auto o = augment::PointSwapOptions::variant(v, 1.0);
        augment::Rng rng(v);
        std::vector<double> partners(5, 0.0), substitutes(4, 0.0);
        double alongFlow = 0, swaps = 0;
        for (int t = 0; t < draws; ++t) {
            const Augmented a = augment::pointSwap(views[0], views, self, o, rng);
            QVERIFY(a.partner != self);
            checkSwapRecord(a, sets[0], sets[std::size_t(a.partner)]);
            QCOMPARE(a.changes.size(), std::size_t(4));
            partners[std::size_t(a.partner)] += 1;
            for (const auto& c : a.changes) {
                const bool flow = plans[std::size_t(a.partner)].F[std::size_t(c.element)][std::size_t(c.partnerElement)] > 0;
                alongFlow += flow;
                swaps += 1;
                substitutes[std::size_t(c.partnerElement)] += 1;
                if (v == 2)
                    QVERIFY(flow && std::abs(c.flow - 1.0) < 1e-9);
                else
                    QCOMPARE(c.flow, 0.0);
            }
        }
        if (v == 3) {
            QCOMPARE(partners[std::size_t(nearest)], double(draws));
        } else {
            QCOMPARE(partners[0], 0.0);
            for (int c = 1; c < 5; ++c)
                QVERIFY2(within4Sigma(partners[std::size_t(c)], draws, 0.25, 0.25 * 0.75),
                         qPrintable(QString("variant %1: partner %2 chosen %3 times").arg(v).arg(c).arg(partners[std::size_t(c)])));
        }
        if (v != 2) {
            // Without the assignment a substitute is any partner element, uniformly: only a
            // quarter of them are the one the flow would pick.
            for (double s : substitutes)
                QVERIFY(within4Sigma(s, swaps, 0.25, 0.25 * 0.75));
            QVERIFY(within4Sigma(alongFlow, swaps, 0.25, 0.25 * 0.75));
        }
    }
    expectThrow([] { augment::PointSwapOptions::variant(4); }, "variant must be 0");
}

void TestAugment::dropKeepRate_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("p");
    QTest::newRow("documents n=10") << 10 << augment::kPointDropDocuments;
    QTest::newRow("graphs n=3") << 3 << augment::kPointDropGraphs;
    QTest::newRow("graphs n=25") << 25 << augment::kPointDropGraphs;
    QTest::newRow("n=1") << 1 << 0.5;
    QTest::newRow("p=0") << 8 << 0.0;
    QTest::newRow("p=1") << 8 << 1.0;
}

// Kept elements: K = max(B, 1) with B ~ Binomial(n, 1 - p) (the rule "keep at least one").
// Their mean over many draws is within 4σ of E[K]; every kept element is x's, in order, with
// its weight rescaled to x's total; the record lists exactly the dropped ones.
void TestAugment::dropKeepRate()
{
    QFETCH(int, n);
    QFETCH(double, p);
    std::mt19937 g(4);
    Set x = randomSet(g, n, 3);
    std::uniform_real_distribution<float> uw(0.1f, 2.0f);
    for (auto& w : x.w)
        w = uw(g);
    const double total = std::accumulate(x.w.begin(), x.w.end(), 0.0);
    double mean = 0, second = 0;
    for (int k = 0; k <= n; ++k) {
        const double kk = std::max(k, 1);
        mean += kk * binomPmf(n, k, 1 - p);
        second += kk * kk * binomPmf(n, k, 1 - p);
    }
    augment::Rng rng(77);
    const int draws = 4000;
    double kept = 0;
    for (int t = 0; t < draws; ++t) {
        const Augmented a = augment::pointDrop(x.view(), {p}, rng);
        QVERIFY(a.n >= 1);
        QCOMPARE(a.n + std::int64_t(a.changes.size()), x.n());
        kept += double(a.n);
        std::vector<char> dropped(std::size_t(n), 0);
        for (const auto& c : a.changes) {
            QCOMPARE(c.kind, ChangeKind::Dropped);
            QCOMPARE(c.output, std::int64_t(-1));
            dropped[std::size_t(c.element)] = 1;
        }
        std::int64_t k = 0;
        double keptWeight = 0;
        for (std::int64_t i = 0; i < n; ++i)
            if (!dropped[std::size_t(i)]) {
                QVERIFY(sameRow(a.points.data() + k * 3, x.row(i), 3));
                keptWeight += x.w[std::size_t(i)];
                ++k;
            }
        QCOMPARE(k, a.n);
        double sum = 0;
        for (std::int64_t i = 0, o = 0; i < n; ++i)
            if (!dropped[std::size_t(i)]) {
                QVERIFY(std::abs(a.weights[std::size_t(o)] - x.w[std::size_t(i)] * total / keptWeight) < 1e-5);
                sum += a.weights[std::size_t(o++)];
            }
        QVERIFY(std::abs(sum - total) < 1e-5 * total);
    }
    QVERIFY2(within4Sigma(kept, draws, mean, second - mean * mean),
             qPrintable(QString("kept %1 elements in %2 draws, expected %3 per draw").arg(kept).arg(draws).arg(mean)));
}

// p = 1 drops everything but one element of positive weight, uniformly chosen; a
// zero-weight element is never the one kept.
void TestAugment::dropNeverEmpty()
{
    Set x;
    x.d = 1;
    x.p = {0, 1, 2, 3, 4};
    x.w = {0, 1, 1, 1, 1};
    augment::Rng rng(5);
    std::vector<double> chosen(5, 0.0);
    const int draws = 4000;
    for (int t = 0; t < draws; ++t) {
        const Augmented a = augment::pointDrop(x.view(), {1.0}, rng);
        QCOMPARE(a.n, std::int64_t(1));
        QCOMPARE(a.weights[0], 4.0f);
        chosen[std::size_t(a.points[0])] += 1;
    }
    QCOMPARE(chosen[0], 0.0);
    for (int i = 1; i < 5; ++i)
        QVERIFY(within4Sigma(chosen[std::size_t(i)], draws, 0.25, 0.25 * 0.75));
}

// Three points each, unit weights, far apart: the optimal assignment is
// (0,0)->(1,1), (10,0)->(11,0), (0,10)->(0,11) (cost √2 + 1 + 1; any other pairing moves a
// point by about 10). λ = 0.5 gives the midpoints, λ = 0 gives x, λ = 1 the partner.
void TestAugment::mixupMidpointsHandSolved()
{
    Set x, y;
    x.d = y.d = 2;
    x.p = {0, 0, 10, 0, 0, 10};
    y.p = {0, 11, 1, 1, 11, 0};
    x.w = y.w = {1, 1, 1};
    const Augmented a = augment::pointMixupWith(x.view(), y.view(), 3);
    QCOMPARE(a.n, std::int64_t(3));
    QCOMPARE(a.points, (std::vector<float>{0.5f, 0.5f, 10.5f, 0.0f, 0.0f, 10.5f}));
    QCOMPARE(a.weights, (std::vector<float>{1, 1, 1}));
    QCOMPARE(a.partner, std::int64_t(3));
    QVERIFY(std::abs(a.partnerEmd - (std::sqrt(2.0) + 2) / 3) < 1e-6);
    QCOMPARE(a.changes.size(), std::size_t(3));
    const std::int64_t partnerOf[3] = {1, 2, 0};
    for (std::int64_t i = 0; i < 3; ++i) {
        const auto& c = a.changes[std::size_t(i)];
        QCOMPARE(c.kind, ChangeKind::Mixed);
        QCOMPARE(c.element, i);
        QCOMPARE(c.output, i);
        QCOMPARE(c.partnerSet, std::int64_t(3));
        QCOMPARE(c.partnerElement, partnerOf[i]);
        QVERIFY(std::abs(c.flow - 1.0) < 1e-12);
    }
    QCOMPARE(augment::pointMixupWith(x.view(), y.view(), 0, {0.0}).points, x.p);
    QCOMPARE(augment::pointMixupWith(x.view(), y.view(), 0, {1.0}).points,
             (std::vector<float>{1, 1, 11, 0, 0, 11}));
    const Augmented q = augment::pointMixupWith(x.view(), y.view(), 0, {0.25});
    QCOMPARE(q.points, (std::vector<float>{0.25f, 0.25f, 10.25f, 0.0f, 0.0f, 10.25f}));
}

// Sets of different sizes and masses, hand-solved: one element split over two partner
// elements; two elements into one; x heavier, its far element left unmoved.
void TestAugment::mixupUnequalSizesAndMasses()
{
    Set x, y;
    x.d = y.d = 2;
    // x = {(0,0) weight 2}, y = {(-1,0), (1,0)} weight 1 each: two arcs of flow 1.
    x.p = {0, 0};
    x.w = {2};
    y.p = {-1, 0, 1, 0};
    y.w = {1, 1};
    Augmented a = augment::pointMixupWith(x.view(), y.view(), 0);
    QCOMPARE(a.points, (std::vector<float>{-0.5f, 0, 0.5f, 0}));
    QCOMPARE(a.weights, (std::vector<float>{1, 1}));
    QCOMPARE(a.changes.size(), std::size_t(2));
    QCOMPARE(a.changes[0].element, std::int64_t(0));
    QCOMPARE(a.changes[1].element, std::int64_t(0));
    QCOMPARE(a.changes[0].partnerElement, std::int64_t(0));
    QCOMPARE(a.changes[1].partnerElement, std::int64_t(1));
    QCOMPARE(a.changes[1].output, std::int64_t(1));

    // The reverse: x = {(-1,0), (1,0)}, y = {(0,2) weight 2}.
    Set x2 = y, y2;
    y2.d = 2;
    y2.p = {0, 2};
    y2.w = {2};
    a = augment::pointMixupWith(x2.view(), y2.view(), 0);
    QCOMPARE(a.points, (std::vector<float>{-0.5f, 1, 0.5f, 1}));
    QCOMPARE(a.weights, (std::vector<float>{1, 1}));

    // x heavier: {(0,0), (100,0)} against {(1,0)}, unit weights. Only (0,0) moves; (100,0)
    // stays as it is with its weight, the mixed set keeps x's total weight.
    Set x3, y3;
    x3.d = y3.d = 2;
    x3.p = {0, 0, 100, 0};
    x3.w = {1, 1};
    y3.p = {1, 0};
    y3.w = {1};
    a = augment::pointMixupWith(x3.view(), y3.view(), 0);
    QCOMPARE(a.points, (std::vector<float>{0.5f, 0, 100, 0}));
    QCOMPARE(a.weights, (std::vector<float>{1, 1}));
    QCOMPARE(a.changes.size(), std::size_t(1));
    QCOMPARE(a.changes[0].element, std::int64_t(0));
    QCOMPARE(a.changes[0].output, std::int64_t(0));

    // Random sets of different sizes: one element per arc of the independent plan, at the
    // midpoint of its ends, with the arc's flow as weight.
    std::mt19937 g(12);
    for (int trial = 0; trial < 6; ++trial) {
        const Set xs = randomSet(g, 2, 2, 3.0f), ys = randomSet(g, 3, 2, 2.0f);
        const Plan plan = bruteForcePlan(xs, ys);
        QVERIFY(plan.unique);
        const Augmented m = augment::pointMixupWith(xs.view(), ys.view(), 0);
        int arcs = 0;
        for (const auto& row : plan.F)
            for (double f : row)
                arcs += f > 0;
        QCOMPARE(m.n, std::int64_t(arcs));
        QCOMPARE(m.changes.size(), std::size_t(arcs));
        for (const auto& c : m.changes) {
            const double f = plan.F[std::size_t(c.element)][std::size_t(c.partnerElement)];
            QVERIFY(f > 0);
            QVERIFY(std::abs(c.flow - f) < 1e-9);
            QVERIFY(std::abs(m.weights[std::size_t(c.output)] - f) < 1e-6);
            for (int k = 0; k < 2; ++k)
                QVERIFY(std::abs(m.points[std::size_t(c.output * 2 + k)] -
                                 0.5 * (xs.row(c.element)[k] + ys.row(c.partnerElement)[k])) < 1e-6);
        }
    }
}

void TestAugment::sameSeedSameOutput()
{
    std::mt19937 g(2);
    std::vector<Set> sets;
    for (int c = 0; c < 4; ++c)
        sets.push_back(randomSet(g, 64, 3));
    std::vector<ot::PointSet> views;
    for (const auto& s : sets)
        views.push_back(s.view());
    auto swap = [&](std::uint64_t seed, int variant) {
        augment::Rng rng(seed);
        return augment::pointSwap(views[0], views, 0, augment::PointSwapOptions::variant(variant), rng);
    };
    auto drop = [&](std::uint64_t seed) {
        augment::Rng rng(seed);
        return augment::pointDrop(views[0], {}, rng);
    };
    auto records = [](const Augmented& a) {
        std::vector<std::int64_t> r;
        for (const auto& c : a.changes)
            r.insert(r.end(), {c.element, c.partnerSet, c.partnerElement});
        return r;
    };
    for (const int v : {0, 1, 2, 3}) {
        const Augmented a = swap(9, v), b = swap(9, v), c = swap(10, v);
        QCOMPARE(a.points, b.points);
        QCOMPARE(records(a), records(b));
        // 64 elements each swapped with probability 1/2: another seed that gave the same
        // swaps would be a broken generator, not luck (2^-64).
        QVERIFY(records(a) != records(c));
        QVERIFY(a.points != c.points);
    }
    const Augmented a = drop(9), b = drop(9), c = drop(10);
    QCOMPARE(a.points, b.points);
    QCOMPARE(records(a), records(b));
    QVERIFY(records(a) != records(c));
}

void TestAugment::givenFlowGivesTheSameResult()
{
    // pointSwapWithFlow / pointMixupWithFlow on the flow ot::emd returns are pointSwapWith /
    // pointMixupWith: same draws, same sets, same records.
    std::mt19937 g(3);
    for (int t = 0; t < 6; ++t) {
        const Set x = randomSet(g, 5 + t, 3, 1.0f + 0.1f * float(t)), y = randomSet(g, 7, 3, 1.0f, 0.5f);
        ot::EmdOptions eo;
        eo.flows = true;
        const std::vector<ot::Flow> flow = ot::emd(x.view(), y.view(), eo).flows;
        for (const int v : {0, 2, 3}) {
            auto o = augment::PointSwapOptions::variant(v, 0.6);
            o.pick = t % 2 ? augment::FlowPick::Largest : augment::FlowPick::Proportional;
            augment::Rng r1(100 + t), r2(100 + t);
            const Augmented a = augment::pointSwapWith(x.view(), y.view(), 4, o, r1);
            const Augmented b = augment::pointSwapWithFlow(x.view(), y.view(), 4, flow, o, r2);
            QCOMPARE(a.points, b.points);
            QCOMPARE(a.weights, b.weights);
            QCOMPARE(a.changes.size(), b.changes.size());
            for (std::size_t k = 0; k < a.changes.size(); ++k) {
                QCOMPARE(a.changes[k].element, b.changes[k].element);
                QCOMPARE(a.changes[k].partnerElement, b.changes[k].partnerElement);
                QCOMPARE(a.changes[k].flow, b.changes[k].flow);
            }
            QCOMPARE(r1(), r2()); // as many draws
        }
        const Augmented a = augment::pointMixupWith(x.view(), y.view(), 1, {0.4});
        const Augmented b = augment::pointMixupWithFlow(x.view(), y.view(), 1, flow, {0.4});
        QCOMPARE(a.points, b.points);
        QCOMPARE(a.weights, b.weights);
        QCOMPARE(a.changes.size(), b.changes.size());
    }
}

void TestAugment::badGivenFlow()
{
    std::mt19937 g(4);
    const Set x = randomSet(g, 3, 2), y = randomSet(g, 4, 2);
    augment::Rng rng(1);
    const std::vector<std::pair<std::vector<ot::Flow>, QString>> cases{
        {{{3, 0, 1.0}}, "flow arc 0 (3 -> 0): element 3 of set x is out of range"},
        {{{0, 4, 1.0}}, "flow arc 0 (0 -> 4): element 4 of the partner set is out of range"},
        {{{0, 1, 1.0}, {0, 1, 1.0}}, "flow arc 1 (0 -> 1): not after arc 0"},
        {{{1, 0, 1.0}, {0, 2, 1.0}}, "flow arc 1 (0 -> 2): not after arc 0"},
        {{{0, 0, 0.0}}, "flow arc 0 (0 -> 0): amount 0 is not positive and finite"},
        {{{0, 0, std::nan("")}}, "flow arc 0 (0 -> 0): amount nan is not positive and finite"},
    };
    for (const auto& [flow, message] : cases) {
        expectThrow([&] { augment::pointSwapWithFlow(x.view(), y.view(), 0, flow, {}, rng); }, "PointSwap: " + message);
        expectThrow([&] { augment::pointMixupWithFlow(x.view(), y.view(), 0, flow); }, "PointMixup: " + message);
    }
    // A uniform substitute does not read the flow.
    augment::pointSwapWithFlow(x.view(), y.view(), 0, cases[0].first, augment::PointSwapOptions::variant(3), rng);
}

void TestAugment::badInput()
{
    std::mt19937 g(1);
    const Set x = randomSet(g, 3, 2), y = randomSet(g, 3, 2), z = randomSet(g, 3, 4);
    augment::Rng rng(1);
    for (const double omega : {-0.1, 1.5, std::nan("")}) {
        augment::PointSwapOptions o;
        o.omega = omega;
        expectThrow([&] { augment::pointSwapWith(x.view(), y.view(), 0, o, rng); }, "PointSwap: omega must be in [0, 1]");
        const std::vector<ot::PointSet> c{x.view(), y.view()};
        expectThrow([&] { augment::pointSwap(x.view(), c, 0, o, rng); }, "PointSwap: omega must be in [0, 1]");
        expectThrow([&] { augment::pointDrop(x.view(), {omega}, rng); }, "PointDrop: p must be in [0, 1]");
        expectThrow([&] { augment::pointMixupWith(x.view(), y.view(), 0, {omega}); },
                    "PointMixup: lambda must be in [0, 1]");
    }
    const ot::PointSet empty{x.p.data(), x.w.data(), 0, 2};
    expectThrow([&] { augment::pointSwapWith(empty, y.view(), 0, {}, rng); }, "PointSwap: set x is empty");
    expectThrow([&] { augment::pointSwapWith(x.view(), empty, 0, {}, rng); }, "PointSwap: partner set is empty");
    expectThrow([&] { augment::pointDrop(empty, {}, rng); }, "PointDrop: set x is empty");
    expectThrow([&] { augment::pointMixupWith(x.view(), z.view(), 0); }, "dimension 2 but the partner set has 4");
    expectThrow([&] { augment::pointSwapWith(x.view(), z.view(), 0, augment::PointSwapOptions::variant(1), rng); },
                "dimension 2 but the partner set has 4");
    Set nan = y;
    nan.p[3] = std::nanf("");
    expectThrow([&] { augment::pointSwapWith(x.view(), nan.view(), 0, {}, rng); }, "partner set: element 1, component 1 is NaN");
    const std::vector<ot::PointSet> cands{x.view(), y.view(), nan.view()};
    expectThrow([&] { augment::pointSwap(x.view(), cands, 0, {}, rng); }, "candidate 2: element 1, component 1 is NaN");
    const std::vector<ot::PointSet> mixed{x.view(), z.view()};
    expectThrow([&] { augment::nearestByEmd(x.view(), mixed, 0); }, "candidate 1 has 4");
    const std::vector<ot::PointSet> alone{x.view()};
    expectThrow([&] { augment::pointSwap(x.view(), alone, 0, {}, rng); }, "no candidate besides set x");
    expectThrow([&] { augment::pointSwap(x.view(), alone, 0, augment::PointSwapOptions::variant(1), rng); },
                "no candidate partner besides set x");
    Set zero = x;
    zero.w = {0, 0, 0};
    expectThrow([&] { augment::pointDrop(zero.view(), {}, rng); }, "set x has zero total weight");
}

QTEST_GUILESS_MAIN(TestAugment)
#include "tst_Augment.moc"
