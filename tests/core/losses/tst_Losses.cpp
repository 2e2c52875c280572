// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/ContrastiveLoss.h"
#include "core/losses/Mining.h"
#include "core/losses/TripletLoss.h"

#include "LossTestUtil.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <limits>
#include <vector>

using namespace setscope;

namespace {

double sqDist(const torch::Tensor& e, std::int64_t i, std::int64_t j)
{
    return (e[i] - e[j]).pow(2).sum().item<double>();
}

/// Brute-force FaceNet semi-hard choice for one (a, p), straight from the definition.
std::int64_t bruteSemiHard(const torch::Tensor& e, const std::vector<std::int64_t>& y, std::int64_t a, std::int64_t p)
{
    const double dap = sqDist(e, a, p);
    std::int64_t best = -1, far = -1;
    double bestD = std::numeric_limits<double>::infinity(), farD = -1;
    for (std::int64_t n = 0; n < std::int64_t(y.size()); ++n) {
        if (y[std::size_t(n)] < 0 || y[std::size_t(n)] == y[std::size_t(a)])
            continue;
        const double dan = sqDist(e, a, n);
        if (dan > dap && dan < bestD) {
            bestD = dan;
            best = n;
        }
        if (dan > farD) {
            farD = dan;
            far = n;
        }
    }
    return best >= 0 ? best : far;
}

torch::Tensor labelsOf(const std::vector<std::int64_t>& y)
{
    return torch::tensor(y, torch::kInt64);
}

using Matrix = std::vector<std::vector<double>>;

Matrix matrixOf(const torch::Tensor& t)
{
    const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat64).contiguous();
    Matrix m(std::size_t(c.size(0)), std::vector<double>(std::size_t(c.size(1))));
    for (std::size_t i = 0; i < m.size(); ++i)
        for (std::size_t j = 0; j < m[i].size(); ++j)
            m[i][j] = c.data_ptr<double>()[i * m[i].size() + j];
    return m;
}

std::vector<std::int64_t> vecOf(const torch::Tensor& t)
{
    const torch::Tensor c = t.to(torch::kCPU, torch::kInt64).contiguous();
    return {c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel()};
}

} // namespace

class TestLosses : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pairwiseDistances_data();
    void pairwiseDistances();
    void semiHardMatchesBruteForce_data();
    void semiHardMatchesBruteForce();
    void semiHardFallbackHandSolved();
    void tripletValueMatchesFormula();
    void tripletGradientIsFinite();
    void contrastiveHandSolved();
    void contrastiveMatchesFormula();
    void noPairsGivesZero();
    void nearestOtherMatchesBruteForce_data();
    void nearestOtherMatchesBruteForce();
    void semiHardExplicitMatchesBruteForce_data();
    void semiHardExplicitMatchesBruteForce();
    void semiHardExplicitHandSolved();

private:
    void addDeviceRows();
};

void TestLosses::addDeviceRows()
{
    QTest::addColumn<QString>("device");
    QTest::newRow("cpu") << "cpu";
    if (torch::cuda::is_available())
        QTest::newRow("cuda:0") << "cuda:0";
}

void TestLosses::pairwiseDistances_data() { addDeviceRows(); }

void TestLosses::pairwiseDistances()
{
    QFETCH(QString, device);
    torch::manual_seed(3);
    const torch::Tensor x = torch::randn({9, 4}).to(torch::Device(device.toStdString()));
    const torch::Tensor d = losses::pairwiseSquaredDistances(x).cpu();
    const torch::Tensor xc = x.cpu();
    for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j)
            QVERIFY(std::abs(d[i][j].item<double>() - sqDist(xc, i, j)) < 1e-4);
    QCOMPARE(d.diagonal().abs().sum().item<double>(), 0.0);
}

void TestLosses::semiHardMatchesBruteForce_data() { addDeviceRows(); }

