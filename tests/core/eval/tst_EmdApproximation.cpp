// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/eval/EmdApproximation.h"
#include "core/job/Job.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

using namespace setscope;
using eval::MatrixView;

namespace {

/// A symmetric table of "exact EMDs", as a test would have from a solver it trusts.
struct Table {
    std::map<std::pair<std::int64_t, std::int64_t>, double> v;
    void set(std::int64_t i, std::int64_t j, double d)
    {
        v[{i, j}] = d;
        v[{j, i}] = d;
    }
    eval::PairDistance fn() const
    {
        return [this](std::int64_t i, std::int64_t j) { return v.at({i, j}); };
    }
};

/// The paper's kernel, written out here rather than taken from the code under test.
double G(double x, double sigma) { return std::exp(-x * x / (2 * sigma * sigma)) / std::sqrt(2 * M_PI * sigma * sigma); }

std::vector<float> randomEmbedding(int n, int d, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0, 0.7f);
    std::vector<float> x(std::size_t(n) * std::size_t(d));
    for (float& v : x)
        v = g(rng);
    return x;
}

double sqDist(const std::vector<float>& x, int d, std::int64_t i, std::int64_t j)
{
    double s = 0;
    for (int k = 0; k < d; ++k) {
        const double t = double(x[std::size_t(i * d + k)]) - double(x[std::size_t(j * d + k)]);
        s += t * t;
    }
    return s;
}

/// "EMD" of a random table: a noisy function of the squared embedding distance, symmetric,
/// so the metrics are non-trivial.
Table noisyTable(const std::vector<float>& x, int n, int d, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.5, 1.5);
    Table t;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j)
            t.set(i, j, sqDist(x, d, i, j) * u(rng) + 0.1 * u(rng));
    return t;
}

} // namespace

class TestEmdApproximation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void kernelIsThePapersGaussian();
    void mseHandSolved();
    void mseIsThePapersLossOverOffDiagonalPairs();
    void mseThreadsAndSubsetsMatchBruteForce();
    void mseSampledPairs();
    void kdeHandSolved();
    void kdeLeavesTheQueryOut();
    void kdeMatchesBruteForce_data();
    void kdeMatchesBruteForce();
    void perfectEmbeddingScoresZero();
    void badInput();
    void errorsAndCancelFromWorkers();
};

void TestEmdApproximation::kernelIsThePapersGaussian()
{
    QCOMPARE(eval::gaussianKernel(0, 1), 0.3989422804014327); // 1 / sqrt(2 pi)
    QVERIFY(std::abs(eval::gaussianKernel(1, 1) - 0.24197072451914337) < 1e-16);
    QVERIFY(std::abs(eval::gaussianKernel(1, 2) - G(1, 2)) < 1e-16);
}

void TestEmdApproximation::mseHandSolved()
{
    // 1-d embedding 0, 1, 3: squared distances (0,1) 1, (0,2) 9, (1,2) 4; Euclidean 1, 3, 2.
    // EMDs 2, 9, 1. Squared: errors 1, 0, 9 -> 10/3. Euclidean: 1, 36, 1 -> 38/3.
    const std::vector<float> f{0, 1, 3};
    Table t;
    t.set(0, 1, 2);
    t.set(0, 2, 9);
    t.set(1, 2, 1);
    const MatrixView m{f.data(), 3, 1};
    const auto r = eval::emdApproximationMse(m, {0, 1, 2}, t.fn());
    QCOMPARE(r.pairs, std::int64_t(3));
    QVERIFY(!r.sampled);
    QVERIFY(std::abs(r.mse - 10.0 / 3) < 1e-15);
    QCOMPARE(r.meanEmd, 4.0);
    eval::EmdMseOptions o;
    o.distance = eval::EmbeddingDistance::Euclidean;
    QVERIFY(std::abs(eval::emdApproximationMse(m, {0, 1, 2}, t.fn(), o).mse - 38.0 / 3) < 1e-14);
    // Only the pair (0, 2).
    QCOMPARE(eval::emdApproximationMse(m, {2, 0}, t.fn()).mse, 0.0);
    QCOMPARE(eval::emdApproximationMse(m, {1}, t.fn()).pairs, std::int64_t(0));
}

