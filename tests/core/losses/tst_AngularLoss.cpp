// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The angular loss on the metric δ²_L of seed 004 Eq. (3): hand-computed values, a
// finite-difference gradient check in double, and the sdk::MetricLoss module around it.
#include "core/losses/AngularLoss.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <map>
#include <string>

using namespace setscope;

namespace {

double softplus(double m) { return m > 0 ? m + std::log1p(std::exp(-m)) : std::log1p(std::exp(m)); }

torch::Tensor rows(std::initializer_list<std::initializer_list<double>> r)
{
    std::vector<torch::Tensor> out;
    for (const auto& row : r)
        out.push_back(torch::tensor(std::vector<double>(row), torch::kFloat64));
    return torch::stack(out);
}

// Three triplets in the plane with, at α = 45° (4 tan²α = 4):
//   (0,0) (1,0) (0,2):     δ²(a,p) = 1, δ²(n, (a+p)/2) = 0.25 + 4    -> m = 1 - 17 = -16
//   (1,1) (2,1) (1,1.5):   δ²(a,p) = 1, δ²(n, (1.5,1)) = 0.25 + 0.25 -> m = 1 - 2 = -1
//   (0,0) (3,0) (1.5,0.5): δ²(a,p) = 9, δ²(n, (1.5,0)) = 0.25        -> m = 9 - 1 = 8
const double kMargins45[3] = {-16.0, -1.0, 8.0};
torch::Tensor anchors() { return rows({{0, 0}, {1, 1}, {0, 0}}); }
torch::Tensor positives() { return rows({{1, 0}, {2, 1}, {3, 0}}); }
torch::Tensor negatives() { return rows({{0, 2}, {1, 1.5}, {1.5, 0.5}}); }

sdk::LossSpec specOf(std::int64_t d, const std::map<std::string, std::string>& given = {})
{
    sdk::LossSpec s;
    s.options = sdk::OptionValues::resolve(losses::AngularLoss::schema(), given, "ssdml-angular");
    s.embeddingDim = d;
    return s;
}

} // namespace

class TestAngularLoss : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handComputedIdentity();
    void handComputedRotationAndProjection();
    void handComputedScaledMetricAt40Degrees();
    void gradientMatchesFiniteDifferences();
    void largeMarginsDoNotOverflow();
    void moduleReadsTripletLayout();
    void moduleOptions();
    void moduleStepsTheMetric();
    void moduleSolvesTheMetricWithTheNetworkFixed();
};

void TestAngularLoss::handComputedIdentity()
{
    const torch::Tensor m = losses::angularMargins(anchors(), positives(), negatives(), torch::eye(2, torch::kFloat64), 45);
    for (int i = 0; i < 3; ++i)
        QVERIFY(std::abs(m[i].item<double>() - kMargins45[i]) < 1e-12);
    const double want = (softplus(-16) + softplus(-1) + softplus(8)) / 3;
    const double got = losses::angularLoss(anchors(), positives(), negatives(), torch::eye(2, torch::kFloat64), 45).item<double>();
    QVERIFY2(std::abs(got - want) < 1e-12, qPrintable(QString("%1 vs %2").arg(got, 0, 'g', 17).arg(want, 0, 'g', 17)));
}

void TestAngularLoss::handComputedRotationAndProjection()
{
    // A rotation leaves every δ² and so the loss unchanged.
    const double c = std::cos(0.5236), s = std::sin(0.5236);
    const torch::Tensor rot = rows({{c, -s}, {s, c}});
    const double want = (softplus(-16) + softplus(-1) + softplus(8)) / 3;
    QVERIFY(std::abs(losses::angularLoss(anchors(), positives(), negatives(), rot, 45).item<double>() - want) < 1e-12);
    // d = 3, l = 2: L keeps the first two coordinates; a third coordinate that would change
    // every distance is projected away.
    const torch::Tensor proj = rows({{1, 0}, {0, 1}, {0, 0}});
    const torch::Tensor third = rows({{5}, {-3}, {2}});
    const torch::Tensor a = torch::cat({anchors(), third}, 1);
    const torch::Tensor p = torch::cat({positives(), -third}, 1);
    const torch::Tensor n = torch::cat({negatives(), 4 * third}, 1);
    const torch::Tensor m = losses::angularMargins(a, p, n, proj, 45);
    for (int i = 0; i < 3; ++i)
        QVERIFY(std::abs(m[i].item<double>() - kMargins45[i]) < 1e-12);
    // The same L rotated within its column space: still the same loss.
    QVERIFY(std::abs(losses::angularLoss(a, p, n, proj.matmul(rot), 45).item<double>() - want) < 1e-12);
}

void TestAngularLoss::handComputedScaledMetricAt40Degrees()
{
    // L = 2 I multiplies every δ² by 4; α = 40°: m = 4 (δ²(a,p) - 4 tan²40° δ²(n, avg)).
    const double t = std::tan(40.0 * M_PI / 180.0);
    const double dap[3] = {1, 1, 9}, dnm[3] = {4.25, 0.5, 0.25};
    double want = 0;
    for (int i = 0; i < 3; ++i)
        want += softplus(4 * (dap[i] - 4 * t * t * dnm[i])) / 3;
    const double got =
        losses::angularLoss(anchors(), positives(), negatives(), 2 * torch::eye(2, torch::kFloat64), 40).item<double>();
    QVERIFY2(std::abs(got - want) < 1e-12, qPrintable(QString("%1 vs %2").arg(got, 0, 'g', 17).arg(want, 0, 'g', 17)));
}

