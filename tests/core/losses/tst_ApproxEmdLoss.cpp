// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/ApproxEmdLoss.h"

#include "LossTestUtil.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <stdexcept>

using namespace setscope;
using losses::ApproxEmdLoss;
using losstest::Matrix;

namespace {

ApproxEmdLoss make(const std::map<std::string, std::string>& given)
{
    return ApproxEmdLoss(losstest::spec(ApproxEmdLoss::schema(), given));
}

sdk::LossContext context(const torch::Tensor& emb, const Matrix& emd)
{
    sdk::LossContext c;
    c.embeddings = emb;
    c.emd = losstest::tensorOf(emd).to(emb.device());
    c.labels = torch::full({emb.size(0)}, -1, torch::TensorOptions().dtype(torch::kInt64).device(emb.device()));
    c.items = torch::arange(emb.size(0), torch::TensorOptions().dtype(torch::kInt64).device(emb.device()));
    return c;
}

// Embeddings (0,0), (1,0), (0,2): squared distances d01 = 1, d02 = 4, d12 = 5.
const Matrix kEmb = {{0, 0}, {1, 0}, {0, 2}};
const Matrix kEmd = {{0, 2, 4}, {2, 0, 5}, {4, 5, 0}};

} // namespace

class TestApproxEmdLoss : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handSolved();
    void handSolvedGradient();
    void matchesScalarReference_data() { losstest::addDeviceRows(); }
    void matchesScalarReference();
    void options();
    void missingEmdThrows();
};

void TestApproxEmdLoss::handSolved()
{
    // s = 1: residuals EMD - d are 1 (pair 0-1), 0, 0, each counted twice (i,j and j,i), over
    // n² = 9 entries (diagonal included): 2 / 9.
    const auto one = make({}).forward(context(losstest::tensorOf(kEmb), kEmd));
    QVERIFY(std::abs(one.loss.item<double>() - 2.0 / 9) < 1e-6);
    QCOMPARE(one.terms, std::int64_t(9));
    QCOMPARE(one.activeTerms, std::int64_t(2));
    // s = 0.5: targets 1, 2, 2.5 -> residuals 0, -2, -2.5: 2 (0 + 4 + 6.25) / 9.
    const auto half = make({{"emd-scale", "0.5"}}).forward(context(losstest::tensorOf(kEmb), kEmd));
    QVERIFY(std::abs(half.loss.item<double>() - 20.5 / 9) < 1e-6);
    QCOMPARE(half.activeTerms, std::int64_t(4));
}

void TestApproxEmdLoss::handSolvedGradient()
{
    // s = 1: only the pair 0-1 has a residual, r = EMD - ||e0 - e1||² = 1, twice.
    // dL/de1 = 2 * (1/9) * 2r * (-d||e0 - e1||²/de1) = (4/9) * -(2 (e1 - e0)) = (-8/9, 0).
    const torch::Tensor e = losstest::tensorOf(kEmb).requires_grad_(true);
    make({}).forward(context(e, kEmd)).loss.backward();
    const Matrix g = losstest::matrixOf(e.grad());
    QVERIFY(std::abs(g[0][0] - 8.0 / 9) < 1e-5 && std::abs(g[0][1]) < 1e-6);
    QVERIFY(std::abs(g[1][0] + 8.0 / 9) < 1e-5 && std::abs(g[1][1]) < 1e-6);
    QVERIFY(std::abs(g[2][0]) < 1e-6 && std::abs(g[2][1]) < 1e-6);
}

void TestApproxEmdLoss::matchesScalarReference()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    for (int trial = 0; trial < 10; ++trial) {
        torch::manual_seed(300 + trial);
        const std::int64_t b = 4 + trial % 3;
        const double scale = 0.25 + 0.5 * trial;
        const torch::Tensor e = torch::randn({b, 2});
        const Matrix emb = losstest::matrixOf(e);
        const Matrix emd = losstest::matrixOf(losstest::tensorOf(losstest::randomEmd(b, 0.1, 3.0)));
        double sum = 0;
        for (std::int64_t i = 0; i < b; ++i)
            for (std::int64_t j = 0; j < b; ++j) {
                const double r = scale * emd[std::size_t(i)][std::size_t(j)] -
                                 losstest::sqDist(emb[std::size_t(i)], emb[std::size_t(j)]);
                sum += r * r;
            }
        const double want = sum / double(b * b);
        const auto got = make({{"emd-scale", std::to_string(scale)}}).forward(context(e.to(dev), emd));
        QVERIFY2(std::abs(got.loss.item<double>() - want) < 1e-5 * std::max(1.0, want),
                 qPrintable(QString("trial %1: got %2 want %3").arg(trial).arg(got.loss.item<double>()).arg(want)));
        QCOMPARE(got.terms, b * b);
        QCOMPARE(got.activeTerms, b * b - b); // every off-diagonal residual is non-zero here
    }
}

void TestApproxEmdLoss::options()
{
    const auto def = make({});
    QCOMPARE(def.emdScale(), 1.0);
    QVERIFY(def.needs().transport);
    QVERIFY(!def.needs().labels && !def.needs().augmentedView);
    QVERIFY(def.parameters().empty());
    QCOMPARE(make({{"emd-scale", "0.01"}}).emdScale(), 0.01);
    for (const char* bad : {"0", "-1", "inf", "x"})
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make({{"emd-scale", bad}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make({{"scale", "1"}}));
}

void TestApproxEmdLoss::missingEmdThrows()
{
    auto loss = make({});
    sdk::LossContext c = context(losstest::tensorOf(kEmb), kEmd);
    c.emd = torch::Tensor();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(c));
    c.emd = torch::zeros({2, 3});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(c));
}

QTEST_GUILESS_MAIN(TestApproxEmdLoss)
#include "tst_ApproxEmdLoss.moc"
