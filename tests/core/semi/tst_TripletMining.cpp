// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Neighbourhood triplet mining (seed 004, Fig. 1b) on hand-built graphs with known
// affinities, and the partition step around it.
#include "core/semi/Ssdml.h"
#include "core/semi/TripletMining.h"

#include <QtTest>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

using namespace setscope;
using semi::Triplet;

namespace {

/// Six points, k = 4. Row a: neighbours (nearest first) and W(a, ·) for each.
semi::NeighbourhoodAffinities sixPoints()
{
    semi::NeighbourhoodAffinities na;
    na.graph.n = 6;
    na.graph.k = 4;
    na.graph.neighbours = {
        1, 2, 3, 4, //
        0, 2, 5, 3, //
        3, 1, 0, 5, //
        2, 4, 5, 0, //
        5, 3, 1, 2, //
        4, 3, 2, 1, //
    };
    na.affinity = {
        0.9, -0.2, 0.5, 0.1,  // 0: sorted 1 (0.9), 3 (0.5), 4 (0.1), 2 (-0.2)
        0.3, 0.8, -0.5, 0.0,  // 1: sorted 2, 0, 3, 5
        0.05, 0.2, 0.2, 0.7,  // 2: sorted 5 (0.7), then 1 and 0 tie at 0.2 (kNN order: 1 first), 3
        -1.0, -0.9, -0.8, -0.7, // 3: sorted 0, 5, 4, 2 (reverse kNN order)
        0.4, 0.3, 0.2, 0.1,   // 4: already sorted: 5, 3, 1, 2
        0.0, 0.0, 0.0, 0.0,   // 5: all equal: kNN order 4, 3, 2, 1
    };
    return na;
}

} // namespace

class TestTripletMining : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sixPointsByHand();
    void oddKDropsTheMiddle();
    void anchorSubset();
    void badInput();
    void partitionTakesAllLabelledAndSomeUnlabelled();
    void minePartitionReturnsDatasetItems();
    void positivesShareTheAnchorsClassMoreOften();
};

void TestTripletMining::sixPointsByHand()
{
    const std::vector<Triplet> got = semi::mineTriplets(sixPoints());
    // h = k/2 = 2: (a, N_W1, N_W3), (a, N_W2, N_W4).
    const std::vector<Triplet> want = {
        {0, 1, 4}, {0, 3, 2}, //
        {1, 2, 3}, {1, 0, 5}, //
        {2, 5, 0}, {2, 1, 3}, //
        {3, 0, 4}, {3, 5, 2}, //
        {4, 5, 1}, {4, 3, 2}, //
        {5, 4, 2}, {5, 3, 1}, //
    };
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        QVERIFY2(got[i] == want[i], qPrintable(QString("triplet %1: got (%2,%3,%4), want (%5,%6,%7)")
                                                   .arg(i)
                                                   .arg(got[i].anchor)
                                                   .arg(got[i].positive)
                                                   .arg(got[i].negative)
                                                   .arg(want[i].anchor)
                                                   .arg(want[i].positive)
                                                   .arg(want[i].negative)));
    }
}

void TestTripletMining::oddKDropsTheMiddle()
{
    semi::NeighbourhoodAffinities na;
    na.graph.n = 6;
    na.graph.k = 5;
    na.graph.neighbours = {1, 2, 3, 4, 5, 0, 2, 3, 4, 5, 0, 1, 3, 4, 5, 0, 1, 2, 4, 5, 0, 1, 2, 3, 5, 0, 1, 2, 3, 4};
    na.affinity.assign(30, 0.0);
    // Anchor 0: W = 0.1, 0.5, 0.3, 0.9, 0.7 for 1..5 -> sorted 4, 5, 2, 3, 1; middle (2) unused.
    const double w0[5] = {0.1, 0.5, 0.3, 0.9, 0.7};
    std::copy(w0, w0 + 5, na.affinity.begin());
    const std::vector<Triplet> got = semi::mineTriplets(na, {0});
    QCOMPARE(got.size(), std::size_t(2));
    QVERIFY(got[0] == (Triplet{0, 4, 3}));
    QVERIFY(got[1] == (Triplet{0, 5, 1}));
    // Every node an anchor: n * floor(k/2).
    QCOMPARE(semi::mineTriplets(na).size(), std::size_t(12));
}

void TestTripletMining::anchorSubset()
{
    const std::vector<Triplet> got = semi::mineTriplets(sixPoints(), {4, 0});
    QCOMPARE(got.size(), std::size_t(4));
    QVERIFY(got[0] == (Triplet{4, 5, 1}));
    QVERIFY(got[3] == (Triplet{0, 3, 2}));
    QVERIFY(semi::mineTriplets(sixPoints(), {}).empty());
}

void TestTripletMining::badInput()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::mineTriplets(sixPoints(), {6}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::mineTriplets(sixPoints(), {-1}));
    semi::NeighbourhoodAffinities bad = sixPoints();
    bad.affinity.pop_back();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::mineTriplets(bad));
    std::mt19937_64 rng(1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, semi::samplePartition({0, -1}, -1, rng));
}

