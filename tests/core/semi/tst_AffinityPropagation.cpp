// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Affinity propagation (seed 004) against an independent dense reference: the test builds its
// own kNN graph by brute force, Q and W0 straight from the paper's definitions, and
// W = (1 - γ)(I - γQ)^-1 W0 with an explicit dense inverse, then symmetrises.
#include "core/job/Job.h"
#include "core/semi/AffinityPropagation.h"

#include <Eigen/Dense>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

using namespace setscope;

namespace {

struct Points {
    std::int64_t n = 0;
    int d = 0;
    std::vector<float> x;
    std::vector<std::int32_t> y;
    eval::MatrixView view() const { return {x.data(), n, d}; }
};

Points randomPoints(std::int64_t n, int d, int classes, std::int64_t labelled, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Points p;
    p.n = n;
    p.d = d;
    p.x.resize(static_cast<std::size_t>(n * d));
    for (float& v : p.x)
        v = normal(rng);
    p.y.assign(static_cast<std::size_t>(n), -1);
    for (std::int64_t i = 0; i < labelled; ++i)
        p.y[static_cast<std::size_t>((i * 7) % n)] = static_cast<std::int32_t>(i % classes) * 3 + 5; // sparse label values
    return p;
}

/// The reference: brute-force kNN on the normalised rows (double), Q_ij = 1/k, W0 by its four
/// cases, an explicit inverse, then (W + Wᵀ) / 2.
struct Reference {
    std::vector<std::vector<std::int64_t>> nbrs;
    Eigen::MatrixXd w;
};

Reference reference(const Points& p, int k, double gamma, bool symmetric = false)
{
    const auto n = p.n;
    std::vector<std::vector<double>> u(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(p.d)));
    for (std::int64_t i = 0; i < n; ++i) {
        double s = 0;
        for (int c = 0; c < p.d; ++c)
            s += double(p.x[std::size_t(i * p.d + c)]) * p.x[std::size_t(i * p.d + c)];
        for (int c = 0; c < p.d; ++c)
            u[std::size_t(i)][std::size_t(c)] = p.x[std::size_t(i * p.d + c)] / std::sqrt(s);
    }
    Reference r;
    Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<std::pair<double, std::int64_t>> d;
        for (std::int64_t j = 0; j < n; ++j) {
            if (j == i)
                continue;
            double s = 0;
            for (int c = 0; c < p.d; ++c)
                s += std::pow(u[std::size_t(i)][std::size_t(c)] - u[std::size_t(j)][std::size_t(c)], 2);
            d.emplace_back(s, j);
        }
        std::sort(d.begin(), d.end());
        std::vector<std::int64_t> nb;
        for (int t = 0; t < k; ++t) {
            nb.push_back(d[std::size_t(t)].second);
            q(i, d[std::size_t(t)].second) = 1.0 / k;
        }
        r.nbrs.push_back(nb);
    }
    if (symmetric) { // Zhou et al.: A = kNN edges both ways, Q = D^-1/2 A D^-1/2
        Eigen::MatrixXd adj = Eigen::MatrixXd::Zero(n, n);
        for (std::int64_t i = 0; i < n; ++i)
            for (const std::int64_t j : r.nbrs[std::size_t(i)])
                adj(i, j) = adj(j, i) = 1.0;
        const Eigen::VectorXd deg = adj.rowwise().sum();
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j)
                q(i, j) = adj(i, j) / std::sqrt(deg[i] * deg[j]);
    }
    Eigen::MatrixXd w0 = Eigen::MatrixXd::Zero(n, n);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const auto yi = p.y[std::size_t(i)], yj = p.y[std::size_t(j)];
            if (i == j)
                w0(i, j) = 1;
            else if (yi >= 0 && yj >= 0)
                w0(i, j) = yi == yj ? 1 : -1;
        }
    const Eigen::MatrixXd a = Eigen::MatrixXd::Identity(n, n) - gamma * q;
    const Eigen::MatrixXd w = (1 - gamma) * a.inverse() * w0;
    r.w = 0.5 * (w + w.transpose());
    return r;
}

double maxAbs(const Eigen::MatrixXd& m) { return m.cwiseAbs().maxCoeff(); }

} // namespace

class TestAffinityPropagation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesDenseInverse_data();
    void matchesDenseInverse();
    void neighbourhoodMatchesDenseOnLargerGraph();
    void symmetric();
    void twoClustersSeparateLabelledPairs();
    void badInput();
    void cancels();
    void reportsProgress();
};