void TestEmdApproximation::mseIsThePapersLossOverOffDiagonalPairs()
{
    // Seed 001 §7.1: L = 1/n² Σ_{i,j} (EMD(x_i, x_j) − ||f(x_i) − f(x_j)||²)², over all
    // ordered pairs with the (zero) diagonal: (n − 1) / n times the mean over i < j.
    const int n = 23, d = 4;
    const auto x = randomEmbedding(n, d, 9);
    const Table t = noisyTable(x, n, d, 10);
    double loss = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const double e = i == j ? 0.0 : t.v.at({i, j});
            loss += (e - sqDist(x, d, i, j)) * (e - sqDist(x, d, i, j));
        }
    loss /= double(n) * n;
    std::vector<std::int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    const auto r = eval::emdApproximationMse({x.data(), n, d}, all, t.fn());
    QVERIFY2(std::abs(r.mse * (n - 1) / n - loss) < 1e-12 * loss, qPrintable(QString::number(r.mse)));
}

void TestEmdApproximation::mseThreadsAndSubsetsMatchBruteForce()
{
    const int n = 40, d = 3;
    const auto x = randomEmbedding(n, d, 1);
    const Table t = noisyTable(x, n, d, 2);
    const std::vector<std::int64_t> items{3, 7, 8, 12, 20, 21, 30, 39, 0};
    double s = 0;
    int pairs = 0;
    for (std::size_t a = 0; a < items.size(); ++a)
        for (std::size_t b = a + 1; b < items.size(); ++b) {
            const double e = t.v.at({items[a], items[b]}) - sqDist(x, d, items[a], items[b]);
            s += e * e;
            ++pairs;
        }
    eval::EmdMseOptions o;
    o.threads = 1;
    const auto one = eval::emdApproximationMse({x.data(), n, d}, items, t.fn(), o);
    o.threads = 3;
    const auto three = eval::emdApproximationMse({x.data(), n, d}, items, t.fn(), o);
    QCOMPARE(one.pairs, std::int64_t(pairs));
    QVERIFY(std::abs(one.mse - s / pairs) < 1e-12 * one.mse);
    QCOMPARE(three.mse, one.mse); // summed in pair order whatever the threads
}

void TestEmdApproximation::mseSampledPairs()
{
    const int n = 60, d = 3;
    const auto x = randomEmbedding(n, d, 4);
    // EMD = squared distance + 0.25: every pair has error 0.25, so any sample has MSE 1/16.
    Table t;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j)
            t.set(i, j, sqDist(x, d, i, j) + 0.25);
    std::vector<std::int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    std::atomic<int> calls{0}, unordered{0};
    const eval::PairDistance counted = [&](std::int64_t i, std::int64_t j) {
        ++calls;
        unordered += i < j ? 0 : 1; // pairs are ordered, never an item with itself
        return t.v.at({i, j});
    };
    eval::EmdMseOptions o;
    o.maxPairs = 500; // of 1 770
    o.threads = 2;
    const auto r = eval::emdApproximationMse({x.data(), n, d}, all, counted, o);
    QVERIFY(r.sampled);
    QCOMPARE(r.pairs, std::int64_t(500));
    QCOMPARE(calls.load(), 500);
    QCOMPARE(unordered.load(), 0);
    QVERIFY(std::abs(r.mse - 0.0625) < 1e-12);
    // The same seed draws the same pairs; a large enough cap takes them all.
    QCOMPARE(eval::emdApproximationMse({x.data(), n, d}, all, counted, o).meanEmd, r.meanEmd);
    o.seed = 2;
    QVERIFY(eval::emdApproximationMse({x.data(), n, d}, all, counted, o).meanEmd != r.meanEmd);
    o.maxPairs = 1770;
    const auto full = eval::emdApproximationMse({x.data(), n, d}, all, counted, o);
    QVERIFY(!full.sampled);
    QCOMPARE(full.pairs, std::int64_t(1770));
}

