// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/layout/Tsne.h"
#include "core/job/Job.h"
#include "tests/support/TimeFactor.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using setscope::layout::Tsne;
using setscope::layout::TsneOptions;
using setscope::job::Cancelled;
using setscope::job::JobControl;

namespace {

std::vector<float> gaussianData(int n, int d, std::uint64_t seed, double scale = 1.0)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, scale);
    std::vector<float> x(std::size_t(n) * d);
    for (float& v : x)
        v = static_cast<float>(normal(rng));
    return x;
}

// `clusters` Gaussian blobs (unit variance) centred at 8 e_c: centres ~11 apart.
std::vector<float> clusterData(int clusters, int perCluster, int d, std::uint64_t seed,
                               std::vector<int>* labels)
{
    std::vector<float> x = gaussianData(clusters * perCluster, d, seed);
    labels->clear();
    for (int c = 0; c < clusters; ++c) {
        for (int k = 0; k < perCluster; ++k) {
            const int n = c * perCluster + k;
            x[std::size_t(n) * d + c % d] += 8.0f;
            labels->push_back(c);
        }
    }
    return x;
}

double sqDist(const float* x, int d, int a, int b)
{
    double s = 0.0;
    for (int k = 0; k < d; ++k) {
        const double t = double(x[a * d + k]) - x[b * d + k];
        s += t * t;
    }
    return s;
}

// Fraction of points whose nearest neighbour in the 2-D map has the same label.
double oneNnAgreement(const std::vector<float>& y, const std::vector<int>& labels)
{
    const int n = static_cast<int>(labels.size());
    int same = 0;
    for (int i = 0; i < n; ++i) {
        int best = -1;
        double bestD = 1e300;
        for (int j = 0; j < n; ++j) {
            if (j == i)
                continue;
            const double dd = sqDist(y.data(), 2, i, j);
            if (dd < bestD) {
                bestD = dd;
                best = j;
            }
        }
        same += labels[best] == labels[i];
    }
    return double(same) / n;
}

// Straight from the paper: dC/dy_i = 4 sum_j (p_ij - q_ij)(y_i - y_j)(1 + |y_i - y_j|²)^-1.
std::vector<double> referenceGradient(const std::vector<double>& p, const std::vector<double>& y,
                                      double exaggeration)
{
    const std::size_t n = y.size() / 2;
    std::vector<double> num(n * n, 0.0);
    double z = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j) {
                const double dx = y[2 * i] - y[2 * j], dy = y[2 * i + 1] - y[2 * j + 1];
                num[i * n + j] = 1.0 / (1.0 + dx * dx + dy * dy);
                z += num[i * n + j];
            }
    std::vector<double> g(2 * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j) {
                const double m = (exaggeration * p[i * n + j] - num[i * n + j] / z) * num[i * n + j];
                g[2 * i] += 4.0 * m * (y[2 * i] - y[2 * j]);
                g[2 * i + 1] += 4.0 * m * (y[2 * i + 1] - y[2 * j + 1]);
            }
    return g;
}

double referenceKl(const std::vector<double>& p, const std::vector<double>& y)
{
    const std::size_t n = y.size() / 2;
    double z = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j) {
                const double dx = y[2 * i] - y[2 * j], dy = y[2 * i + 1] - y[2 * j + 1];
                z += 1.0 / (1.0 + dx * dx + dy * dy);
            }
    double kl = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (i != j && p[i * n + j] > 0.0) {
                const double dx = y[2 * i] - y[2 * j], dy = y[2 * i + 1] - y[2 * j + 1];
                const double q = 1.0 / (1.0 + dx * dx + dy * dy) / z;
                kl += p[i * n + j] * std::log(p[i * n + j] / q);
            }
    return kl;
}

// The optimiser of bhtsne's exact mode (gradient without the factor 4, gains +0.2 / *0.8
// with a floor of 0.01, momentum, learning rate, re-centring), written out plainly.
struct ReferenceOptimizer {
    std::vector<double> y, update, gains;
    int iter = 0;
    bool warm = false;
    TsneOptions opt;

