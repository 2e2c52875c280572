// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/eval/Knn.h"
#include "core/eval/Recall.h"
#include "core/job/Job.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
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

/// Continuous Gaussian blobs (no ties), a few items unlabelled when `unlabelled`.
Data blobs(int n, int d, int classes, std::uint64_t seed, bool unlabelled)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0, 1);
    Data out;
    out.d = d;
    for (int i = 0; i < n; ++i) {
        const int c = int(rng() % std::uint64_t(classes));
        out.y.push_back(unlabelled && i % 7 == 3 ? -1 : c);
        for (int k = 0; k < d; ++k)
            out.x.push_back(float(c) * 1.2f * (k == c % d ? 1.f : 0.f) + g(rng));
    }
    return out;
}

struct Expected {
    std::vector<double> hit, cls, prec;
};

/// Brute force from the definitions in Recall.h: sort the other labelled items by distance.
Expected bruteForce(const Data& a, const std::vector<int>& ks)
{
    std::vector<std::size_t> lab;
    for (std::size_t i = 0; i < a.y.size(); ++i)
        if (a.y[i] >= 0)
            lab.push_back(i);
    Expected e;
    e.hit.assign(ks.size(), 0);
    e.cls.assign(ks.size(), 0);
    e.prec.assign(ks.size(), 0);
    std::int64_t clsQueries = 0;
    for (std::size_t i : lab) {
        std::vector<std::pair<double, std::size_t>> c;
        std::int64_t sameOthers = 0;
        for (std::size_t j : lab) {
            if (j == i)
                continue;
            double s = 0;
            for (int k = 0; k < a.d; ++k) {
                const double t = double(a.x[i * std::size_t(a.d) + std::size_t(k)]) - a.x[j * std::size_t(a.d) + std::size_t(k)];
                s += t * t;
            }
            c.push_back({s, j});
            sameOthers += a.y[j] == a.y[i];
        }
        std::sort(c.begin(), c.end());
        clsQueries += sameOthers > 0;
        for (std::size_t t = 0; t < ks.size(); ++t) {
            int h = 0;
            for (int m = 0; m < ks[t] && m < int(c.size()); ++m)
                h += a.y[c[std::size_t(m)].second] == a.y[i];
            e.hit[t] += h > 0;
            e.prec[t] += double(h) / double(std::min<std::size_t>(std::size_t(ks[t]), c.size()));
            if (sameOthers > 0)
                e.cls[t] += double(h) / double(sameOthers);
        }
    }
    for (std::size_t t = 0; t < ks.size(); ++t) {
        e.hit[t] /= double(lab.size());
        e.prec[t] /= double(lab.size());
        e.cls[t] /= double(clsQueries);
    }
    return e;
}

void compareVectors(const std::vector<double>& got, const std::vector<double>& want, const char* what)
{
    QCOMPARE(got.size(), want.size());
    for (std::size_t t = 0; t < want.size(); ++t)
        QVERIFY2(std::abs(got[t] - want[t]) < 1e-12,
                 qPrintable(QString("%1[%2]: %3 vs %4").arg(what).arg(t).arg(got[t], 0, 'g', 17).arg(want[t], 0, 'g', 17)));
}

} // namespace

class TestRecall : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handSolvedLine();
    void separatedClassesGrowLinearlyInK();
    void singletonClassLeftOutOfRecallClass();
    void matchesBruteForce_data();
    void matchesBruteForce();
    void recallHitIsTheExistingRecallAtK();
    void badInput();
    void cancel();
};

void TestRecall::handSolvedLine()
{
    // On a line: 0 (a), 1 (a), 2.5 (b), 5.2 (a), 7 (b); an unlabelled item at 1.2 is
    // neither query nor neighbour. Neighbour classes in order of distance:
    //   0   -> 1 a, 2.5 b, 5.2 a, 7 b      1   -> 0 a, 2.5 b, 5.2 a, 7 b
    //   2.5 -> 1 a, 0 a, 5.2 a, 7 b        5.2 -> 7 b, 2.5 b, 1 a, 0 a
    //   7   -> 5.2 a, 2.5 b, 1 a, 0 a
    // Class a has 2 other members for each of its items, class b 1.
    const std::vector<float> x{0, 1, 2.5f, 1.2f, 5.2f, 7};
    const std::vector<std::int32_t> y{0, 0, 1, -1, 0, 1};
    const auto s = eval::retrievalAtK({x.data(), 6, 1}, y, {1, 2, 4, 8});
    QCOMPARE(s.queries, std::int64_t(5));
    QCOMPARE(s.recallClassQueries, std::int64_t(5));
    // K=1: hits 1,1,0,0,0.  K=2: 1,1,0,0,1.  K=4 (everything): 2,2,1,2,1.  K=8 as K=4.
    compareVectors(s.recallHit, {2.0 / 5, 3.0 / 5, 1.0, 1.0}, "recall-hit");
    compareVectors(s.precision, {2.0 / 5, (0.5 + 0.5 + 0.5) / 5, (2.0 + 2 + 1 + 2 + 1) / 4 / 5, (2.0 + 2 + 1 + 2 + 1) / 4 / 5},
                   "precision");
    compareVectors(s.recallClass, {(0.5 + 0.5) / 5, (0.5 + 0.5 + 1.0) / 5, 1.0, 1.0}, "recall-class");
    compareVectors(eval::recallHitAtK({x.data(), 6, 1}, y, {1, 2, 4, 8}), s.recallHit, "recallHitAtK");
    compareVectors(eval::recallClassAtK({x.data(), 6, 1}, y, {1, 2, 4, 8}), s.recallClass, "recallClassAtK");
    compareVectors(eval::precisionAtK({x.data(), 6, 1}, y, {1, 2, 4, 8}), s.precision, "precisionAtK");
}