void TestLosses::semiHardMatchesBruteForce()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    for (int trial = 0; trial < 5; ++trial) {
        torch::manual_seed(100 + trial);
        const std::int64_t b = 70 + trial * 13; // > 64 exercises the anchor chunking
        const torch::Tensor e = torch::randn({b, 3});
        std::vector<std::int64_t> y(static_cast<std::size_t>(b));
        for (std::int64_t i = 0; i < b; ++i)
            y[std::size_t(i)] = (i * 7 + trial) % 5 - (i % 17 == 0 ? 6 : 0); // some -1..-6: unlabelled
        for (auto& v : y)
            v = v < 0 ? -1 : v;
        const torch::Tensor idx =
            losses::semiHardNegatives(losses::pairwiseSquaredDistances(e.to(dev)), labelsOf(y).to(dev)).cpu();
        for (std::int64_t a = 0; a < b; ++a)
            for (std::int64_t p = 0; p < b; ++p) {
                const bool pos = a != p && y[std::size_t(a)] >= 0 && y[std::size_t(a)] == y[std::size_t(p)];
                const std::int64_t got = idx[a][p].item<std::int64_t>();
                if (!pos) {
                    QCOMPARE(got, std::int64_t(-1));
                    continue;
                }
                const std::int64_t want = bruteSemiHard(e, y, a, p);
                // Equal distances could make two negatives equally valid; compare distances.
                QVERIFY(got >= 0);
                QVERIFY2(std::abs(sqDist(e, a, got) - sqDist(e, a, want)) < 1e-5,
                         qPrintable(QString("a=%1 p=%2 got %3 want %4").arg(a).arg(p).arg(got).arg(want)));
                QVERIFY(y[std::size_t(got)] != y[std::size_t(a)] && y[std::size_t(got)] >= 0);
            }
    }
}

void TestLosses::semiHardFallbackHandSolved()
{
    // 1-D: anchor 0 (class 0) at 0, positive 1 (class 0) at 10, negatives (class 1) at 1 and 2.
    // No negative is farther than the positive (100): the fallback takes the farthest, item 3.
    // For anchor 1 (at 10) with positive 0: d(ap)=100; negatives at distance 81 and 64: again
    // the farthest one, item 2.
    const torch::Tensor e = torch::tensor({0.0f, 10.0f, 1.0f, 2.0f}).unsqueeze(1);
    const torch::Tensor y = labelsOf({0, 0, 1, 1});
    const torch::Tensor idx = losses::semiHardNegatives(losses::pairwiseSquaredDistances(e), y);
    QCOMPARE(idx[0][1].item<std::int64_t>(), std::int64_t(3));
    QCOMPARE(idx[1][0].item<std::int64_t>(), std::int64_t(2));
    // Anchor 2 (at 1, class 1) with positive 3 (at 2): d(ap)=1; negatives at 0 (d=1, not
    // farther) and 10 (d=81): the semi-hard one is item 1.
    QCOMPARE(idx[2][1].item<std::int64_t>(), std::int64_t(-1)); // not a positive pair
    QCOMPARE(idx[2][3].item<std::int64_t>(), std::int64_t(1));
}

void TestLosses::tripletValueMatchesFormula()
{
    torch::manual_seed(7);
    const std::int64_t b = 24;
    const torch::Tensor e = torch::randn({b, 5});
    std::vector<std::int64_t> y;
    for (std::int64_t i = 0; i < b; ++i)
        y.push_back(i % 4);
    const double alpha = 0.3;
    losses::TripletLoss loss(alpha);
    const sdk::LossOutput out = loss.compute(e, labelsOf(y));
    // Seed 000 Eq. (1), summed in double over every anchor-positive pair.
    double sum = 0;
    std::int64_t n = 0, active = 0;
    for (std::int64_t a = 0; a < b; ++a)
        for (std::int64_t p = 0; p < b; ++p) {
            if (a == p || y[std::size_t(a)] != y[std::size_t(p)])
                continue;
            const std::int64_t neg = bruteSemiHard(e, y, a, p);
            const double l = std::max(0.0, sqDist(e, a, p) - sqDist(e, a, neg) + alpha);
            sum += l;
            ++n;
            active += l > 0;
        }
    QCOMPARE(out.terms, n);
    QCOMPARE(out.activeTerms, active);
    QVERIFY(std::abs(out.loss.item<double>() - sum / double(n)) < 1e-5);
}

