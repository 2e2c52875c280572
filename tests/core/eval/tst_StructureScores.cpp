// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Dataset.h"
#include "core/eval/StructureScores.h"
#include "core/eval/Metrics.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

using namespace setscope;
using eval::MatrixView;

namespace {

// Six points on a line, no two distances from one point equal:
//   item   0    1    2    3    4    5
//   x      0    1    3    7    12   20
//   fine   A0   A0   B1   C2   C2   D3      coarse: {A, B} = 0, {C, D} = 1
// Neighbours in order (distance):
//   0: 1 (1), 2 (3), 3 (7), 4 (12), 5 (20)
//   1: 0 (1), 2 (2), 3 (6), 4 (11), 5 (19)
//   2: 1 (2), 0 (3), 3 (4), 4 (9), 5 (17)
//   3: 2 (4), 4 (5), 1 (6), 0 (7), 5 (13)
//   4: 3 (5), 5 (8), 2 (9), 1 (11), 0 (12)
//   5: 4 (8), 3 (13), 2 (17), 1 (19), 0 (20)
const std::vector<float> kLine{0, 1, 3, 7, 12, 20};
const std::vector<std::int32_t> kFine{0, 0, 1, 2, 2, 3};
const std::vector<std::int32_t> kCoarse{0, 0, 0, 1, 1, 1};

MatrixView lineView()
{
    return {kLine.data(), 6, 1};
}

bool near(double a, double b, double tol = 1e-9)
{
    return std::abs(a - b) <= tol;
}

#define QVERIFY_NEAR(a, b) QVERIFY2(near((a), (b)), qPrintable(QString("%1 vs %2").arg((a), 0, 'g', 12).arg((b), 0, 'g', 12)))

struct Random {
    std::vector<float> x;
    std::vector<std::int32_t> fine, coarse;
    int n = 0, dim = 0;
};

Random randomData(int n, int dim, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> cls(0, 5);
    Random r;
    r.n = n;
    r.dim = dim;
    for (int i = 0; i < n * dim; ++i)
        r.x.push_back(u(rng));
    for (int i = 0; i < n; ++i) {
        const int f = i % 11 == 3 ? -1 : cls(rng); // some unlabelled rows
        r.fine.push_back(f);
        r.coarse.push_back(f < 0 ? -1 : (i % 13 == 5 ? -1 : f / 2)); // and some without a coarse label
    }
    return r;
}

/// The labelled rows other than q, nearest first (double precision, ties by index).
std::vector<int> bruteRanking(const Random& r, int q)
{
    std::vector<std::pair<double, int>> d;
    for (int j = 0; j < r.n; ++j) {
        if (j == q || r.fine[std::size_t(j)] < 0)
            continue;
        double s = 0;
        for (int c = 0; c < r.dim; ++c) {
            const double t = double(r.x[std::size_t(q * r.dim + c)]) - r.x[std::size_t(j * r.dim + c)];
            s += t * t;
        }
        d.push_back({s, j});
    }
    std::sort(d.begin(), d.end());
    std::vector<int> out;
    for (const auto& p : d)
        out.push_back(p.second);
    return out;
}

double brutePurity(const Random& r, int k)
{
    double sum = 0;
    int queries = 0;
    for (int q = 0; q < r.n; ++q) {
        if (r.fine[std::size_t(q)] < 0)
            continue;
        const auto rank = bruteRanking(r, q);
        const int kk = std::min<int>(k, int(rank.size()));
        int same = 0;
        for (int j = 0; j < kk; ++j)
            same += r.fine[std::size_t(rank[std::size_t(j)])] == r.fine[std::size_t(q)];
        sum += double(same) / kk;
        ++queries;
    }
    return sum / queries;
}

/// nDCG by the textbook: gains of the actual ranking, and of the same gains sorted descending.
double bruteNdcg(const Random& r, int k, bool exponential)
{
    double sum = 0;
    int queries = 0;
    for (int q = 0; q < r.n; ++q) {
        if (r.fine[std::size_t(q)] < 0)
            continue;
        const auto rank = bruteRanking(r, q);
        std::vector<double> rel;
        for (int j : rank) {
            double v = 0;
            if (r.fine[std::size_t(j)] == r.fine[std::size_t(q)])
                v = 1;
            else if (r.coarse[std::size_t(q)] >= 0 && r.coarse[std::size_t(j)] == r.coarse[std::size_t(q)])
                v = 0.5;
            rel.push_back(exponential ? std::pow(2.0, v) - 1 : v);
        }
        std::vector<double> ideal = rel;
        std::sort(ideal.begin(), ideal.end(), std::greater<>());
        const int kk = k == 0 ? int(rel.size()) : std::min<int>(k, int(rel.size()));
        double dcg = 0, idcg = 0;
        for (int i = 0; i < kk; ++i) {
            dcg += rel[std::size_t(i)] / std::log2(i + 2.0);
            idcg += ideal[std::size_t(i)] / std::log2(i + 2.0);
        }
        if (idcg > 0) {
            sum += dcg / idcg;
            ++queries;
        }
    }
    return sum / queries;
}

/// The six-point line as a dataset with "fine" and "coarse" label sets, every item in train.
data::Dataset lineDataset()
{
    data::DatasetBuilder b;
    b.setName("line");
    b.setDimension(1);
    b.defineLabelSet("fine", {"A", "B", "C", "D"});
    b.defineLabelSet("coarse", {"AB", "CD"});
    for (std::size_t i = 0; i < kLine.size(); ++i) {
        const std::size_t item = b.addItem(&kLine[i], nullptr, 1, data::Split::Train);
        b.setLabel("fine", item, kFine[i]);
        b.setLabel("coarse", item, kCoarse[i]);
    }
    return b.finish();
}

std::map<std::string, double> byName(const std::vector<eval::MetricValue>& v)
{
    std::map<std::string, double> m;
    for (const auto& x : v)
        m[x.name] = x.value;
    return m;
}

} // namespace