void TestAngularLoss::gradientMatchesFiniteDifferences()
{
    torch::manual_seed(3);
    const auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    torch::Tensor a = torch::randn({4, 5}, opts).requires_grad_();
    torch::Tensor p = torch::randn({4, 5}, opts).requires_grad_();
    torch::Tensor n = torch::randn({4, 5}, opts).requires_grad_();
    torch::Tensor l = (0.5 * torch::randn({5, 3}, opts)).requires_grad_();
    losses::angularLoss(a, p, n, l, 40).backward();
    const double eps = 1e-6;
    for (torch::Tensor* x : {&a, &p, &n, &l}) {
        const torch::Tensor g = x->grad().clone();
        torch::Tensor flat = x->detach().view({-1});
        for (std::int64_t i = 0; i < flat.numel(); ++i) {
            const double keep = flat[i].item<double>();
            flat[i] = keep + eps;
            const double up = losses::angularLoss(a.detach(), p.detach(), n.detach(), l.detach(), 40).item<double>();
            flat[i] = keep - eps;
            const double down = losses::angularLoss(a.detach(), p.detach(), n.detach(), l.detach(), 40).item<double>();
            flat[i] = keep;
            const double fd = (up - down) / (2 * eps);
            const double an = g.view({-1})[i].item<double>();
            QVERIFY2(std::abs(fd - an) <= 1e-6 * std::max(1.0, std::abs(an)),
                     qPrintable(QString("entry %1: autograd %2, finite difference %3").arg(i).arg(an).arg(fd)));
        }
    }
}

void TestAngularLoss::largeMarginsDoNotOverflow()
{
    // m = 1e4: exp(m) overflows a double; softplus must give m.
    const torch::Tensor a = rows({{0, 0}}), p = rows({{100, 0}}), n = rows({{50, 0}});
    const double got = losses::angularLoss(a, p, n, torch::eye(2, torch::kFloat64), 45).item<double>();
    QVERIFY(std::isfinite(got));
    QVERIFY(std::abs(got - 1e4) < 1e-9);
    const double tiny = losses::angularLoss(a, a + 1e-3, rows({{0, 1e3}}), torch::eye(2, torch::kFloat64), 45).item<double>();
    QVERIFY(tiny >= 0 && tiny < 1e-100); // m ~ -4e6: exp(m) underflows to 0, no NaN
}

void TestAngularLoss::moduleReadsTripletLayout()
{
    // The step solver: L keeps its value through forward() and receives a gradient.
    losses::AngularLoss loss(specOf(2, {{"alpha", "45"}, {"metric-dim", "2"}, {"metric-solver", "step"}}));
    loss.to(torch::kFloat64);
    QCOMPARE(loss.metric().sizes(), (torch::IntArrayRef{2, 2}));
    // l == d starts at the identity: the module's loss is the hand-computed one.
    const torch::Tensor z = torch::stack({anchors(), positives(), negatives()}, 1).reshape({9, 2}).requires_grad_();
    sdk::LossContext ctx;
    ctx.embeddings = z;
    const sdk::LossOutput out = loss.forward(ctx);
    QCOMPARE(out.terms, std::int64_t(3));
    QCOMPARE(out.activeTerms, std::int64_t(1)); // only m = 8 > 0
    QVERIFY(std::abs(out.loss.item<double>() - (softplus(-16) + softplus(-1) + softplus(8)) / 3) < 1e-12);
    out.loss.backward();
    QVERIFY(z.grad().defined());
    QVERIFY(loss.metric().grad().defined());
    ctx.embeddings = torch::zeros({4, 2}, torch::kFloat64);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(ctx));
    ctx.embeddings = torch::zeros({3, 5}, torch::kFloat64);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(ctx));
    ctx.embeddings = torch::zeros({0, 2}, torch::kFloat64);
    QCOMPARE(loss.forward(ctx).terms, std::int64_t(0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             losses::angularLoss(anchors(), positives(), negatives(), torch::eye(3, torch::kFloat64), 40));
}