void TestRecall::separatedClassesGrowLinearlyInK()
{
    // Two far-apart classes of 3 and 5 points: every neighbour inside the class comes first.
    // recall-class@K = min(K, n_c - 1) / (n_c - 1), growing with K like seed 000 Table II;
    // precision@K = min(K, n_c - 1) / K falls once K passes the class size; recall-hit is 1.
    const std::vector<float> x{0, 0.1f, 0.3f, 100, 100.2f, 100.5f, 100.9f, 101.4f};
    const std::vector<std::int32_t> y{0, 0, 0, 1, 1, 1, 1, 1};
    const auto s = eval::retrievalAtK({x.data(), 8, 1}, y, {1, 2, 4});
    compareVectors(s.recallClass, {(3 * 0.5 + 5 * 0.25) / 8, (3 * 1.0 + 5 * 0.5) / 8, 1.0}, "recall-class");
    compareVectors(s.precision, {1.0, 1.0, (3 * 0.5 + 5 * 1.0) / 8}, "precision");
    compareVectors(s.recallHit, {1.0, 1.0, 1.0}, "recall-hit");
}

void TestRecall::singletonClassLeftOutOfRecallClass()
{
    // Class c has one member: it has nothing to recall, so it is not a recall-class query;
    // it still counts (as a miss) for recall-hit and precision.
    const std::vector<float> x{0, 1, 10};
    const std::vector<std::int32_t> y{0, 0, 2};
    const auto s = eval::retrievalAtK({x.data(), 3, 1}, y, {1});
    QCOMPARE(s.queries, std::int64_t(3));
    QCOMPARE(s.recallClassQueries, std::int64_t(2));
    compareVectors(s.recallClass, {1.0}, "recall-class");
    compareVectors(s.recallHit, {2.0 / 3}, "recall-hit");
    compareVectors(s.precision, {2.0 / 3}, "precision");
}

void TestRecall::matchesBruteForce_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("classes");
    QTest::addColumn<bool>("unlabelled");
    QTest::newRow("300 items, 6 classes") << 300 << 6 << false;
    QTest::newRow("250 items, 3 classes, some unlabelled") << 250 << 3 << true;
    QTest::newRow("12 items, K beyond n") << 12 << 2 << false;
}

void TestRecall::matchesBruteForce()
{
    QFETCH(int, n);
    QFETCH(int, classes);
    QFETCH(bool, unlabelled);
    const Data a = blobs(n, 5, classes, std::uint64_t(n), unlabelled);
    const std::vector<int> ks{1, 2, 4, 8, 16, 30};
    const auto s = eval::retrievalAtK(a.view(), a.y, ks);
    const Expected e = bruteForce(a, ks);
    compareVectors(s.recallHit, e.hit, "recall-hit");
    compareVectors(s.recallClass, e.cls, "recall-class");
    compareVectors(s.precision, e.prec, "precision");
}

void TestRecall::recallHitIsTheExistingRecallAtK()
{
    const Data a = blobs(200, 4, 5, 3, true);
    const std::vector<int> ks{1, 2, 4, 8};
    compareVectors(eval::recallHitAtK(a.view(), a.y, ks), eval::recallAtK(a.view(), a.y, ks), "recall-hit vs recallAtK");
}

void TestRecall::badInput()
{
    const std::vector<float> x{0, 1, 2};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::retrievalAtK({x.data(), 3, 1}, {0, 1}, {1}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::retrievalAtK({x.data(), 3, 1}, {0, 1, 0}, {1, 0}));
    // Fewer than two labelled items: nothing to retrieve, all zero.
    const auto s = eval::retrievalAtK({x.data(), 3, 1}, {0, -1, -1}, {1, 2});
    compareVectors(s.recallClass, {0, 0}, "recall-class");
    QCOMPARE(s.queries, std::int64_t(0));
}

void TestRecall::cancel()
{
    const Data a = blobs(20000, 8, 3, 5, false);
    job::JobControl control;
    control.requestCancel();
    QVERIFY_THROWS_EXCEPTION(job::Cancelled, eval::retrievalAtK(a.view(), a.y, {1}, &control));
}

QTEST_GUILESS_MAIN(TestRecall)
#include "tst_Recall.moc"