class TestHierarchy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void purityHandSolved();
    void purityAgainstBruteForce();
    void ndcgHandSolved();
    void ndcgAgainstBruteForce();
    void dendrogramHandBuilt();
    void averageLinkageHandSolved();
    void twoLevelTree();
    void classMeansWithAnAbsentClass();
    void coarseOfFine();
    void cslHandSolved();
    void nmiContingencyTable();
    void nmiKnownValues();
    void kmeansNmiSeparatedBlobs();
    void badInput();
    void registeredMetrics();
    void metricsNeedingCoarseLabels();
};

void TestHierarchy::purityHandSolved()
{
    // k = 1: 0->1 A ok, 1->0 A ok, 2->1 A (B) no, 3->2 B (C) no, 4->3 C ok, 5->4 C (D) no: 3/6.
    QVERIFY_NEAR(eval::neighbourhoodPurity(lineView(), kFine, 1), 0.5);
    // k = 2: 0 {1 A, 2 B} 1/2, 1 {0 A, 2 B} 1/2, 2 {1, 0} 0, 3 {2 B, 4 C} 1/2, 4 {3 C, 5 D} 1/2,
    // 5 {4, 3} 0: (4 * 1/2) / 6 = 1/3.
    QVERIFY_NEAR(eval::neighbourhoodPurity(lineView(), kFine, 2), 1.0 / 3.0);
    // k beyond the other items is cut to 5: each class's share of the other five,
    // A: 1/5 twice, B 0, C: 1/5 twice, D 0.
    QVERIFY_NEAR(eval::neighbourhoodPurity(lineView(), kFine, 50), 4.0 / 5.0 / 6.0);
    // An unlabelled item is neither query nor neighbour: 2 unlabelled, k = 1 gives
    // 0->1 ok, 1->0 ok, 3->4 (1 is at 6, 4 at 5) ok, 4->3 ok, 5->4 no: 4/5.
    std::vector<std::int32_t> y = kFine;
    y[2] = -1;
    QVERIFY_NEAR(eval::neighbourhoodPurity(lineView(), y, 1), 0.8);
}

void TestHierarchy::purityAgainstBruteForce()
{
    for (unsigned seed : {1u, 2u, 3u}) {
        const Random r = randomData(90, 3, seed);
        const MatrixView v{r.x.data(), r.n, r.dim};
        for (int k : {1, 4, 10, 200})
            QVERIFY_NEAR(eval::neighbourhoodPurity(v, r.fine, k), brutePurity(r, k));
    }
}