void TestAngularLoss::moduleOptions()
{
    losses::AngularLoss defaults(specOf(128));
    QCOMPARE(defaults.alpha(), 40.0);
    QVERIFY(defaults.orthogonal());
    QCOMPARE(defaults.update(), losses::MetricUpdate::Qr);
    // Seed 004: L(128 → 64), solved by 10 conjugate-gradient iterations per batch.
    QCOMPARE(defaults.metric().sizes(), (torch::IntArrayRef{128, 64}));
    QVERIFY(defaults.conjugateGradientSolver());
    QCOMPARE(defaults.metricIterations(), 10);
    QCOMPARE(losses::AngularLoss(specOf(64)).metric().sizes(), (torch::IntArrayRef{64, 32}));
    QCOMPARE(losses::AngularLoss(specOf(1)).metric().sizes(), (torch::IntArrayRef{1, 1}));
    QCOMPARE(losses::AngularLoss(specOf(8, {{"metric-dim", "8"}})).metric().sizes(), (torch::IntArrayRef{8, 8}));
    losses::AngularLoss narrow(specOf(128, {{"metric-dim", "64"}, {"retraction", "cayley"}, {"seed", "5"}}));
    QCOMPARE(narrow.metric().sizes(), (torch::IntArrayRef{128, 64}));
    QCOMPARE(narrow.update(), losses::MetricUpdate::Cayley);
    QVERIFY(losses::orthogonalityError(narrow.metric()) < 1e-5);
    // The seed alone decides L.
    losses::AngularLoss again(specOf(128, {{"metric-dim", "64"}, {"seed", "5"}}));
    QVERIFY(torch::equal(again.metric(), narrow.metric()));
    losses::AngularLoss plain(specOf(8, {{"orthogonal", "false"}}));
    QCOMPARE(plain.update(), losses::MetricUpdate::Euclidean);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, losses::AngularLoss(specOf(8, {{"metric-dim", "9"}})));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, specOf(8, {{"alpha", "90"}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, losses::AngularLoss(specOf(0)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             losses::angularLoss(anchors(), positives(), negatives(), torch::eye(2, torch::kFloat64), 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             losses::angularLoss(anchors(), positives(), negatives(), torch::eye(2, torch::kFloat64), 90));
}

void TestAngularLoss::moduleStepsTheMetric()
{
    torch::manual_seed(9);
    for (const bool orthogonal : {true, false}) {
        losses::AngularLoss loss(specOf(6, {{"metric-dim", "3"}, {"orthogonal", orthogonal ? "true" : "false"},
                                          {"metric-solver", "step"}}));
        loss.to(torch::kFloat64);
        const torch::Tensor z = torch::randn({30, 6}, torch::kFloat64);
        sdk::LossContext ctx;
        ctx.embeddings = z;
        const torch::Tensor before = loss.metric().detach().clone();
        loss.forward(ctx).loss.backward();
        const torch::Tensor g = loss.metric().grad().clone();
        loss.stepMetric(0.05);
        QCOMPARE(loss.metric().grad().abs().max().item<double>(), 0.0); // cleared
        if (orthogonal) {
            QVERIFY(losses::orthogonalityError(loss.metric()) < 1e-12);
            QVERIFY(!torch::allclose(loss.metric(), before));
        } else {
            QVERIFY(torch::allclose(loss.metric(), before - 0.05 * g, 0, 1e-15));
        }
    }
}

void TestAngularLoss::moduleSolvesTheMetricWithTheNetworkFixed()
{
    // Algorithm 1 with the cg solver: forward() first solves L on the batch (step 3), then
    // returns the loss under that L, whose gradient reaches the embeddings only (step 4).
    torch::manual_seed(21);
    for (const bool orthogonal : {true, false}) {
        losses::AngularLoss loss(specOf(6, {{"metric-dim", "3"}, {"orthogonal", orthogonal ? "true" : "false"}}));
        loss.to(torch::kFloat64);
        const torch::Tensor z = torch::randn({60, 6}, torch::kFloat64).requires_grad_();
        const auto t = z.detach().reshape({20, 3, 6});
        const torch::Tensor before = loss.metric().detach().clone();
        const double costBefore =
            losses::angularLoss(t.select(1, 0), t.select(1, 1), t.select(1, 2), before, 40).item<double>();
        sdk::LossContext ctx;
        ctx.embeddings = z;
        const sdk::LossOutput out = loss.forward(ctx);
        const losses::ConjugateGradientResult& r = loss.lastSolve();
        QVERIFY(r.iterations >= 1 && r.iterations <= 10);
        QVERIFY(std::abs(r.initialCost - costBefore) < 1e-12);
        // The returned loss is the cost at the solved L, and lower than at the start.
        QVERIFY(std::abs(out.loss.item<double>() - r.finalCost) < 1e-10);
        QVERIFY2(r.finalCost < costBefore - 1e-3, qPrintable(QString("%1 -> %2").arg(costBefore).arg(r.finalCost)));
        const torch::Tensor t2 = loss.metric().detach();
        QVERIFY(std::abs(losses::angularLoss(t.select(1, 0), t.select(1, 1), t.select(1, 2), t2, 40).item<double>() -
                         r.finalCost) < 1e-10);
        if (orthogonal)
            QVERIFY(losses::orthogonalityError(loss.metric()) < 1e-12);
        out.loss.backward();
        QVERIFY(z.grad().defined() && z.grad().abs().sum().item<double>() > 0);
        QVERIFY(!loss.metric().grad().defined()); // L is fixed in step 4
        loss.afterBackward(0.1);                 // and the cg solver does not step it again
        QVERIFY(torch::equal(loss.metric().detach(), t2));
    }
}

QTEST_GUILESS_MAIN(TestAngularLoss)
#include "tst_AngularLoss.moc"