void TestEmdApproximation::kdeHandSolved()
{
    // Query 0; references 1, 2, 3. Embedding (1-d): 0, 1, 0.5, 2, so squared distances from
    // the query are 1, 0.25, 4. EMDs from the query: 0.5, 2, 1. k = 2, σ = 1:
    //   true     = (G(0.5) + G(1)) / 2           exact neighbours 1, 3
    //   estimate = (G(0.25) + G(1)) / 2          embedding neighbours 2, 1
    //   "exact" neighbours re-measured: (G(1) + G(4)) / 2
    const std::vector<float> f{0, 1, 0.5f, 2};
    Table t;
    t.set(0, 1, 0.5);
    t.set(0, 2, 2);
    t.set(0, 3, 1);
    const MatrixView m{f.data(), 4, 1};
    eval::KdeOptions o;
    o.k = 2;
    const double truth = (G(0.5, 1) + G(1, 1)) / 2;
    const double est = (G(0.25, 1) + G(1, 1)) / 2;
    const auto r = eval::kdeDiscrepancy(m, {0}, {1, 2, 3}, t.fn(), o);
    QCOMPARE(r.queries, std::int64_t(1));
    QVERIFY(std::abs(r.truth[0] - truth) < 1e-15);
    QVERIFY(std::abs(r.estimate[0] - est) < 1e-15);
    QVERIFY(std::abs(r.discrepancy - std::abs(est - truth) / truth) < 1e-14);

    o.neighbours = eval::KdeNeighbours::Exact;
    const double estExact = (G(1, 1) + G(4, 1)) / 2;
    QVERIFY(std::abs(eval::kdeDiscrepancy(m, {0}, {1, 2, 3}, t.fn(), o).discrepancy - std::abs(estExact - truth) / truth) < 1e-14);

    // Euclidean embedding distance (1, 0.5, 2) and σ = 2.
    o.neighbours = eval::KdeNeighbours::Embedding;
    o.distance = eval::EmbeddingDistance::Euclidean;
    o.sigma = 2;
    const double truth2 = (G(0.5, 2) + G(1, 2)) / 2, est2 = (G(0.5, 2) + G(1, 2)) / 2; // neighbours 2 (0.5), 1 (1)
    QVERIFY(std::abs(eval::kdeDiscrepancy(m, {0}, {1, 2, 3}, t.fn(), o).discrepancy - std::abs(est2 - truth2) / truth2) < 1e-14);
}

void TestEmdApproximation::kdeLeavesTheQueryOut()
{
    // The query listed among the references is not its own neighbour (by index), and k larger
    // than the references takes them all.
    const std::vector<float> f{0, 1, 3};
    Table t;
    t.set(0, 1, 1);
    t.set(0, 2, 2);
    t.set(1, 2, 4);
    eval::KdeOptions o;
    o.k = 10;
    const auto r = eval::kdeDiscrepancy({f.data(), 3, 1}, {0, 1}, {0, 1, 2}, t.fn(), o);
    // Query 0: EMD 1, 2; squared 1, 9.  Query 1: EMD 1, 4; squared 1, 4.
    const double t0 = (G(1, 1) + G(2, 1)) / 2, e0 = (G(1, 1) + G(9, 1)) / 2;
    const double t1 = (G(1, 1) + G(4, 1)) / 2, e1 = (G(1, 1) + G(4, 1)) / 2;
    QCOMPARE(r.queries, std::int64_t(2));
    QVERIFY(std::abs(r.discrepancy - (std::abs(e0 - t0) / t0 + std::abs(e1 - t1) / t1) / 2) < 1e-14);
    // A query with no other reference is not scored.
    const auto none = eval::kdeDiscrepancy({f.data(), 3, 1}, {0}, {0}, t.fn(), o);
    QCOMPARE(none.queries, std::int64_t(0));
    QVERIFY(std::isnan(none.truth[0]));
}

void TestEmdApproximation::kdeMatchesBruteForce_data()
{
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("k");
    QTest::newRow("1 thread, k=10") << 1 << 10;
    QTest::newRow("3 threads, k=10") << 3 << 10;
    QTest::newRow("2 threads, k=1") << 2 << 1;
}