void TestTripletMining::partitionTakesAllLabelledAndSomeUnlabelled()
{
    std::vector<std::int32_t> labels(100, -1);
    for (int i = 0; i < 100; i += 10)
        labels[std::size_t(i)] = i / 10;
    std::mt19937_64 rng(42);
    const std::vector<std::int64_t> p = semi::samplePartition(labels, 30, rng);
    QCOMPARE(p.size(), std::size_t(40));
    for (int i = 0; i < 10; ++i)
        QCOMPARE(p[std::size_t(i)], std::int64_t(i * 10));
    std::set<std::int64_t> rest(p.begin() + 10, p.end());
    QCOMPARE(rest.size(), std::size_t(30));
    QVERIFY(std::is_sorted(p.begin() + 10, p.end()));
    for (const std::int64_t i : rest)
        QCOMPARE(labels[std::size_t(i)], -1);
    std::mt19937_64 again(42);
    QCOMPARE(semi::samplePartition(labels, 30, again), p); // deterministic in the generator
    std::mt19937_64 other(43);
    QVERIFY(semi::samplePartition(labels, 30, other) != p);
    QCOMPARE(semi::samplePartition(labels, 1000, rng).size(), std::size_t(100)); // all when fewer
}

void TestTripletMining::minePartitionReturnsDatasetItems()
{
    // Two directions, 6 points each; rows are the partition, items their dataset ids.
    std::vector<float> x;
    std::vector<std::int32_t> y;
    std::vector<std::int64_t> items;
    for (int i = 0; i < 12; ++i) {
        const float e = 0.01f * float(i % 6);
        x.push_back(i < 6 ? 1.0f : e);
        x.push_back(i < 6 ? e : 1.0f);
        y.push_back(i % 6 == 0 ? (i < 6 ? 0 : 1) : -1);
        items.push_back(1000 + 7 * i);
    }
    semi::PropagationOptions o;
    o.k = 4;
    const semi::PartitionTriplets pt = semi::minePartition({x.data(), 12, 2}, y, items, o);
    QCOMPARE(pt.items, items);
    QCOMPARE(pt.triplets.size(), std::size_t(12 * 2));
    const std::vector<Triplet> local = semi::mineTriplets(pt.affinities);
    for (std::size_t i = 0; i < local.size(); ++i) {
        QCOMPARE(pt.triplets[i].anchor, items[std::size_t(local[i].anchor)]);
        QCOMPARE(pt.triplets[i].positive, items[std::size_t(local[i].positive)]);
        QCOMPARE(pt.triplets[i].negative, items[std::size_t(local[i].negative)]);
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             semi::minePartition({x.data(), 12, 2}, y, {items.begin(), items.end() - 1}, o));
}

// End to end on three overlapping Gaussian classes with 10 % of the labels: the positives
// the propagated affinities pick share the anchor's true class more often than the negatives
// do, and more often than the k nearest neighbours do on average (what mining adds).
void TestTripletMining::positivesShareTheAnchorsClassMoreOften()
{
    const int n = 600, d = 8;
    std::mt19937 rng(21);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> centre(3 * d);
    for (float& c : centre)
        c = 0.7f * normal(rng);
    std::vector<float> x;
    std::vector<std::int32_t> truth, y;
    for (int i = 0; i < n; ++i) {
        const int c = i % 3;
        for (int j = 0; j < d; ++j)
            x.push_back(centre[std::size_t(c * d + j)] + normal(rng));
        truth.push_back(c);
        y.push_back(i % 10 == 0 ? c : -1);
    }
    std::vector<std::int64_t> items(n);
    for (int i = 0; i < n; ++i)
        items[std::size_t(i)] = i;
    const semi::PartitionTriplets pt = semi::minePartition({x.data(), n, d}, y, items);
    int posSame = 0, negSame = 0;
    for (const Triplet& t : pt.triplets) {
        posSame += truth[std::size_t(t.positive)] == truth[std::size_t(t.anchor)];
        negSame += truth[std::size_t(t.negative)] == truth[std::size_t(t.anchor)];
    }
    const double pos = double(posSame) / double(pt.triplets.size());
    const double neg = double(negSame) / double(pt.triplets.size());
    const double knn = double(posSame + negSame) / double(2 * pt.triplets.size()); // k even: all neighbours
    qInfo("positive purity %.3f, negative purity %.3f, kNN purity %.3f", pos, neg, knn);
    // Measured: 0.713 against 0.642 (3 000 triplets: a standard error of ~0.012 on the gap).
    QVERIFY2(pos > neg + 0.03, qPrintable(QString("positives %1, negatives %2").arg(pos).arg(neg)));
    QVERIFY(pos > knn);
}

QTEST_GUILESS_MAIN(TestTripletMining)
#include "tst_TripletMining.moc"
