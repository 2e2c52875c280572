// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Dataset.h"
#include "core/eval/Metrics.h"
#include "core/eval/Knn.h"
#include "core/job/Job.h"

#include <QtTest>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>

using namespace setscope;
using eval::MatrixView;

namespace {

struct Data {
    int d = 0;
    std::vector<float> x;
    std::vector<std::int32_t> y;
    MatrixView view() const { return {x.data(), std::int64_t(y.size()), d}; }
};

/// Points in a few overlapping Gaussian blobs, on a coarse grid so that exact duplicates
/// (distance 0) and ties occur.
Data blobs(int n, int d, int classes, std::uint64_t seed, bool grid = true)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0, 1);
    Data out;
    out.d = d;
    for (int i = 0; i < n; ++i) {
        const int c = int(rng() % std::uint64_t(classes));
        out.y.push_back(c);
        for (int k = 0; k < d; ++k) {
            float v = float(c) * 0.8f * (k == c % d ? 1.f : 0.f) + g(rng);
            out.x.push_back(grid ? std::round(v * 2) / 2 : v);
        }
    }
    return out;
}

double dist(const float* a, const float* b, int d)
{
    double s = 0;
    for (int k = 0; k < d; ++k)
        s += double(a[k] - b[k]) * double(a[k] - b[k]);
    return std::sqrt(s);
}

/// Brute-force reference: sort all references by (distance, index), vote as sklearn's
/// KNeighborsClassifier(weights="distance") does.
std::vector<std::int32_t> bruteKnn(const Data& ref, const Data& q, int k, bool self)
{
    std::vector<std::int32_t> pred;
    for (std::size_t i = 0; i < q.y.size(); ++i) {
        std::vector<std::pair<double, std::size_t>> cand;
        for (std::size_t j = 0; j < ref.y.size(); ++j) {
            if (self && i == j)
                continue;
            if (ref.y[j] < 0)
                continue;
            cand.push_back({dist(&q.x[i * std::size_t(q.d)], &ref.x[j * std::size_t(ref.d)], q.d), j});
        }
        std::sort(cand.begin(), cand.end());
        cand.resize(std::min<std::size_t>(cand.size(), std::size_t(k)));
        const bool zero = std::any_of(cand.begin(), cand.end(), [](auto& c) { return c.first == 0; });
        std::map<int, double> votes;
        for (auto& [dd, j] : cand)
            votes[ref.y[j]] += zero ? (dd == 0 ? 1.0 : 0.0) : 1.0 / dd;
        int best = -1;
        double bw = -1;
        for (auto& [l, w] : votes)
            if (w > bw) {
                bw = w;
                best = l;
            }
        pred.push_back(best);
    }
    return pred;
}

} // namespace

class TestKnn : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void weightedVoteHandSolved();
    void handSolvedVote();
    void zeroDistanceNeighboursDecide();
    void matchesBruteForce_data();
    void matchesBruteForce();
    void selfExclusionKeepsDuplicates();
    void recallMatchesBruteForce();
    void recallHandSolved();
    void unlabelledIgnored();
    void evaluateProtocols();
    void cancel();
    void dimensionMismatch();
    void extremeValues_data();
    void extremeValues();
};

// seed 000 §VI-A's vote, solved by hand: weights 1/distance; zero distances decide alone;
// unlabelled neighbours do not vote; ties go to the smaller label.
void TestKnn::weightedVoteHandSolved()
{
    QCOMPARE(eval::weightedVote({0, 1, 1}, {1.0, 3.0, 3.0}), 0);      // 1 against 2/3
    QCOMPARE(eval::weightedVote({0, 1, 1}, {1.0, 1.25, 2.5}), 1);     // 1 against 0.8 + 0.4
    QCOMPARE(eval::weightedVote({2, 1}, {2.0, 2.0}), 1);              // a tie: the smaller label
    QCOMPARE(eval::weightedVote({0, 1, 1}, {0.0, 0.5, 0.5}), 0);      // the zero decides alone
    QCOMPARE(eval::weightedVote({0, 1, -1}, {0.5, 0.0, 0.0}), 1);     // an unlabelled zero does not vote
    QCOMPARE(eval::weightedVote({0, 1, 1, 2}, {0.0, 0.0, 0.0, 0.1}), 1); // zeros: one vote each
    QCOMPARE(eval::weightedVote({-1, -1}, {1.0, 2.0}), -1);
    QCOMPARE(eval::weightedVote({}, {}), -1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::weightedVote({0, 1}, {1.0}));
}