void TestLosses::tripletGradientIsFinite()
{
    // Coincident points (distance exactly 0) must not produce NaN gradients.
    torch::Tensor e = torch::zeros({6, 3}, torch::requires_grad());
    const torch::Tensor y = labelsOf({0, 0, 1, 1, 2, 2});
    losses::TripletLoss loss;
    const auto out = loss.compute(e, y);
    out.loss.backward();
    QVERIFY(torch::isfinite(e.grad()).all().item<bool>());
    QVERIFY(std::abs(out.loss.item<double>() - losses::TripletLoss::kDefaultMargin) < 1e-6); // float32
}

void TestLosses::contrastiveHandSolved()
{
    // Points 0, 3 (class 0) and 0.5 (class 1), margin 1:
    // pair (0,3) positive: d = 3; pairs (0,0.5) and (3,0.5) negative: max(0, 1-0.5)=0.5 and 0.
    // Mean over 3 pairs = (3 + 0.5 + 0) / 3.
    const torch::Tensor e = torch::tensor({0.0f, 3.0f, 0.5f}).unsqueeze(1);
    losses::ContrastiveLoss loss(1.0);
    const auto out = loss.compute(e, labelsOf({0, 0, 1}));
    QVERIFY(std::abs(out.loss.item<double>() - 3.5 / 3.0) < 1e-6);
    QCOMPARE(out.terms, std::int64_t(3));
}

void TestLosses::contrastiveMatchesFormula()
{
    torch::manual_seed(9);
    const torch::Tensor e = torch::randn({15, 4}) * 0.5;
    std::vector<std::int64_t> y;
    for (int i = 0; i < 15; ++i)
        y.push_back(i % 3 == 0 ? -1 : i % 4);
    const double m = 1.3;
    const auto out = losses::ContrastiveLoss(m).compute(e, labelsOf(y));
    double sum = 0;
    int n = 0;
    for (int i = 0; i < 15; ++i)
        for (int j = i + 1; j < 15; ++j) {
            if (y[std::size_t(i)] < 0 || y[std::size_t(j)] < 0)
                continue;
            const double d = std::sqrt(sqDist(e, i, j));
            sum += y[std::size_t(i)] == y[std::size_t(j)] ? d : std::max(0.0, m - d);
            ++n;
        }
    QCOMPARE(out.terms, std::int64_t(n));
    QVERIFY(std::abs(out.loss.item<double>() - sum / n) < 1e-5);
}

void TestLosses::noPairsGivesZero()
{
    const torch::Tensor e = torch::randn({4, 2}, torch::requires_grad());
    const auto t = losses::TripletLoss().compute(e, labelsOf({0, 1, 2, 3})); // no positives
    QCOMPARE(t.terms, std::int64_t(0));
    QCOMPARE(t.loss.item<double>(), 0.0);
    t.loss.backward(); // still a valid graph
    const auto c = losses::ContrastiveLoss().compute(e, labelsOf({-1, -1, -1, 0}));
    QCOMPARE(c.terms, std::int64_t(0));
}

void TestLosses::nearestOtherMatchesBruteForce_data() { addDeviceRows(); }

void TestLosses::semiHardExplicitMatchesBruteForce_data() { addDeviceRows(); }