void TestAffinityPropagation::matchesDenseInverse_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("gamma");
    QTest::addColumn<int>("labelled");
    QTest::addColumn<bool>("symmetric");
    QTest::newRow("n40 k5 γ0.99 12 labelled") << 40 << 5 << 0.99 << 12 << false;
    QTest::newRow("n40 k10 γ0.99 12 labelled") << 40 << 10 << 0.99 << 12 << false;
    QTest::newRow("n40 k4 γ0.5 6 labelled") << 40 << 4 << 0.5 << 6 << false;
    QTest::newRow("n30 k3 γ0.9 none labelled") << 30 << 3 << 0.9 << 0 << false;
    QTest::newRow("n30 k6 γ0.99 all labelled") << 30 << 6 << 0.99 << 30 << false;
    QTest::newRow("symmetric n40 k5 γ0.99 12 labelled") << 40 << 5 << 0.99 << 12 << true;
    QTest::newRow("symmetric n40 k4 γ0.9 6 labelled") << 40 << 4 << 0.9 << 6 << true;
    QTest::newRow("symmetric n30 k6 γ0.5 all labelled") << 30 << 6 << 0.5 << 30 << true;
}

void TestAffinityPropagation::matchesDenseInverse()
{
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(double, gamma);
    QFETCH(int, labelled);
    QFETCH(bool, symmetric);
    const Points p = randomPoints(n, 6, 3, labelled, 11u + unsigned(n + k));
    const Reference ref = reference(p, k, gamma, symmetric);
    semi::PropagationOptions o;
    o.k = k;
    o.gamma = gamma;
    o.normalisation = symmetric ? semi::GraphNormalisation::Symmetric : semi::GraphNormalisation::Row;
    const semi::KnnGraph g = semi::buildKnnGraph(p.view(), k);
    for (std::int64_t i = 0; i < n; ++i)
        for (int t = 0; t < k; ++t)
            QCOMPARE(g.neighbour(i, t), ref.nbrs[std::size_t(i)][std::size_t(t)]);

    const Eigen::MatrixXd w = semi::propagateDense(g, p.y, o);
    const double scale = maxAbs(ref.w);
    QVERIFY(scale > 0);
    const double errDense = maxAbs(w - ref.w) / scale;
    QVERIFY2(errDense < 1e-6, qPrintable(QString("dense: max relative error %1").arg(errDense)));

    const semi::NeighbourhoodAffinities na = semi::propagateAffinities(p.view(), p.y, o);
    double errNb = 0;
    for (std::int64_t a = 0; a < n; ++a)
        for (int t = 0; t < k; ++t) {
            QCOMPARE(na.graph.neighbour(a, t), g.neighbour(a, t));
            errNb = std::max(errNb, std::abs(na.at(a, t) - ref.w(a, g.neighbour(a, t))) / scale);
        }
    QVERIFY2(errNb < 1e-6, qPrintable(QString("neighbourhood: max relative error %1").arg(errNb)));
}

// n = 600 runs the unlabelled columns in parallel; the neighbourhood values must be the dense
// matrix's entries (both from the library, the dense one checked above against the inverse).
void TestAffinityPropagation::neighbourhoodMatchesDenseOnLargerGraph()
{
    const Points p = randomPoints(600, 16, 10, 60, 5u);
    semi::PropagationOptions o;
    const semi::KnnGraph g = semi::buildKnnGraph(p.view(), o.k);
    const Eigen::MatrixXd w = semi::propagateDense(g, p.y, o);
    const semi::NeighbourhoodAffinities na = semi::propagate(g, p.y, o);
    const double scale = maxAbs(w);
    double err = 0;
    for (std::int64_t a = 0; a < g.n; ++a)
        for (int t = 0; t < g.k; ++t)
            err = std::max(err, std::abs(na.at(a, t) - w(a, g.neighbour(a, t))) / scale);
    QVERIFY2(err < 1e-9, qPrintable(QString("max relative difference %1").arg(err)));
}

void TestAffinityPropagation::symmetric()
{
    const Points p = randomPoints(200, 8, 4, 40, 3u);
    semi::PropagationOptions o;
    o.k = 8;
    const semi::NeighbourhoodAffinities na = semi::propagateAffinities(p.view(), p.y, o);
    int mutual = 0;
    for (std::int64_t a = 0; a < na.graph.n; ++a)
        for (int t = 0; t < na.graph.k; ++t) {
            const std::int64_t b = na.graph.neighbour(a, t);
            for (int s = 0; s < na.graph.k; ++s)
                if (na.graph.neighbour(b, s) == a) {
                    ++mutual;
                    QVERIFY(std::abs(na.at(a, t) - na.at(b, s)) <= 1e-12 * std::max(1.0, std::abs(na.at(a, t))));
                }
        }
    QVERIFY(mutual > 100); // the check saw pairs
    const Eigen::MatrixXd w = semi::propagateDense(na.graph, p.y, o);
    QCOMPARE(maxAbs(w - w.transpose()), 0.0);
}