void TestKnn::handSolvedVote()
{
    // Query at 0; neighbours at 1 (class 0), 2 and 2.5 (class 1): weights 1 vs 0.5 + 0.4.
    // Majority vote would say class 1; 1/d weighting says class 0 (1.0 > 0.9).
    const std::vector<float> ref{1, -2, 2.5};
    const std::vector<std::int32_t> refY{0, 1, 1};
    const std::vector<float> q{0};
    const std::vector<std::int32_t> qY{0};
    const auto r = eval::knnClassify({ref.data(), 3, 1}, refY, {q.data(), 1, 1}, qY, 3);
    QCOMPARE(r.predicted[0], 0);
    QCOMPARE(r.accuracy, 1.0);
    // With the class-0 point a bit farther (1.2: 0.833 < 0.9) the vote flips.
    const std::vector<float> ref2{1.2f, -2, 2.5};
    QCOMPARE(eval::knnClassify({ref2.data(), 3, 1}, refY, {q.data(), 1, 1}, qY, 3).predicted[0], 1);
}

void TestKnn::zeroDistanceNeighboursDecide()
{
    // An exact duplicate of class 2 beats two very close class-0 points.
    const std::vector<float> ref{0, 1e-3f, -1e-3f};
    const std::vector<std::int32_t> refY{2, 0, 0};
    const std::vector<float> q{0};
    QCOMPARE(eval::knnClassify({ref.data(), 3, 1}, refY, {q.data(), 1, 1}, {2}, 3).predicted[0], 2);
}

void TestKnn::matchesBruteForce_data()
{
    QTest::addColumn<int>("k");
    QTest::addColumn<bool>("self");
    QTest::addColumn<bool>("grid");
    QTest::newRow("k=10 test-vs-train") << 10 << false << false;
    QTest::newRow("k=10 leave-one-out") << 10 << true << false;
    QTest::newRow("k=1 leave-one-out") << 1 << true << false;
    QTest::newRow("k=5 grid (duplicates)") << 5 << false << true;
}

void TestKnn::matchesBruteForce()
{
    QFETCH(int, k);
    QFETCH(bool, self);
    QFETCH(bool, grid);
    const Data ref = blobs(400, 6, 4, 11, grid);
    const Data q = self ? ref : blobs(150, 6, 4, 12, grid);
    const auto r = eval::knnClassify(ref.view(), ref.y, q.view(), q.y, k, self);
    const auto expect = bruteKnn(ref, q, k, self);
    int mismatch = 0;
    for (std::size_t i = 0; i < expect.size(); ++i)
        mismatch += r.predicted[i] != expect[i];
    // On the grid, equal distances make the k-th neighbour ambiguous (FAISS and the brute
    // force may break ties differently); allow a handful there, none otherwise.
    QVERIFY2(mismatch <= (grid ? 3 : 0), qPrintable(QString("%1 mismatches").arg(mismatch)));
    int correct = 0;
    for (std::size_t i = 0; i < expect.size(); ++i)
        correct += expect[i] == q.y[i];
    if (!grid)
        QCOMPARE(r.accuracy, double(correct) / double(expect.size()));
}

void TestKnn::selfExclusionKeepsDuplicates()
{
    // Two identical points of different classes: leave-one-out must still see the twin.
    const std::vector<float> x{0, 0, 5, 5.1f};
    const std::vector<std::int32_t> y{0, 1, 1, 0};
    const auto r = eval::knnClassify({x.data(), 4, 1}, y, {x.data(), 4, 1}, y, 1, true);
    QCOMPARE(r.predicted, (std::vector<std::int32_t>{1, 0, 0, 1}));
    const auto nb = eval::nearestNeighbours({x.data(), 4, 1}, {x.data(), 4, 1}, 1, true);
    QCOMPARE(nb.ids[0], std::int64_t(1));
    QCOMPARE(nb.ids[1], std::int64_t(0));
    QCOMPARE(nb.distances[0], 0.0f);
}