void TestHierarchy::ndcgHandSolved()
{
    // Linear gain, k = 2, discounts 1/log2(2) = 1 and 1/log2(3) = L.
    //   0 (A, AB): 1 (A) 1, 2 (B) 0.5 -> the ideal order: 1.   1: 0 (A) 1, 2 (B) 0.5: 1.
    //   2 (B, AB): 1 0.5, 0 0.5; nothing of B else: ideal 0.5 + 0.5 L: 1.
    //   3 (C, CD): 2 (B) 0, 4 (C) 1 -> L; ideal 4 (C) 1, 5 (D) 0.5 -> 1 + 0.5 L.
    //   4 (C, CD): 3 (C) 1, 5 (D) 0.5: 1.   5 (D, CD): 4 0.5, 3 0.5: 1.
    const double L = 1.0 / std::log2(3.0);
    auto r = eval::ndcg(lineView(), kFine, kCoarse, 2, eval::DcgGain::Linear);
    QVERIFY_NEAR(r.ndcg, (5.0 + L / (1.0 + 0.5 * L)) / 6.0);
    QCOMPARE(r.queries, std::int64_t(6));
    QCOMPARE(r.cutoff, 2);
    // The paper's gain 2^rel - 1: 0.5 -> sqrt(2) - 1; only item 3 is below 1.
    const double g = std::sqrt(2.0) - 1.0;
    r = eval::ndcg(lineView(), kFine, kCoarse, 2, eval::DcgGain::Exponential);
    QVERIFY_NEAR(r.ndcg, (5.0 + L / (1.0 + g * L)) / 6.0);
    // The full ranking (k = 0): item 3 ranks 2 (0), 4 (1), 1 (0), 0 (0), 5 (0.5):
    // L + 0.5/log2(6) against the ideal 1 + 0.5 L; the others keep the ideal order.
    r = eval::ndcg(lineView(), kFine, kCoarse, 0, eval::DcgGain::Linear);
    QCOMPARE(r.cutoff, 5);
    QVERIFY_NEAR(r.ndcg, (5.0 + (L + 0.5 / std::log2(6.0)) / (1.0 + 0.5 * L)) / 6.0);
    // k = 1: 0, 1, 4 retrieve a 1 (ideal 1); 2 and 5 a 0.5 (ideal 0.5); 3 a 0 (ideal 1): 5/6.
    QVERIFY_NEAR(eval::ndcg(lineView(), kFine, kCoarse, 1, eval::DcgGain::Linear).ndcg, 5.0 / 6.0);
    // A query with nothing relevant (own class alone, no coarse label) is left out.
    std::vector<std::int32_t> c = kCoarse;
    c[2] = -1; // B alone and without a coarse class: ideal DCG 0
    r = eval::ndcg(lineView(), kFine, c, 2, eval::DcgGain::Linear);
    QCOMPARE(r.queries, std::int64_t(5));
    QCOMPARE(r.skipped, std::int64_t(1));
    // 0 now ranks 1 (A) 1, 2 (no coarse) 0: ideal 1 + 0 (no other AB item but 1): 1. Same for 1.
    QVERIFY_NEAR(r.ndcg, (4.0 + L / (1.0 + 0.5 * L)) / 5.0);
}

void TestHierarchy::ndcgAgainstBruteForce()
{
    for (unsigned seed : {4u, 5u}) {
        const Random r = randomData(80, 4, seed);
        const MatrixView v{r.x.data(), r.n, r.dim};
        for (int k : {0, 1, 3, 10, 500})
            for (bool expo : {false, true})
                QVERIFY_NEAR(eval::ndcg(v, r.fine, r.coarse, k, expo ? eval::DcgGain::Exponential : eval::DcgGain::Linear).ndcg,
                             bruteNdcg(r, k, expo));
    }
}