    void step(const std::vector<double>& p)
    {
        const bool exaggerate = !warm && iter < opt.exaggerationIterations;
        const double momentum = (warm || iter >= 250) ? 0.8 : 0.5;
        const std::vector<double> g = referenceGradient(p, y, exaggerate ? opt.earlyExaggeration : 1.0);
        auto sign = [](double v) { return v == 0.0 ? 0.0 : (v < 0.0 ? -1.0 : 1.0); };
        for (std::size_t k = 0; k < y.size(); ++k) {
            const double dy = g[k] / 4.0;
            gains[k] = sign(dy) != sign(update[k]) ? gains[k] + 0.2 : gains[k] * 0.8;
            gains[k] = std::max(gains[k], 0.01);
            update[k] = momentum * update[k] - opt.learningRate * gains[k] * dy;
            y[k] += update[k];
        }
        const std::size_t n = y.size() / 2;
        double cx = 0.0, cy = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            cx += y[2 * i];
            cy += y[2 * i + 1];
        }
        for (std::size_t i = 0; i < n; ++i) {
            y[2 * i] -= cx / n;
            y[2 * i + 1] -= cy / n;
        }
        ++iter;
    }
};

std::vector<double> toDouble(const std::vector<float>& v) { return {v.begin(), v.end()}; }

double maxAbsDiff(const std::vector<float>& a, const std::vector<double>& b)
{
    double m = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k)
        m = std::max(m, std::abs(double(a[k]) - b[k]));
    return m;
}

double maxAbs(const std::vector<double>& v)
{
    double m = 0.0;
    for (double x : v)
        m = std::max(m, std::abs(x));
    return m;
}

double rmsRadius(const std::vector<float>& y)
{
    const std::size_t n = y.size() / 2;
    double cx = 0.0, cy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        cx += y[2 * i];
        cy += y[2 * i + 1];
    }
    cx /= n;
    cy /= n;
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        s += (y[2 * i] - cx) * (y[2 * i] - cx) + (y[2 * i + 1] - cy) * (y[2 * i + 1] - cy);
    return std::sqrt(s / n);
}

double meanDisplacement(const std::vector<float>& a, const std::vector<float>& b)
{
    const std::size_t n = a.size() / 2;
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        s += std::hypot(double(a[2 * i]) - b[2 * i], double(a[2 * i + 1]) - b[2 * i + 1]);
    return s / n;
}

} // namespace

class TestTsne : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void conditionalRowsMatchPerplexity();
    void perplexityIsClampedForSmallSets();
    void klDivergenceMatchesDefinition();
    void gradientMatchesFiniteDifferences();
    void updateRuleMatchesReference_data();
    void updateRuleMatchesReference();
    void separatesGaussianClusters();
    void warmStartKeepsConvergedMapStill();
    void cancelStopsStepPromptly();
    void pauseBlocksStep();
    void sameSeedSameMap();
    void maxIterationsIsRespected();
    void tinyInputs();
    void invalidInput();
};