void TestKnn::recallMatchesBruteForce()
{
    const Data a = blobs(300, 5, 6, 21, false);
    const std::vector<int> ks{1, 2, 4, 8};
    const auto r = eval::recallAtK(a.view(), a.y, ks);
    for (std::size_t t = 0; t < ks.size(); ++t) {
        int hit = 0;
        for (std::size_t i = 0; i < a.y.size(); ++i) {
            std::vector<std::pair<double, std::size_t>> c;
            for (std::size_t j = 0; j < a.y.size(); ++j)
                if (j != i)
                    c.push_back({dist(&a.x[i * 5], &a.x[j * 5], 5), j});
            std::sort(c.begin(), c.end());
            bool any = false;
            for (int m = 0; m < ks[t]; ++m)
                any = any || a.y[c[std::size_t(m)].second] == a.y[i];
            hit += any;
        }
        QCOMPARE(r[t], double(hit) / double(a.y.size()));
    }
}

void TestKnn::recallHandSolved()
{
    // Points on a line: 0(a) 1(b) 3(a) 10(b). Nearest others: 0->1(b) 1->0(a) 3->1(b) 10->3(a).
    // R@1 = 0. Two nearest: 0->{1,3}: a hit; 1->{0,3}: miss; 3->{1,0}: hit; 10->{3,1}: hit. R@2 = 3/4.
    const std::vector<float> x{0, 1, 3, 10};
    const std::vector<std::int32_t> y{0, 1, 0, 1};
    const auto r = eval::recallAtK({x.data(), 4, 1}, y, {1, 2});
    QCOMPARE(r[0], 0.0);
    QCOMPARE(r[1], 0.75);
}

void TestKnn::unlabelledIgnored()
{
    // The unlabelled point sits right on the query; it must neither vote nor be scored.
    const std::vector<float> ref{0, 3, 4};
    const std::vector<std::int32_t> refY{-1, 1, 1};
    const std::vector<float> q{0, 4};
    const std::vector<std::int32_t> qY{1, -1};
    const auto r = eval::knnClassify({ref.data(), 3, 1}, refY, {q.data(), 2, 1}, qY, 1);
    QCOMPARE(r.predicted[0], 1);
    QCOMPARE(r.predicted[1], -1);
    QCOMPARE(r.evaluated, std::int64_t(1));
}

void TestKnn::evaluateProtocols()
{
    data::DatasetBuilder b;
    b.setDimension(1);
    b.defineLabelSet("fine", {"a", "b"});
    const float pts[] = {0, 0.1f, 5, 5.1f, 0.05f, 5.05f};
    const int lab[] = {0, 0, 1, 1, 0, 1};
    for (int i = 0; i < 6; ++i)
        b.setLabel("fine", b.addItem(&pts[i], nullptr, 1, i < 4 ? data::Split::Train : data::Split::Test), lab[i]);
    const data::Dataset ds = b.finish();
    const auto v = eval::evaluateRawMetrics(ds, "fine");
    QCOMPARE(v.at(0).name, std::string("knn-accuracy"));
    QVERIFY2(v.at(0).doc.find("test-vs-train, 2 queries") != std::string::npos, v.at(0).doc.c_str());
    QCOMPARE(v.at(0).value, 1.0);
    QCOMPARE(v.at(1).name, std::string("recall-hit@1"));
    QCOMPARE(v.at(1).value, 0.0); // within the test split the only other item has the other label
}

void TestKnn::cancel()
{
    const Data a = blobs(20000, 8, 3, 5, false);
    job::JobControl control;
    control.requestCancel();
    QVERIFY_THROWS_EXCEPTION(job::Cancelled, eval::recallAtK(a.view(), a.y, {1}, &control));
}

void TestKnn::dimensionMismatch()
{
    const std::vector<float> a{1, 2, 3, 4};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::nearestNeighbours({a.data(), 2, 2}, {a.data(), 1, 4}, 1, false));
}