void TestEmdApproximation::kdeMatchesBruteForce()
{
    QFETCH(int, threads);
    QFETCH(int, k);
    const int n = 70, d = 3;
    const auto x = randomEmbedding(n, d, 5);
    const Table t = noisyTable(x, n, d, 6);
    std::vector<std::int64_t> queries, refs;
    for (std::int64_t i = 0; i < n; ++i)
        (i % 4 == 0 ? queries : refs).push_back(i);
    double sum = 0;
    for (std::int64_t q : queries) {
        std::vector<std::pair<double, std::int64_t>> byEmd, byEmb;
        for (std::int64_t r : refs) {
            byEmd.push_back({t.v.at({q, r}), r});
            byEmb.push_back({sqDist(x, d, q, r), r});
        }
        std::sort(byEmd.begin(), byEmd.end());
        std::sort(byEmb.begin(), byEmb.end());
        double tr = 0, es = 0;
        for (int j = 0; j < k; ++j) {
            tr += G(byEmd[std::size_t(j)].first, 1) / k;
            es += G(byEmb[std::size_t(j)].first, 1) / k;
        }
        sum += std::abs(es - tr) / tr;
    }
    eval::KdeOptions o;
    o.k = k;
    o.threads = threads;
    const auto r = eval::kdeDiscrepancy({x.data(), n, d}, queries, refs, t.fn(), o);
    QCOMPARE(r.queries, std::int64_t(queries.size()));
    QVERIFY2(std::abs(r.discrepancy - sum / double(queries.size())) < 1e-12,
             qPrintable(QString("%1 vs %2").arg(r.discrepancy).arg(sum / double(queries.size()))));
}

void TestEmdApproximation::perfectEmbeddingScoresZero()
{
    // EMD equal to the squared embedding distance: Approx.EMD's optimum. Both scores are 0.
    const int n = 30, d = 2;
    const auto x = randomEmbedding(n, d, 8);
    Table t;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j)
            t.set(i, j, sqDist(x, d, i, j));
    std::vector<std::int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    QVERIFY(eval::emdApproximationMse({x.data(), n, d}, all, t.fn()).mse < 1e-24);
    QVERIFY(eval::kdeDiscrepancy({x.data(), n, d}, all, all, t.fn()).discrepancy < 1e-12);
}

void TestEmdApproximation::badInput()
{
    const std::vector<float> f{0, 1};
    const MatrixView m{f.data(), 2, 1};
    const eval::PairDistance one = [](std::int64_t, std::int64_t) { return 1.0; };
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::emdApproximationMse(m, {0, 2}, one));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::emdApproximationMse(m, {0, 1}, {}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::kdeDiscrepancy(m, {-1}, {0, 1}, one));
    eval::KdeOptions o;
    o.k = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::kdeDiscrepancy(m, {0}, {1}, one, o));
    o.k = 1;
    o.sigma = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::kdeDiscrepancy(m, {0}, {1}, one, o));
    QCOMPARE(eval::parseEmbeddingDistance("euclidean"), eval::EmbeddingDistance::Euclidean);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::parseEmbeddingDistance("cosine"));
}

void TestEmdApproximation::errorsAndCancelFromWorkers()
{
    const int n = 50, d = 2;
    const auto x = randomEmbedding(n, d, 3);
    std::vector<std::int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    const eval::PairDistance failing = [](std::int64_t i, std::int64_t j) -> double {
        if (i == 7 || j == 7)
            throw std::runtime_error("item 7: bad set");
        return 1.0;
    };
    eval::EmdMseOptions mo;
    mo.threads = 2;
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, eval::emdApproximationMse({x.data(), n, d}, all, failing, mo));
    eval::KdeOptions ko;
    ko.threads = 2;
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, eval::kdeDiscrepancy({x.data(), n, d}, all, all, failing, ko));
    job::JobControl control;
    control.requestCancel();
    QVERIFY_THROWS_EXCEPTION(job::Cancelled, eval::emdApproximationMse({x.data(), n, d}, all, failing, mo, &control));
    QVERIFY_THROWS_EXCEPTION(job::Cancelled, eval::kdeDiscrepancy({x.data(), n, d}, all, all, failing, ko, &control));
}

QTEST_GUILESS_MAIN(TestEmdApproximation)
#include "tst_EmdApproximation.moc"