// Each conditional row is a Gaussian in the input distances (log p_j|i linear in d_ij²)
// whose entropy is log(perplexity); the symmetrised P is (P_c + P_cᵀ) / 2n. Entropies and
// distances are computed here, independently of the code under test.
void TestTsne::conditionalRowsMatchPerplexity()
{
    const int n = 150, d = 5;
    const double perplexity = 30.0;
    std::vector<float> x = gaussianData(n, d, 11);
    for (int i = 0; i < n; ++i)
        x[i * d] *= 1.0f + 3.0f * (i % 3); // uneven density, so rows need different precisions
    const std::vector<double> pc = Tsne::conditionalAffinities(x.data(), n, d, perplexity);
    QCOMPARE(pc.size(), std::size_t(n) * n);

    for (int i = 0; i < n; ++i) {
        const double* row = pc.data() + std::size_t(i) * n;
        QCOMPARE(row[i], 0.0);
        double sum = 0.0, entropy = 0.0;
        for (int j = 0; j < n; ++j) {
            sum += row[j];
            if (row[j] > 0.0)
                entropy -= row[j] * std::log(row[j]);
        }
        QVERIFY(std::abs(sum - 1.0) < 1e-12);
        QVERIFY2(std::abs(entropy - std::log(perplexity)) < 2e-5,
                 qPrintable(QString("row %1: H = %2, log(30) = %3").arg(i).arg(entropy).arg(std::log(perplexity))));

        // Gaussian shape: beta from the nearest and the farthest (non-underflowed) neighbour,
        // then every other entry must lie on the same line.
        int a = -1, b = -1;
        for (int j = 0; j < n; ++j) {
            if (j == i || row[j] < 1e-250)
                continue;
            if (a < 0 || sqDist(x.data(), d, i, j) < sqDist(x.data(), d, i, a))
                a = j;
            if (b < 0 || sqDist(x.data(), d, i, j) > sqDist(x.data(), d, i, b))
                b = j;
        }
        const double da = sqDist(x.data(), d, i, a), db = sqDist(x.data(), d, i, b);
        QVERIFY(db > da);
        const double beta = (std::log(row[a]) - std::log(row[b])) / (db - da);
        QVERIFY(beta > 0.0);
        for (int j = 0; j < n; ++j) {
            if (j == i || row[j] < 1e-250)
                continue;
            const double predicted = std::log(row[a]) - beta * (sqDist(x.data(), d, i, j) - da);
            QVERIFY2(std::abs(std::log(row[j]) - predicted) < 1e-6 * (1.0 + std::abs(predicted)),
                     qPrintable(QString("row %1 entry %2").arg(i).arg(j)));
        }
    }

    TsneOptions opt;
    opt.perplexity = perplexity;
    const Tsne tsne(x.data(), n, d, opt);
    QCOMPARE(tsne.perplexity(), perplexity);
    const std::vector<double>& p = tsne.inputAffinities();
    double total = 0.0;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            const double want = (pc[std::size_t(i) * n + j] + pc[std::size_t(j) * n + i]) / (2.0 * n);
            QVERIFY(std::abs(p[std::size_t(i) * n + j] - want) <= 1e-15 + 1e-12 * want);
            total += p[std::size_t(i) * n + j];
        }
    }
    QVERIFY(std::abs(total - 1.0) < 1e-12);
}

void TestTsne::perplexityIsClampedForSmallSets()
{
    QCOMPARE(Tsne::effectivePerplexity(30.0, 10), 3.0);
    QCOMPARE(Tsne::effectivePerplexity(30.0, 91), 30.0);
    QCOMPARE(Tsne::effectivePerplexity(5.0, 1000), 5.0);
    QCOMPARE(Tsne::effectivePerplexity(30.0, 2), 1.0);
    QCOMPARE(Tsne::effectivePerplexity(30.0, 3), 1.0);

    const int n = 10, d = 3;
    const std::vector<float> x = gaussianData(n, d, 5);
    const std::vector<double> pc = Tsne::conditionalAffinities(x.data(), n, d, 30.0);
    for (int i = 0; i < n; ++i) {
        double entropy = 0.0;
        for (int j = 0; j < n; ++j)
            if (pc[std::size_t(i) * n + j] > 0.0)
                entropy -= pc[std::size_t(i) * n + j] * std::log(pc[std::size_t(i) * n + j]);
        QVERIFY(std::abs(entropy - std::log(3.0)) < 2e-5);
    }
}

void TestTsne::klDivergenceMatchesDefinition()
{
    const int n = 25, d = 4;
    const std::vector<float> x = gaussianData(n, d, 21);
    Tsne tsne(x.data(), n, d);
    const std::vector<float> y0 = gaussianData(n, 2, 22);
    tsne.initialize(y0.data());
    const double want = referenceKl(tsne.inputAffinities(), toDouble(y0));
    QVERIFY(std::abs(tsne.klDivergence() - want) < 1e-10 * std::max(1.0, want));
}