void TestLosses::nearestOtherMatchesBruteForce()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    for (int trial = 0; trial < 60; ++trial) {
        torch::manual_seed(500 + trial);
        const std::int64_t b = 1 + trial % 12;
        // Small integers: many exact ties, to pin the lowest-index rule.
        const torch::Tensor d = torch::randint(0, 4, {b, b}, torch::kFloat32);
        const auto got = vecOf(losses::nearestOther(d.to(dev)));
        const Matrix m = matrixOf(d);
        QCOMPARE(std::int64_t(got.size()), b);
        for (std::int64_t a = 0; a < b; ++a) {
            std::int64_t want = -1;
            for (std::int64_t j = 0; j < b; ++j)
                if (j != a && (want < 0 || m[std::size_t(a)][std::size_t(j)] < m[std::size_t(a)][std::size_t(want)]))
                    want = j;
            QVERIFY2(got[std::size_t(a)] == want,
                     qPrintable(QString("trial %1 row %2: got %3 want %4").arg(trial).arg(a).arg(got[std::size_t(a)]).arg(want)));
        }
    }
}


void TestLosses::semiHardExplicitMatchesBruteForce()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    int fallbacks = 0, semiHard = 0, empty = 0;
    for (int trial = 0; trial < 200; ++trial) {
        torch::manual_seed(1000 + trial);
        const std::int64_t a = 1 + trial % 9;
        const std::int64_t n = trial % 13; // 0 columns included
        // Integer-valued distances and thresholds: exact ties with each other and with the positive.
        const torch::Tensor d = torch::randint(0, 6, {a, n}, torch::kFloat32);
        const torch::Tensor pos = torch::randint(0, 6, {a}, torch::kFloat32);
        const torch::Tensor cand = torch::rand({a, n}) < 0.6;
        const auto got = vecOf(losses::semiHardNegatives(d.to(dev), pos.to(dev), cand.to(dev)));
        const Matrix dm = n ? matrixOf(d) : Matrix(std::size_t(a));
        QCOMPARE(std::int64_t(got.size()), a);
        for (std::int64_t r = 0; r < a; ++r) {
            std::vector<bool> c(static_cast<std::size_t>(n));
            bool anyOutside = false;
            for (std::int64_t k = 0; k < n; ++k) {
                c[std::size_t(k)] = cand[r][k].item<bool>();
                anyOutside |= c[std::size_t(k)] && dm[std::size_t(r)][std::size_t(k)] > pos[r].item<double>();
            }
            const std::int64_t want = losstest::bruteSemiHard(dm[std::size_t(r)], pos[r].item<double>(), c);
            fallbacks += want >= 0 && !anyOutside;
            semiHard += anyOutside;
            empty += want < 0;
            QVERIFY2(got[std::size_t(r)] == want,
                     qPrintable(QString("trial %1 row %2: got %3 want %4").arg(trial).arg(r).arg(got[std::size_t(r)]).arg(want)));
        }
    }
    // The random batches exercised every branch.
    QVERIFY(fallbacks > 20);
    QVERIFY(semiHard > 20);
    QVERIFY(empty > 5);
}


void TestLosses::semiHardExplicitHandSolved()
{
    // Row 0: positive distance 2; candidates 1 (d=3), 2 (d=5), 3 (d=3, not a candidate), 0 (d=2,
    //        not farther): the closest farther candidate is column 1.
    // Row 1: positive distance 9; nothing farther: the farthest candidate, the first of the two 7s.
    // Row 2: no candidate at all.
    const torch::Tensor d = torch::tensor({2.f, 3.f, 5.f, 1.f, 7.f, 1.f, 7.f, 0.f, 1.f, 1.f, 1.f, 1.f}).view({3, 4});
    const torch::Tensor pos = torch::tensor({2.f, 9.f, 0.f});
    const torch::Tensor cand = torch::tensor({1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0}).view({3, 4}).to(torch::kBool);
    QCOMPARE(vecOf(losses::semiHardNegatives(d, pos, cand)), (std::vector<std::int64_t>{1, 0, -1}));
}


QTEST_GUILESS_MAIN(TestLosses)
#include "tst_Losses.moc"