void TestHierarchy::dendrogramHandBuilt()
{
    // Node 4 joins leaves 0 and 1 at height 1, node 5 joins 2 and 3 at 2, the root 6 joins
    // 4 and 5 at 4: ((0, 1) 1, (2, 3) 2) 4.
    const eval::Dendrogram t(4, {{0, 1, 1.0}, {2, 3, 2.0}, {4, 5, 4.0}});
    QCOMPARE(t.leaves(), 4);
    QCOMPARE(t.rootHeight(), 4.0);
    QCOMPARE(t.lcaHeight(0, 0), 0.0);
    QCOMPARE(t.lcaHeight(0, 1), 1.0);
    QCOMPARE(t.lcaHeight(1, 0), 1.0);
    QCOMPARE(t.lcaHeight(2, 3), 2.0);
    QCOMPARE(t.lcaHeight(0, 3), 4.0);
    QCOMPARE(t.lcaHeight(1, 2), 4.0);
    QCOMPARE(t.normalisedLcaHeight(0, 1), 0.25);
    QCOMPARE(t.normalisedLcaHeight(3, 2), 0.5);
    QCOMPARE(t.normalisedLcaHeight(3, 0), 1.0);
    QCOMPARE(t.normalisedLcaHeight(2, 2), 0.0);
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, t.lcaHeight(0, 4));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, t.lcaHeight(-1, 0));
    // A caterpillar: ((0, 1) 1, 2) 3, 3) 6.
    const eval::Dendrogram c(4, {{0, 1, 1.0}, {4, 2, 3.0}, {3, 5, 6.0}});
    QCOMPARE(c.lcaHeight(0, 2), 3.0);
    QCOMPARE(c.lcaHeight(1, 2), 3.0);
    QCOMPARE(c.lcaHeight(2, 3), 6.0);
    QCOMPARE(c.normalisedLcaHeight(0, 1), 1.0 / 6.0);
    // Broken trees.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::Dendrogram(4, {{0, 1, 1.0}, {2, 3, 2.0}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::Dendrogram(3, {{0, 1, 1.0}, {0, 2, 2.0}}));      // 0 twice
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::Dendrogram(3, {{0, 4, 1.0}, {1, 2, 2.0}}));      // 4 not made yet
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::Dendrogram(3, {{0, 1, 2.0}, {3, 2, 1.0}}));      // parent below child
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::Dendrogram(0, {}));
    const eval::Dendrogram one(1, {});
    QCOMPARE(one.normalisedLcaHeight(0, 0), 0.0);
}

void TestHierarchy::averageLinkageHandSolved()
{
    // Class means on a line: A 0.5, B 3, C 9.5, D 20. Distances AB 2.5, AC 9, AD 19.5, BC 6.5,
    // BD 17, CD 10.5. Merge A+B at 2.5 (node 4); d(AB, C) = (9 + 6.5)/2 = 7.75,
    // d(AB, D) = (19.5 + 17)/2 = 18.25, CD 10.5: merge AB+C at 7.75 (node 5);
    // d(ABC, D) = (19.5 + 17 + 10.5)/3 = 47/3: root.
    const std::vector<float> means{0.5f, 3.0f, 9.5f, 20.0f};
    const auto t = eval::Dendrogram::averageLinkage({means.data(), 4, 1});
    QCOMPARE(t.merges().size(), std::size_t(3));
    QCOMPARE(t.merges()[0].a, 0);
    QCOMPARE(t.merges()[0].b, 1);
    QVERIFY_NEAR(t.merges()[0].height, 2.5);
    QCOMPARE(t.merges()[1].a, 2);
    QCOMPARE(t.merges()[1].b, 4);
    QVERIFY_NEAR(t.merges()[1].height, 7.75);
    QVERIFY_NEAR(t.rootHeight(), 47.0 / 3.0);
    QVERIFY_NEAR(t.lcaHeight(1, 2), 7.75);
    QVERIFY_NEAR(t.normalisedLcaHeight(3, 0), 1.0);
    // The same from the items: classMeanDendrogram of the six points.
    const auto m = eval::classMeanDendrogram(lineView(), kFine);
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            QVERIFY_NEAR(m.lcaHeight(a, b), t.lcaHeight(a, b));
    // The corners of a unit square: four sides of length 1 tie, the smallest ids (0, 1) merge
    // first, then (2, 3) at 1; the root at the mean of the four cross distances 1, √2, √2, 1.
    const std::vector<float> sq{0, 0, 1, 0, 0, 1, 1, 1};
    const auto u = eval::Dendrogram::averageLinkage({sq.data(), 4, 2});
    QCOMPARE(u.merges()[0].a, 0);
    QCOMPARE(u.merges()[0].b, 1);
    QCOMPARE(u.merges()[1].a, 2);
    QCOMPARE(u.merges()[1].b, 3);
    QVERIFY_NEAR(u.merges()[1].height, 1.0);
    QVERIFY_NEAR(u.rootHeight(), (1.0 + std::sqrt(2.0)) / 2.0);
}