// gradient() against central differences of klDivergence(). The map's coordinates and the
// step are powers of two, so y ± h is exact in float.
void TestTsne::gradientMatchesFiniteDifferences()
{
    const int n = 20, d = 4;
    const std::vector<float> x = gaussianData(n, d, 31);
    Tsne tsne(x.data(), n, d);
    std::mt19937_64 rng(32);
    std::uniform_int_distribution<int> grid(-512, 512);
    std::vector<float> y(2 * n);
    for (float& v : y)
        v = grid(rng) / 256.0f;
    tsne.initialize(y.data());
    const std::vector<double> g = tsne.gradient();
    QCOMPARE(g.size(), std::size_t(2 * n));
    QVERIFY(maxAbs(g) > 1e-3);

    const float h = 1.0f / 1024.0f;
    for (int k = 0; k < 2 * n; ++k) {
        std::vector<float> yp = y, ym = y;
        yp[k] += h;
        ym[k] -= h;
        tsne.initialize(yp.data());
        const double fp = tsne.klDivergence();
        tsne.initialize(ym.data());
        const double fm = tsne.klDivergence();
        const double fd = (fp - fm) / (2.0 * h);
        QVERIFY2(std::abs(fd - g[k]) < 1e-4 * maxAbs(g) + 1e-9,
                 qPrintable(QString("coordinate %1: analytic %2, finite differences %3").arg(k).arg(g[k]).arg(fd)));
    }
}

void TestTsne::updateRuleMatchesReference_data()
{
    QTest::addColumn<int>("start"); // 0 random cold, 1 cold from a given map, 2 warm, 3 as 1 from a spread map
    QTest::addColumn<int>("exaggerationIterations");
    QTest::addColumn<int>("steps");
    QTest::addColumn<double>("learningRate");
    QTest::newRow("cold-random") << 0 << 250 << 6 << 200.0;
    QTest::newRow("cold-given") << 1 << 250 << 6 << 200.0;
    QTest::newRow("cold-short-exaggeration") << 1 << 3 << 8 << 200.0;
    QTest::newRow("warm") << 2 << 250 << 8 << 200.0;
    // A learning rate small enough for 30 points that the run is not chaotic, so the two
    // implementations stay together across the momentum switch at iteration 250.
    QTest::newRow("cold-past-momentum-switch") << 3 << 0 << 300 << 20.0;
}

// The first steps of each start against a plain re-implementation of the reference
// optimiser with the paper's gradient: exaggeration only on cold starts, momentum 0.5 cold
// and 0.8 warm, gains, learning rate, re-centring.
void TestTsne::updateRuleMatchesReference()
{
    QFETCH(int, start);
    QFETCH(int, exaggerationIterations);
    QFETCH(int, steps);
    QFETCH(double, learningRate);
    const int n = 30, d = 5;
    const std::vector<float> x = gaussianData(n, d, 41);
    TsneOptions opt;
    opt.perplexity = 8.0;
    opt.exaggerationIterations = exaggerationIterations;
    opt.learningRate = learningRate;
    Tsne tsne(x.data(), n, d, opt);

    const std::vector<float> given = gaussianData(n, 2, 42, start >= 2 ? 2.0 : 1e-2);
    if (start == 1 || start == 3)
        tsne.initializeCold(given.data());
    else if (start == 2)
        tsne.initialize(given.data());
    ReferenceOptimizer ref;
    ref.opt = opt;
    ref.warm = start == 2;
    ref.y = toDouble(tsne.embedding());
    ref.update.assign(2 * n, 0.0);
    ref.gains.assign(2 * n, 1.0);
    if (start != 0)
        QVERIFY(maxAbsDiff(tsne.embedding(), toDouble(given)) == 0.0);

    for (int s = 0; s < steps; ++s) {
        QCOMPARE(tsne.step(1), 1);
        ref.step(tsne.inputAffinities());
        QCOMPARE(tsne.iteration(), s + 1);
        const double scale = 1.0 + maxAbs(ref.y);
        QVERIFY2(maxAbsDiff(tsne.embedding(), ref.y) < 1e-5 * scale,
                 qPrintable(QString("step %1: %2").arg(s + 1).arg(maxAbsDiff(tsne.embedding(), ref.y))));
    }
}

void TestTsne::separatesGaussianClusters()
{
    std::vector<int> labels;
    const int d = 10;
    const std::vector<float> x = clusterData(4, 50, d, 51, &labels);
    Tsne tsne(x.data(), 200, d);
    tsne.step(50);
    const double earlyKl = tsne.klDivergence();
    QCOMPARE(tsne.step(5000), 950);
    QVERIFY(tsne.done());
    QVERIFY(tsne.klDivergence() < earlyKl);
    const double agreement = oneNnAgreement(tsne.embedding(), labels);
    QVERIFY2(agreement > 0.95, qPrintable(QString("1-NN agreement %1").arg(agreement)));
}

