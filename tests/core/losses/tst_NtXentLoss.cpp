// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The loss is reached as every run reaches it, through the registry: it has no header
// (core/losses/NtXentLoss.cpp).
#include "core/builtins/Builtins.h"
#include "core/plugin/Registry.h"

#include "LossTestUtil.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <stdexcept>

using namespace setscope;
using losstest::Matrix;

namespace {

const plugin::Registry& builtinRegistry()
{
    static const plugin::Registry registry = [] {
        plugin::Registry r;
        builtins::registerBuiltins(r);
        return r;
    }();
    return registry;
}

std::shared_ptr<sdk::MetricLoss> make(const std::map<std::string, std::string>& given)
{
    const sdk::LossInfo& info = builtinRegistry().requireLoss("nt-xent");
    return info.create(losstest::spec(info.options, given));
}

sdk::LossContext context(const torch::Tensor& emb, const torch::Tensor& aug)
{
    sdk::LossContext c;
    c.embeddings = emb;
    c.augmented = aug;
    c.labels = torch::full({emb.size(0)}, -1, torch::TensorOptions().dtype(torch::kInt64).device(emb.device()));
    c.items = torch::arange(emb.size(0), torch::TensorOptions().dtype(torch::kInt64).device(emb.device()));
    return c;
}

/// SimCLR's NT-Xent in loops: views 0..B-1 the embeddings, B..2B-1 the augmented ones.
double reference(const Matrix& emb, const Matrix& aug, double tau)
{
    Matrix z = emb;
    z.insert(z.end(), aug.begin(), aug.end());
    const std::size_t n = z.size(), b = emb.size();
    const auto cosine = [&](std::size_t i, std::size_t j) {
        double dot = 0, ni = 0, nj = 0;
        for (std::size_t k = 0; k < z[i].size(); ++k) {
            dot += z[i][k] * z[j][k];
            ni += z[i][k] * z[i][k];
            nj += z[j][k] * z[j][k];
        }
        return dot / std::sqrt(ni * nj);
    };
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t partner = i < b ? i + b : i - b;
        double denom = 0;
        for (std::size_t j = 0; j < n; ++j)
            if (j != i)
                denom += std::exp(cosine(i, j) / tau);
        total += -std::log(std::exp(cosine(i, partner) / tau) / denom);
    }
    return total / double(n);
}

} // namespace

class TestNtXentLoss : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handSolved();
    void matchesScalarReference_data() { losstest::addDeviceRows(); }
    void matchesScalarReference();
    void gradientsReachBothViews();
    void options();
    void missingAugmentedViewThrows();
};

void TestNtXentLoss::handSolved()
{
    // Two sets at (1,0) and (0,1), each view pointing the same way as its set (the second
    // view of set 0 three times longer: cosine ignores the norm). Every view has cosine 1
    // with its partner and 0 with the two others:
    //   ℓ = -log(e^{1/τ} / (e^{1/τ} + 2)) = log(1 + 2 e^{-1/τ}) for all four views.
    const torch::Tensor e = torch::tensor({1.f, 0.f, 0.f, 1.f}).view({2, 2});
    const torch::Tensor a = torch::tensor({3.f, 0.f, 0.f, 1.f}).view({2, 2});
    for (const double tau : {0.5, 1.0, 0.1}) {
        const auto out = make({{"temperature", std::to_string(tau)}})->forward(context(e, a));
        QVERIFY(std::abs(out.loss.item<double>() - std::log(1 + 2 * std::exp(-1 / tau))) < 1e-6);
        QCOMPARE(out.terms, std::int64_t(4));
        QCOMPARE(out.activeTerms, std::int64_t(4));
    }
}

void TestNtXentLoss::matchesScalarReference()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    for (int trial = 0; trial < 10; ++trial) {
        torch::manual_seed(700 + trial);
        const std::int64_t b = 3 + trial % 4;
        const double tau = trial % 2 ? 0.5 : 0.2 + 0.1 * trial;
        const torch::Tensor e = torch::randn({b, 2});
        const torch::Tensor a = e + 0.5 * torch::randn({b, 2});
        const double want = reference(losstest::matrixOf(e), losstest::matrixOf(a), tau);
        const auto got = make({{"temperature", std::to_string(tau)}})->forward(context(e.to(dev), a.to(dev)));
        QVERIFY2(std::abs(got.loss.item<double>() - want) < 1e-5,
                 qPrintable(QString("trial %1: got %2 want %3").arg(trial).arg(got.loss.item<double>()).arg(want)));
        QCOMPARE(got.terms, 2 * b);
    }
}

void TestNtXentLoss::gradientsReachBothViews()
{
    torch::manual_seed(11);
    const torch::Tensor e = torch::randn({5, 3}, torch::requires_grad());
    const torch::Tensor a = torch::randn({5, 3}, torch::requires_grad());
    make({})->forward(context(e, a)).loss.backward();
    QVERIFY(e.grad().abs().sum().item<double>() > 0);
    QVERIFY(a.grad().abs().sum().item<double>() > 0);
    QVERIFY(torch::isfinite(e.grad()).all().item<bool>() && torch::isfinite(a.grad()).all().item<bool>());
}

void TestNtXentLoss::options()
{
    const auto def = make({});
    QVERIFY(def->needs().augmentedView);
    QVERIFY(!def->needs().labels && !def->needs().transport);
    QVERIFY(def->parameters().empty());
    // τ is 0.5 unless given (the loss of the hand-solved batch says which τ it used), up to 100.
    const torch::Tensor e = torch::tensor({1.f, 0.f, 0.f, 1.f}).view({2, 2});
    const auto lossAt = [&](const std::shared_ptr<sdk::MetricLoss>& l) { return l->forward(context(e, e)).loss.item<double>(); };
    QVERIFY(std::abs(lossAt(def) - std::log(1 + 2 * std::exp(-1 / 0.5))) < 1e-6);
    QVERIFY(std::abs(lossAt(make({{"temperature", "100"}})) - std::log(1 + 2 * std::exp(-1 / 100.0))) < 1e-6);
    for (const char* bad : {"0", "-0.5", "100.01", "nan"})
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make({{"temperature", bad}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make({{"tau", "0.5"}}));
}

void TestNtXentLoss::missingAugmentedViewThrows()
{
    const auto loss = make({});
    const torch::Tensor e = torch::randn({4, 2});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss->forward(context(e, torch::Tensor())));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss->forward(context(e, torch::randn({3, 2}))));
}

QTEST_GUILESS_MAIN(TestNtXentLoss)
#include "tst_NtXentLoss.moc"