// Two well-separated blobs (no kNN edge between them), three labelled items each: every
// labelled same-class pair ends with a higher propagated affinity than every labelled
// different-class pair. Within a blob nothing negative can arrive (W0 holds only +1 there),
// across the blobs nothing positive (the only cross-blob W0 entries are the -1s).
void TestAffinityPropagation::twoClustersSeparateLabelledPairs()
{
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 0.1f);
    Points p;
    p.n = 40;
    p.d = 2;
    for (int i = 0; i < 40; ++i) {
        const bool second = i >= 20;
        // Directions 0 and 90 degrees: far apart after L2 normalisation.
        p.x.push_back((second ? 0.0f : 1.0f) + noise(rng));
        p.x.push_back((second ? 1.0f : 0.0f) + noise(rng));
        p.y.push_back(i % 20 < 3 ? (second ? 1 : 0) : -1);
    }
    semi::PropagationOptions o;
    o.k = 5;
    const Eigen::MatrixXd w = semi::propagateDense(semi::buildKnnGraph(p.view(), o.k), p.y, o);
    double minSame = std::numeric_limits<double>::infinity(), maxDiff = -minSame;
    double minBlob = minSame, maxCross = -minSame;
    for (int i = 0; i < 40; ++i)
        for (int j = 0; j < 40; ++j) {
            if (i == j)
                continue;
            const bool sameBlob = (i < 20) == (j < 20);
            (sameBlob ? minBlob : maxCross) = sameBlob ? std::min(minBlob, w(i, j)) : std::max(maxCross, w(i, j));
            if (p.y[std::size_t(i)] < 0 || p.y[std::size_t(j)] < 0)
                continue;
            if (p.y[std::size_t(i)] == p.y[std::size_t(j)])
                minSame = std::min(minSame, w(i, j));
            else
                maxDiff = std::max(maxDiff, w(i, j));
        }
    QVERIFY2(minSame > maxDiff, qPrintable(QString("same-class min %1, different-class max %2").arg(minSame).arg(maxDiff)));
    QVERIFY2(minBlob >= 0 && maxCross <= 0,
             qPrintable(QString("within-blob min %1, cross-blob max %2").arg(minBlob).arg(maxCross)));
    QVERIFY(maxDiff < 0); // the -1 of W0 survives propagation
}

void TestAffinityPropagation::badInput()
{
    const Points p = randomPoints(20, 4, 2, 6, 1u);
    semi::PropagationOptions o;
    o.k = 5;
    std::vector<std::int32_t> shortLabels(p.y.begin(), p.y.end() - 1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::propagateAffinities(p.view(), shortLabels, o));
    try {
        semi::propagateAffinities(p.view(), shortLabels, o);
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("19 labels for 20 items"), e.what());
    }
    for (const int k : {0, -1, 20, 25}) {
        o.k = k;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::propagateAffinities(p.view(), p.y, o));
    }
    o.k = 5;
    for (const double gamma : {0.0, 1.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
        o.gamma = gamma;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::propagateAffinities(p.view(), p.y, o));
    }
    o.gamma = 0.99;
    std::vector<std::int32_t> negative = p.y;
    negative[3] = -2;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::propagateAffinities(p.view(), negative, o));
    Points nan = p;
    nan.x[5] = std::numeric_limits<float>::quiet_NaN();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::propagateAffinities(nan.view(), p.y, o));
    // A graph that does not fit the labels is refused by propagate() too.
    const semi::KnnGraph g = semi::buildKnnGraph(p.view(), 5);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::propagate(g, shortLabels, o));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::propagateDense(g, shortLabels, o));
    // And good input still works after all that.
    QCOMPARE(semi::propagateAffinities(p.view(), p.y, o).affinity.size(), std::size_t(20 * 5));
}

void TestAffinityPropagation::cancels()
{
    const Points p = randomPoints(300, 8, 3, 30, 2u);
    job::JobControl control;
    control.requestCancel();
    const semi::KnnGraph g = semi::buildKnnGraph(p.view(), 10);
    QVERIFY_THROWS_EXCEPTION(job::Cancelled, semi::propagate(g, p.y, {}, &control));
}

void TestAffinityPropagation::reportsProgress()
{
    struct Sink : job::ProgressSink {
        std::int64_t done = -1, total = -1;
        void progress(std::int64_t d, std::int64_t t, const std::string&) override
        {
            done = d;
            total = t;
        }
    } sink;
    const Points p = randomPoints(300, 8, 3, 30, 2u);
    semi::propagateAffinities(p.view(), p.y, {}, nullptr, &sink);
    QCOMPARE(sink.total, std::int64_t(270)); // one solve per unlabelled item
    QCOMPARE(sink.done, sink.total);
}

QTEST_GUILESS_MAIN(TestAffinityPropagation)
#include "tst_AffinityPropagation.moc"