// A warm start from a converged map barely moves it: no more than simply running the
// converged map on for as many iterations (t-SNE maps keep expanding slowly), a few percent
// of its radius, without losing KL. A cold start from the same map (early exaggeration)
// moves it far more, so the warm start is not exaggerating.
void TestTsne::warmStartKeepsConvergedMapStill()
{
    std::vector<int> labels;
    const int d = 10;
    const std::vector<float> x = clusterData(4, 50, d, 61, &labels);
    Tsne first(x.data(), 200, d, TsneOptions{.maxIterations = 1100});
    first.step(1000);
    const std::vector<float> converged = first.embedding();
    const double radius = rmsRadius(converged);
    const double convergedKl = first.klDivergence();
    first.step(100);
    const double continuedMove = meanDisplacement(converged, first.embedding());

    Tsne warm(x.data(), 200, d);
    warm.initialize(converged.data());
    QCOMPARE(warm.step(100), 100);
    const double warmMove = meanDisplacement(converged, warm.embedding());

    Tsne cold(x.data(), 200, d);
    cold.initializeCold(converged.data());
    cold.step(100);
    const double coldMove = meanDisplacement(converged, cold.embedding());

    qInfo("radius %.3f, mean displacement over 100 iterations: warm %.4f, continued %.4f, "
          "exaggerated %.4f", radius, warmMove, continuedMove, coldMove);
    QVERIFY2(warmMove < 0.05 * radius, qPrintable(QString::number(warmMove / radius)));
    QVERIFY(warmMove <= 1.2 * continuedMove);
    QVERIFY(warm.klDivergence() <= convergedKl * 1.001);
    QVERIFY(coldMove > 2.0 * warmMove);
    QVERIFY(oneNnAgreement(warm.embedding(), labels) > 0.95);
}

// Cancel and pause are checked by counting: a poll before every iteration and one per
// block of affinity rows bounds the work a cancel can wait for (one iteration, one block).
// The seconds that takes are measured in bench/jobs, not here.
void TestTsne::cancelStopsStepPromptly()
{
    const int n = 800, d = 8;
    const std::vector<float> x = gaussianData(n, d, 71);
    Tsne tsne(x.data(), n, d, TsneOptions{.maxIterations = 1000000});

    JobControl before;
    before.requestCancel();
    QVERIFY_THROWS_EXCEPTION(Cancelled, tsne.step(10, &before));
    QCOMPARE(tsne.iteration(), 0);
    // The affinity computation (the constructor) listens too.
    QVERIFY_THROWS_EXCEPTION(Cancelled, Tsne(x.data(), n, d, TsneOptions{}, &before));

    // One poll before each iteration.
    JobControl control;
    QCOMPARE(tsne.step(7, &control), 7);
    QCOMPARE(control.polls(), std::uint64_t(7));
    QCOMPARE(tsne.iteration(), 7);

    // One poll per block of rows (in parallel here: n is above the OpenMP threshold), then
    // one at the end.
    JobControl affinities;
    Tsne::conditionalAffinities(x.data(), n, d, 30.0, &affinities);
    const std::uint64_t blocks = (n + Tsne::kAffinityRowsPerPoll - 1) / Tsne::kAffinityRowsPerPoll;
    QCOMPARE(affinities.polls(), blocks + 1);
    for (float v : tsne.embedding())
        QVERIFY(std::isfinite(v));
}