// Issue 29 §2: FAISS computes squared distances in float; a row at 1e20 overflowed them, FAISS
// answered id -1, and every caller used it as an index. Now a finite row, however large, is
// searched scaled: no id is -1, no distance is NaN, one float cannot hold is +infinity, and
// every other row's 5 nearest are the brute-force ones (in double, from the input) while the
// scaled values keep their precision (not when FLT_MAX sits beside values near 1, which
// scaling makes subnormal: then only the first three hold); a NaN or infinite row is refused
// naming its row.
void TestKnn::extremeValues_data()
{
    QTest::addColumn<float>("a");
    QTest::addColumn<float>("b");
    QTest::addColumn<QString>("refusal");
    QTest::addColumn<bool>("exactRanks");
    QTest::newRow("1e20") << 1e20f << 0.0f << "" << true;
    QTest::newRow("-1e20, 1e19") << -1e20f << 1e19f << "" << true;
    QTest::newRow("FLT_MAX, -FLT_MAX") << FLT_MAX << -FLT_MAX << "" << false;
    QTest::newRow("-FLT_MAX, 1e30") << -FLT_MAX << 1e30f << "" << false;
    QTest::newRow("subnormals") << 1e-40f << std::numeric_limits<float>::denorm_min() << "" << true;
    QTest::newRow("NaN") << NAN << 0.0f << "nearest neighbours: row 17 of the base holds NaN" << true;
    QTest::newRow("+inf") << INFINITY << 0.0f << "nearest neighbours: row 17 of the base holds an infinite value" << true;
    QTest::newRow("-inf") << 0.0f << -INFINITY << "nearest neighbours: row 17 of the base holds an infinite value" << true;
}

void TestKnn::extremeValues()
{
    QFETCH(float, a);
    QFETCH(float, b);
    QFETCH(QString, refusal);
    QFETCH(bool, exactRanks);
    Data data = blobs(200, 2, 3, 29, false);
    data.x[34] = a;
    data.x[35] = b;
    const int k = 5;
    if (!refusal.isEmpty()) {
        try {
            (void)eval::nearestNeighbours(data.view(), data.view(), k, true);
            QFAIL("accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).startsWith(refusal), e.what());
        }
        return;
    }
    const eval::Neighbours nb = eval::nearestNeighbours(data.view(), data.view(), k, true);
    const auto sq = [&](std::int64_t i, std::int64_t j) {
        double s = 0;
        for (int c = 0; c < 2; ++c) {
            const double t = double(data.x[std::size_t(i * 2 + c)]) - data.x[std::size_t(j * 2 + c)];
            s += t * t;
        }
        return s;
    };
    for (std::int64_t q = 0; q < 200; ++q) {
        for (int j = 0; j < k; ++j) {
            const std::int64_t id = nb.ids[std::size_t(q * k + j)];
            QVERIFY2(id >= 0 && id < 200 && id != q, qPrintable(QString("row %1: id %2").arg(q).arg(id)));
            const float dist = nb.distances[std::size_t(q * k + j)];
            QVERIFY(!std::isnan(dist) && dist >= 0);
            const double want = std::sqrt(sq(q, id));
            if (!exactRanks)
                continue;
            if (want <= double(FLT_MAX))
                QVERIFY2(std::abs(double(dist) - want) <= 1e-3 * want + 1e-3, qPrintable(QString("%1 vs %2").arg(dist).arg(want)));
            else
                QVERIFY(std::isinf(dist));
        }
        if (q == 17 || !exactRanks)
            continue; // every other row is about equally far from row 17: no ranking to compare
        std::vector<std::pair<double, std::int64_t>> all;
        for (std::int64_t j = 0; j < 200; ++j)
            if (j != q)
                all.push_back({sq(q, j), j});
        std::sort(all.begin(), all.end());
        // The k-th distance (ties may swap rows of equal distance).
        const double kth = std::sqrt(all[std::size_t(k - 1)].first);
        QVERIFY2(std::abs(double(nb.distances[std::size_t(q * k + k - 1)]) - kth) <= 1e-4 * kth + 1e-4,
                 qPrintable(QString("row %1").arg(q)));
    }
    // The classifier on it: every query gets a prediction.
    const eval::KnnResult r = eval::knnClassify(data.view(), data.y, data.view(), data.y, 10, true);
    QCOMPARE(r.evaluated, std::int64_t(200));
    QVERIFY(std::none_of(r.predicted.begin(), r.predicted.end(), [](std::int32_t p) { return p < 0; }));
}

QTEST_GUILESS_MAIN(TestKnn)
#include "tst_Knn.moc"