void TestHierarchy::twoLevelTree()
{
    const auto t = eval::Dendrogram::twoLevel({0, 0, 1, 1, 1, 2});
    QCOMPARE(t.leaves(), 6);
    QCOMPARE(t.normalisedLcaHeight(0, 1), 0.5);
    QCOMPARE(t.normalisedLcaHeight(2, 4), 0.5);
    QCOMPARE(t.normalisedLcaHeight(3, 4), 0.5);
    QCOMPARE(t.normalisedLcaHeight(1, 2), 1.0);
    QCOMPARE(t.normalisedLcaHeight(4, 5), 1.0);
    QCOMPARE(t.normalisedLcaHeight(5, 5), 0.0);
    // One coarse class: its node is the root, so every different pair costs 1.
    QCOMPARE(eval::Dendrogram::twoLevel({7, 7, 7}).normalisedLcaHeight(0, 2), 1.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::Dendrogram::twoLevel({}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::Dendrogram::twoLevel({0, -1}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::Dendrogram::twoLevel({0, 1}, 1.5));
}

void TestHierarchy::classMeansWithAnAbsentClass()
{
    // Label 1 has no item: it joins at the root; the others keep their heights
    // (means A 0.5, C 9.5, D 20: A+C at 9, then (19.5 + 10.5)/2 = 15 with D).
    const std::vector<std::int32_t> y{0, 0, -1, 2, 2, 3};
    const auto t = eval::classMeanDendrogram(lineView(), y);
    QCOMPARE(t.leaves(), 4);
    QVERIFY_NEAR(t.lcaHeight(0, 2), 9.0);
    QVERIFY_NEAR(t.lcaHeight(0, 3), 15.0);
    QVERIFY_NEAR(t.lcaHeight(1, 0), 15.0);
    QVERIFY_NEAR(t.rootHeight(), 15.0);
}

void TestHierarchy::coarseOfFine()
{
    QCOMPARE(eval::coarseOfFine(kFine, kCoarse), (std::vector<std::int32_t>{0, 0, 1, 1}));
    // Fine class 1 has no coarse label anywhere: a coarse class of its own (2).
    QCOMPARE(eval::coarseOfFine({0, 1, 2, -1}, {0, -1, 1, 1}), (std::vector<std::int32_t>{0, 2, 1}));
    try {
        eval::coarseOfFine({0, 0, 1}, {0, 1, 1});
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("fine class 0 has items of coarse classes 0 (item 0) and 1 (item 1)"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::coarseOfFine({0, 1}, {0}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::coarseOfFine({-1, -1}, {0, 0}));
}

void TestHierarchy::cslHandSolved()
{
    // Nearest neighbour (k = 1) predictions: 0 A->A, 1 A->A, 2 B->A, 3 C->B, 4 C->C, 5 D->C.
    // Coarse tree (same coarse 0.5, else 1): B->A 0.5, C->B 1, D->C 0.5:
    // average over the 3 mistakes 2/3, total over the 6 predictions 2/6.
    const auto coarseTree = eval::Dendrogram::twoLevel(eval::coarseOfFine(kFine, kCoarse));
    auto r = eval::contextSensitiveLoss(lineView(), kFine, coarseTree, 1);
    QCOMPARE(r.predictions, std::int64_t(6));
    QCOMPARE(r.wrong, std::int64_t(3));
    QVERIFY_NEAR(r.average, 2.0 / 3.0);
    QVERIFY_NEAR(r.total, 1.0 / 3.0);
    QVERIFY_NEAR(r.errorRate, 0.5);
    // Class-mean tree (averageLinkageHandSolved, root 47/3): A-B 2.5, B-C 7.75, D-C root.
    const auto meanTree = eval::classMeanDendrogram(lineView(), kFine);
    r = eval::contextSensitiveLoss(lineView(), kFine, meanTree, 1);
    const double root = 47.0 / 3.0, sum = 2.5 / root + 7.75 / root + 1.0;
    QVERIFY_NEAR(r.average, sum / 3.0);
    QVERIFY_NEAR(r.total, sum / 6.0);
    // k = 2, each neighbour a prediction (coarse tree): 0 {A, B .5}, 1 {A, B .5}, 2 {A .5, A .5},
    // 3 {B 1, C}, 4 {C, D .5}, 5 {C .5, C .5}: 8 wrong of 12, penalty 4.5.
    r = eval::contextSensitiveLoss(lineView(), kFine, coarseTree, 2, eval::CslPrediction::Neighbours);
    QCOMPARE(r.predictions, std::int64_t(12));
    QCOMPARE(r.wrong, std::int64_t(8));
    QVERIFY_NEAR(r.average, 4.5 / 8.0);
    QVERIFY_NEAR(r.total, 4.5 / 12.0);
    // k = 2, distance-weighted vote: 0 A (1/1 vs B 1/3), 1 A, 2 A, 3 B (1/4 vs C 1/5), 4 C, 5 C:
    // the same predictions as k = 1.
    r = eval::contextSensitiveLoss(lineView(), kFine, coarseTree, 2, eval::CslPrediction::Vote);
    QCOMPARE(r.predictions, std::int64_t(6));
    QVERIFY_NEAR(r.average, 2.0 / 3.0);
    QVERIFY_NEAR(r.total, 1.0 / 3.0);
    // All right (one class): both 0.
    const std::vector<std::int32_t> same(6, 0);
    r = eval::contextSensitiveLoss(lineView(), same, eval::Dendrogram(1, {}), 1);
    QCOMPARE(r.wrong, std::int64_t(0));
    QCOMPARE(r.total, 0.0);
    QCOMPARE(r.average, 0.0);
    // A label the tree does not have.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             eval::contextSensitiveLoss(lineView(), kFine, eval::Dendrogram::twoLevel({0, 0, 1}), 1));
}

void TestHierarchy::nmiContingencyTable()
{
    // a = 0 0 0 1 1 1, b = 0 0 1 1 2 2. Contingency (rows a, columns b):
    //   [2 1 0]
    //   [0 1 2]
    // H(a) = ln 2, H(b) = ln 3; MI = 2 * (2/6) ln((2/6) / (1/2 * 1/3)) + 2 * (1/6) ln(1) = (2/3) ln 2.
    // NMI = (2/3) ln 2 / ((ln 2 + ln 3) / 2) = 0.5158037429793889 (scikit-learn gives the same).
    const double want = (2.0 / 3.0) * std::log(2.0) / ((std::log(2.0) + std::log(3.0)) / 2.0);
    QVERIFY_NEAR(want, 0.5158037429793889);
    QVERIFY_NEAR(eval::normalizedMutualInformation({0, 0, 0, 1, 1, 1}, {0, 0, 1, 1, 2, 2}), want);
    QVERIFY_NEAR(eval::normalizedMutualInformation({0, 0, 1, 1, 2, 2}, {0, 0, 0, 1, 1, 1}), want); // symmetric
    // Pairs with a -1 on either side are left out: the same table.
    QVERIFY_NEAR(eval::normalizedMutualInformation({0, 0, 0, 1, 1, 1, -1, 4}, {0, 0, 1, 1, 2, 2, 3, -1}), want);
}

void TestHierarchy::nmiKnownValues()
{
    const std::vector<std::int32_t> a{0, 0, 1, 1, 2, 2, 2};
    QCOMPARE(eval::normalizedMutualInformation(a, a), 1.0);
    // A relabelling (0->5, 1->3, 2->0) is the same partition.
    QVERIFY_NEAR(eval::normalizedMutualInformation(a, {5, 5, 3, 3, 0, 0, 0}), 1.0);
    // Independent: every cell of the 2x2 table holds 2.
    QVERIFY_NEAR(eval::normalizedMutualInformation({0, 0, 0, 0, 1, 1, 1, 1}, {0, 0, 1, 1, 0, 0, 1, 1}), 0.0);
    // One cluster against two classes: no information.
    QVERIFY_NEAR(eval::normalizedMutualInformation({0, 0, 0, 0}, {0, 0, 1, 1}), 0.0);
    // Two single clusters: 1 by convention (scikit-learn's).
    QCOMPARE(eval::normalizedMutualInformation({3, 3}, {1, 1}), 1.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::normalizedMutualInformation({0, 1}, {0}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::normalizedMutualInformation({-1, 0}, {0, -1}));
}

void TestHierarchy::kmeansNmiSeparatedBlobs()
{
    // Three tight blobs far apart, labelled by blob (in a shuffled label order): k-means finds
    // them, NMI 1. Labelled by an unrelated pattern instead: the NMI of that table.
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    const float centre[3][2] = {{0, 0}, {10, 0}, {0, 10}};
    std::vector<float> x;
    std::vector<std::int32_t> blob, other;
    for (int i = 0; i < 60; ++i) {
        const int b = i % 3;
        x.push_back(centre[b][0] + noise(rng));
        x.push_back(centre[b][1] + noise(rng));
        blob.push_back(b == 0 ? 2 : b == 1 ? 0 : 1);
        other.push_back((i / 3) % 2); // half of each blob in each class
    }
    const MatrixView v{x.data(), 60, 2};
    const auto r = eval::kmeansNmi(v, blob);
    QCOMPARE(r.clusters, 3);
    QCOMPARE(r.items, std::int64_t(60));
    QVERIFY_NEAR(r.nmi, 1.0);
    QCOMPARE(eval::normalizedMutualInformation(r.assignment, blob), 1.0);
    // Two classes, independent of the blobs: 2 clusters must split the blobs, whatever they do
    // the NMI is that of the found clusters against `other`, and low.
    const auto s = eval::kmeansNmi(v, other);
    QCOMPARE(s.clusters, 2);
    QVERIFY_NEAR(s.nmi, eval::normalizedMutualInformation(s.assignment, other));
    QVERIFY2(s.nmi < 0.1, qPrintable(QString::number(s.nmi)));
    // Deterministic for a seed.
    QCOMPARE(eval::kmeansNmi(v, other).assignment, s.assignment);
    // Unlabelled rows are not clustered.
    std::vector<std::int32_t> some = blob;
    some[0] = -1;
    const auto t = eval::kmeansNmi(v, some);
    QCOMPARE(t.items, std::int64_t(59));
    QCOMPARE(t.assignment[0], -1);
    QVERIFY_NEAR(t.nmi, 1.0);
}

void TestHierarchy::badInput()
{
    const MatrixView v = lineView();
    const std::vector<std::int32_t> five{0, 0, 1, 1, 2};
    auto expect = [](auto&& fn, const char* text) {
        try {
            fn();
            QFAIL("no exception");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains(text), e.what());
        }
    };
    expect([&] { eval::neighbourhoodPurity(v, five, 1); }, "neighbourhood purity: 5 labels for 6 rows");
    expect([&] { eval::neighbourhoodPurity(v, kFine, 0); }, "k must be at least 1 (got 0)");
    expect([&] { eval::ndcg(v, five, five, 1); }, "nDCG: 5 labels for 6 rows");
    expect([&] { eval::ndcg(v, kFine, five, 1); }, "nDCG: 5 coarse labels for 6 fine labels");
    expect([&] { eval::ndcg(v, kFine, kCoarse, -1); }, "k must be at least 1, or 0");
    expect([&] { eval::contextSensitiveLoss(v, kFine, eval::Dendrogram::twoLevel({0, 0, 1, 1}), 0); },
           "k must be at least 1 (got 0)");
    expect([&] { eval::contextSensitiveLoss(v, five, eval::Dendrogram::twoLevel({0, 0, 1, 1}), 1); }, "5 labels for 6 rows");
    expect([&] { eval::kmeansNmi(v, five); }, "NMI: 5 labels for 6 rows");
    expect([&] { eval::classMeanDendrogram(v, five); }, "5 labels for 6 rows");
    // Fewer than two (labelled) items.
    const std::vector<std::int32_t> one{0};
    const MatrixView single{kLine.data(), 1, 1};
    expect([&] { eval::neighbourhoodPurity(single, one, 1); }, "needs at least two labelled items, got 1");
    expect([&] { eval::ndcg(single, one, one, 1); }, "needs at least two labelled items, got 1");
    expect([&] { eval::contextSensitiveLoss(single, one, eval::Dendrogram(1, {}), 1); }, "needs at least two labelled items");
    expect([&] { eval::kmeansNmi(single, one); }, "needs at least two labelled items");
    const std::vector<std::int32_t> mostlyUnlabelled{-1, -1, 0, -1, -1, -1};
    expect([&] { eval::neighbourhoodPurity(v, mostlyUnlabelled, 1); }, "needs at least two labelled items, got 1");
    const MatrixView none{kLine.data(), 0, 1};
    expect([&] { eval::neighbourhoodPurity(none, {}, 1); }, "got 0");
    expect([&] { eval::classMeanDendrogram(v, {-1, -1, -1, -1, -1, -1}); }, "no labelled item");
}

void TestHierarchy::registeredMetrics()
{
    // The line dataset, leave-one-out (no test split): the registry's values are the hand-solved
    // ones above.
    const data::Dataset ds = lineDataset();
    eval::MetricRequest req;
    req.metrics = {"neighbourhood-purity", "ndcg", "csl", "nmi"};
    req.coarseLabelSet = "coarse";
    req.options["neighbourhood-purity"] = {{"k", "2"}};
    req.options["ndcg"] = {{"k", "2"}, {"gain", "linear"}};
    const auto v = eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", req);
    std::vector<std::string> names;
    for (const auto& x : v)
        names.push_back(x.name);
    QCOMPARE(names, (std::vector<std::string>{"neighbourhood-purity", "ndcg", "csl-average", "csl-total", "nmi"}));
    for (const auto& x : v)
        QVERIFY2(x.doc.find("leave-one-out") != std::string::npos, x.doc.c_str());
    auto m = byName(v);
    const double L = 1.0 / std::log2(3.0), root = 47.0 / 3.0, sum = 2.5 / root + 7.75 / root + 1.0;
    QVERIFY_NEAR(m.at("neighbourhood-purity"), 1.0 / 3.0);
    QVERIFY_NEAR(m.at("ndcg"), (5.0 + L / (1.0 + 0.5 * L)) / 6.0);
    QVERIFY_NEAR(m.at("csl-average"), sum / 3.0); // default tree: class means of the input vectors
    QVERIFY_NEAR(m.at("csl-total"), sum / 6.0);
    QVERIFY_NEAR(m.at("nmi"), eval::kmeansNmi(lineView(), kFine).nmi);
    // tree=coarse, prediction=vote, k=2.
    req.metrics = {"csl"};
    req.options["csl"] = {{"tree", "coarse"}, {"k", "2"}, {"prediction", "vote"}};
    m = byName(eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", req));
    QVERIFY_NEAR(m.at("csl-average"), 2.0 / 3.0);
    QVERIFY_NEAR(m.at("csl-total"), 1.0 / 3.0);
    // A dataset of sets: item i is {x_i - 3 (weight 1), x_i + 1 (weight 3)}, whose weighted mean
    // is x_i, so the class-mean dendrogram (and CSL) is the one of the points above.
    {
        data::DatasetBuilder b;
        b.setDimension(1);
        b.defineLabelSet("fine", {"A", "B", "C", "D"});
        for (std::size_t i = 0; i < kLine.size(); ++i) {
            const float pts[] = {kLine[i] - 3, kLine[i] + 1}, w[] = {1, 3};
            b.setLabel("fine", b.addItem(pts, w, 2, data::Split::Train), kFine[i]);
        }
        const data::Dataset sets = b.finish();
        QVERIFY(!sets.isVectorDataset());
        eval::MetricRequest r;
        r.metrics = {"csl"};
        m = byName(eval::evaluateMetrics(sets, kLine.data(), 1, "fine", r));
        QVERIFY_NEAR(m.at("csl-average"), sum / 3.0);
        QVERIFY_NEAR(m.at("csl-total"), sum / 6.0);
    }
    // Names and docs for tables and tooltips.
    QCOMPARE(eval::shortMetricName("ndcg"), std::string("nDCG"));
    QCOMPARE(eval::shortMetricName("csl-total"), std::string("CSL"));
    QCOMPARE(eval::shortMetricName("nmi"), std::string("NMI"));
    QVERIFY(eval::describeMetric("csl-average").find("context-sensitive loss") != std::string::npos);
    QVERIFY(eval::describeMetric("neighbourhood-purity").find("seed 003") != std::string::npos);
}

void TestHierarchy::metricsNeedingCoarseLabels()
{
    const data::Dataset ds = lineDataset();
    const auto& reg = eval::builtinMetrics();
    QVERIFY(reg.require("ndcg").needsCoarseLabels);
    QVERIFY(!reg.require("csl").needsCoarseLabels); // its default tree comes from the input features
    QVERIFY(!reg.require("nmi").needsCoarseLabels);
    QVERIFY(!reg.require("neighbourhood-purity").needsCoarseLabels);
    // Every metric without a coarse label set: ndcg is skipped, the others run.
    eval::MetricRequest all;
    const auto m = byName(eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", all));
    QVERIFY(!m.count("ndcg"));
    QVERIFY(m.count("neighbourhood-purity") && m.count("csl-total") && m.count("nmi"));
    // With one, it runs too.
    all.coarseLabelSet = "coarse";
    QVERIFY(byName(eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", all)).count("ndcg"));
    // Asked for by name without one: a message that says what to give.
    eval::MetricRequest req;
    req.metrics = {"ndcg"};
    try {
        eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", req);
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("metric ndcg needs coarse labels"), e.what());
        QVERIFY2(QString(e.what()).contains("--coarse"), e.what());
    }
    req.metrics = {"csl"};
    req.options["csl"] = {{"tree", "coarse"}};
    try {
        eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", req);
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("metric csl (tree=coarse) needs coarse labels"), e.what());
    }
    // An unknown coarse label set.
    req.coarseLabelSet = "coarser";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", req));
    // The registry directly, without input features, tree=input: told what is missing.
    eval::MetricInput in;
    const std::vector<std::int32_t> y = kFine;
    in.embedding = lineView();
    in.labels = &y;
    in.queries = {0, 1, 2, 3, 4, 5};
    in.references = in.queries;
    in.leaveOneOut = true;
    try {
        reg.compute("csl", in);
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("needs the items' input features"), e.what());
    }
}

QTEST_GUILESS_MAIN(TestHierarchy)
#include "tst_StructureScores.moc"