// A paused control blocks step() before its first iteration until resumed. The test waits
// for the stepping thread to park (JobControl::parked, set by that thread) instead of timing.
void TestTsne::pauseBlocksStep()
{
    const int n = 50, d = 4;
    const std::vector<float> x = gaussianData(n, d, 72);
    Tsne tsne(x.data(), n, d);
    JobControl control;
    control.pause();
    int done = -1;
    std::thread stepper([&] { done = tsne.step(5, &control); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(setscope::testing::scaledMs(60000));
    while (!control.parked() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const bool parked = control.parked();
    const int atPark = tsne.iteration(); // ordered by parked()'s acquire: the stepper waits
    control.resume();
    stepper.join();
    QVERIFY(parked);
    QCOMPARE(atPark, 0);
    QCOMPARE(done, 5);
    QCOMPARE(tsne.iteration(), 5);
}

void TestTsne::sameSeedSameMap()
{
    const int n = 300, d = 6; // above the OpenMP threshold: the parallel path is deterministic too
    const std::vector<float> x = gaussianData(n, d, 81);
    TsneOptions opt;
    opt.seed = 7;
    Tsne a(x.data(), n, d, opt), b(x.data(), n, d, opt);
    a.step(300);
    b.step(300);
    QCOMPARE(a.embedding().size(), std::size_t(2 * n));
    QVERIFY(std::memcmp(a.embedding().data(), b.embedding().data(), sizeof(float) * 2 * n) == 0);

    // Another seed, another random cold start, compared at the same point: before any step
    // and after the same 300 steps (a mapped run against an unmapped one would differ
    // whatever the seed did). The other seed's run is reproducible too.
    const Tsne fresh7(x.data(), n, d, opt);
    opt.seed = 8;
    Tsne c(x.data(), n, d, opt);
    const Tsne fresh8(x.data(), n, d, opt);
    QVERIFY(std::memcmp(fresh7.embedding().data(), c.embedding().data(), sizeof(float) * 2 * n) != 0);
    QVERIFY(std::memcmp(fresh8.embedding().data(), c.embedding().data(), sizeof(float) * 2 * n) == 0);
    c.step(300);
    QVERIFY(std::memcmp(a.embedding().data(), c.embedding().data(), sizeof(float) * 2 * n) != 0);

    // Re-initialising replays the same run.
    a.initialize();
    a.step(300);
    QVERIFY(std::memcmp(a.embedding().data(), b.embedding().data(), sizeof(float) * 2 * n) == 0);
}

void TestTsne::maxIterationsIsRespected()
{
    const std::vector<float> x = gaussianData(40, 3, 91);
    Tsne tsne(x.data(), 40, 3, TsneOptions{.maxIterations = 30});
    QVERIFY(!tsne.done());
    QCOMPARE(tsne.step(100), 30);
    QVERIFY(tsne.done());
    QCOMPARE(tsne.step(10), 0);
    QCOMPARE(tsne.iteration(), 30);
}

void TestTsne::tinyInputs()
{
    const std::vector<float> x = {1.0f, 2.0f, -3.0f, 0.5f, 4.0f, 4.0f};
    {
        Tsne one(x.data(), 1, 2);
        QCOMPARE(one.step(20), 20);
        QCOMPARE(one.embedding(), (std::vector<float>{0.0f, 0.0f}));
        QCOMPARE(one.klDivergence(), 0.0);
        QCOMPARE(one.gradient(), (std::vector<double>{0.0, 0.0}));
    }
    for (int n : {2, 3}) {
        Tsne t(x.data(), n, 2);
        QCOMPARE(t.perplexity(), 1.0);
        double total = 0.0;
        for (double p : t.inputAffinities())
            total += p;
        QVERIFY(std::abs(total - 1.0) < 1e-12);
        QCOMPARE(t.step(1000), 1000);
        QCOMPARE(t.embedding().size(), std::size_t(2 * n));
        for (float v : t.embedding())
            QVERIFY(std::isfinite(v));
        QVERIFY(std::isfinite(t.klDivergence()));
    }
    // Identical points: uniform affinities, no NaN.
    const std::vector<float> same(5 * 3, 1.0f);
    Tsne s(same.data(), 5, 3);
    for (double p : s.inputAffinities())
        QVERIFY(std::isfinite(p));
    s.step(100);
    for (float v : s.embedding())
        QVERIFY(std::isfinite(v));
}

void TestTsne::invalidInput()
{
    const std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Tsne(x.data(), 0, 2));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Tsne(x.data(), 2, 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Tsne(x.data(), 2, 2, TsneOptions{.perplexity = 0.0}));
    const std::vector<float> bad = {1.0f, NAN, 3.0f, 4.0f};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Tsne(bad.data(), 2, 2));
}

QTEST_GUILESS_MAIN(TestTsne)
#include "tst_Tsne.moc"
