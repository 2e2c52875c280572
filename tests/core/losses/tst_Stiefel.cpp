// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The metric L on the Stiefel manifold: the Riemannian steps keep LᵀL = I over many random
// steps, the Euclidean "w/o orth" step does not (so the check can fail), the QR retraction
// is the sign-fixed, continuous one, a small step descends, and the conjugate-gradient solver
// reaches known optima (the top eigenvectors on the manifold, a quadratic's minimiser off it).
#include "core/losses/AngularLoss.h"
#include "core/losses/Stiefel.h"

#include <torch/torch.h>

#include <QtTest>

using namespace setscope;

namespace {

const auto kDouble = torch::TensorOptions().dtype(torch::kFloat64);

/// 1 000 steps along random gradients of unit scale.
double errorAfterRandomSteps(losses::MetricUpdate update, double lr)
{
    torch::manual_seed(17);
    torch::Tensor l = losses::initialOrthogonal(16, 6, 1, kDouble);
    for (int s = 0; s < 1000; ++s)
        losses::metricStep(l, torch::randn({16, 6}, kDouble), lr, update);
    return losses::orthogonalityError(l);
}

} // namespace

class TestStiefel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initialIsOrthogonalAndSeeded();
    void staysOrthogonal_data();
    void staysOrthogonal();
    void euclideanDrifts();
    void riemannianGradientIsTangent();
    void qrRetractionIsSignFixedAndContinuous();
    void smallStepDescends_data();
    void smallStepDescends();
    void conjugateGradientFindsTheTopEigenvectors();
    void conjugateGradientFlatFindsTheMinimiser();
    void badInput();
};

void TestStiefel::initialIsOrthogonalAndSeeded()
{
    const torch::Tensor a = losses::initialOrthogonal(20, 7, 3, kDouble);
    QCOMPARE(a.sizes(), (torch::IntArrayRef{20, 7}));
    QVERIFY(losses::orthogonalityError(a) < 1e-12);
    QVERIFY(torch::equal(a, losses::initialOrthogonal(20, 7, 3, kDouble)));
    QVERIFY(!torch::equal(a, losses::initialOrthogonal(20, 7, 4, kDouble)));
    QVERIFY(torch::equal(losses::initialOrthogonal(5, 5, 3, kDouble), torch::eye(5, kDouble)));
    // The global generator is not touched.
    torch::manual_seed(1);
    const torch::Tensor r1 = torch::rand({3});
    torch::manual_seed(1);
    losses::initialOrthogonal(20, 7, 3);
    QVERIFY(torch::equal(torch::rand({3}), r1));
}

void TestStiefel::staysOrthogonal_data()
{
    QTest::addColumn<QString>("update");
    QTest::newRow("qr") << "qr";
    QTest::newRow("cayley") << "cayley";
}

void TestStiefel::staysOrthogonal()
{
    QFETCH(QString, update);
    const double err = errorAfterRandomSteps(losses::metricUpdateFromName(update.toStdString()), 0.1);
    QVERIFY2(err < 1e-6, qPrintable(QString("max |LᵀL - I| = %1 after 1000 steps").arg(err)));
}

void TestStiefel::euclideanDrifts()
{
    const double err = errorAfterRandomSteps(losses::MetricUpdate::Euclidean, 0.1);
    QVERIFY2(err > 1e-2, qPrintable(QString("max |LᵀL - I| = %1: the Euclidean step should leave the manifold").arg(err)));
}

void TestStiefel::riemannianGradientIsTangent()
{
    torch::manual_seed(2);
    const torch::Tensor l = losses::initialOrthogonal(9, 4, 2, kDouble);
    const torch::Tensor g = torch::randn({9, 4}, kDouble);
    const torch::Tensor xi = losses::riemannianGradient(l, g);
    // Tangent at L: LᵀΞ is skew.
    const torch::Tensor ltx = l.t().matmul(xi);
    QVERIFY((ltx + ltx.t()).abs().max().item<double>() < 1e-12);
    // A projection: applying it twice changes nothing.
    QVERIFY((losses::riemannianGradient(l, xi) - xi).abs().max().item<double>() < 1e-12);
    // And it keeps the part of G that is already tangent: G = L A with A skew.
    const torch::Tensor a = torch::randn({4, 4}, kDouble);
    const torch::Tensor tangent = l.matmul(a - a.t());
    QVERIFY((losses::riemannianGradient(l, tangent) - tangent).abs().max().item<double>() < 1e-12);
}

void TestStiefel::qrRetractionIsSignFixedAndContinuous()
{
    torch::manual_seed(4);
    const torch::Tensor y = torch::randn({10, 4}, kDouble);
    const torch::Tensor q = losses::retractQr(y);
    QVERIFY(losses::orthogonalityError(q) < 1e-12);
    // Y = Q R with R upper triangular and a positive diagonal.
    const torch::Tensor r = q.t().matmul(y);
    QVERIFY(torch::tril(r, -1).abs().max().item<double>() < 1e-12);
    QVERIFY(r.diagonal().min().item<double>() > 0);
    // Continuous: a tiny change of Y moves Q by about as much (no column flips sign).
    const torch::Tensor q2 = losses::retractQr(y + 1e-8 * torch::randn({10, 4}, kDouble));
    QVERIFY((q2 - q).abs().max().item<double>() < 1e-6);
    // Flipping a column of Y flips the same column of Q, nothing else.
    torch::Tensor flipped = y.clone();
    flipped.select(1, 2).neg_();
    torch::Tensor want = q.clone();
    want.select(1, 2).neg_();
    QVERIFY((losses::retractQr(flipped) - want).abs().max().item<double>() < 1e-12);
    // On the manifold already: retraction is the identity.
    QVERIFY((losses::retractQr(q) - q).abs().max().item<double>() < 1e-12);
}

void TestStiefel::smallStepDescends_data()
{
    QTest::addColumn<QString>("update");
    QTest::newRow("qr") << "qr";
    QTest::newRow("cayley") << "cayley";
    QTest::newRow("euclidean") << "euclidean";
}

// Algorithm 1 step 3 on fixed triplets: a small step along -grad lowers the angular loss.
void TestStiefel::smallStepDescends()
{
    QFETCH(QString, update);
    torch::manual_seed(8);
    const torch::Tensor a = torch::randn({20, 8}, kDouble), p = torch::randn({20, 8}, kDouble),
                        n = torch::randn({20, 8}, kDouble);
    torch::Tensor l = losses::initialOrthogonal(8, 4, 6, kDouble).requires_grad_();
    const torch::Tensor f0 = losses::angularLoss(a, p, n, l, 40);
    f0.backward();
    losses::metricStep(l, l.grad(), 1e-3, losses::metricUpdateFromName(update.toStdString()));
    const double f1 = losses::angularLoss(a, p, n, l, 40).item<double>();
    QVERIFY2(f1 < f0.item<double>(), qPrintable(QString("%1 -> %2").arg(f0.item<double>()).arg(f1)));
}

void TestStiefel::conjugateGradientFindsTheTopEigenvectors()
{
    // max tr(Lᵀ A L) over LᵀL = I (L 12 x 3) is the sum of A's 3 largest eigenvalues, reached
    // by L spanning their eigenvectors (Ky Fan). We minimise f(L) = -tr(Lᵀ A L), ∂f/∂L = -2 A L.
    torch::manual_seed(5);
    const torch::Tensor b = torch::randn({12, 12}, kDouble);
    const torch::Tensor a = b.matmul(b.t()) / 12.0;
    const auto [values, vectors] = torch::linalg_eigh(a, "L"); // ascending
    const double best = values.slice(0, 9, 12).sum().item<double>();
    const losses::MetricObjective f = [&](const torch::Tensor& l) {
        return std::make_pair(-l.t().matmul(a).matmul(l).trace().item<double>(), -2.0 * a.matmul(l));
    };
    const torch::Tensor start = losses::initialOrthogonal(12, 3, 4, kDouble);
    // Ten iterations (what a batch gets) lower the cost and stay on the manifold.
    torch::Tensor l10 = start.clone();
    const losses::ConjugateGradientResult r10 = losses::conjugateGradient(l10, f);
    QCOMPARE(r10.iterations, 10);
    QVERIFY(r10.finalCost < r10.initialCost);
    QVERIFY(losses::orthogonalityError(l10) < 1e-12);
    // Run to convergence: the optimum, and the subspace of the top eigenvectors.
    torch::Tensor l = start.clone();
    losses::ConjugateGradientOptions o;
    o.maxIterations = 500;
    o.minGradNorm = 1e-10;
    const losses::ConjugateGradientResult r = losses::conjugateGradient(l, f, o);
    QVERIFY2(std::abs(-r.finalCost - best) < 1e-8, qPrintable(QString("%1 vs %2").arg(-r.finalCost).arg(best)));
    QVERIFY(r.gradNorm < 1e-6);
    QVERIFY(losses::orthogonalityError(l) < 1e-12);
    const torch::Tensor top = vectors.slice(1, 9, 12);
    // The projector onto span(L) equals the one onto the top eigenvectors.
    QVERIFY((l.matmul(l.t()) - top.matmul(top.t())).abs().max().item<double>() < 1e-6);
}

void TestStiefel::conjugateGradientFlatFindsTheMinimiser()
{
    // In flat space ("w/o orth"), f(L) = ||L - B||² has its minimum 0 at L = B, off the manifold.
    torch::manual_seed(6);
    const torch::Tensor target = 3.0 * torch::randn({5, 2}, kDouble);
    const losses::MetricObjective f = [&](const torch::Tensor& l) {
        return std::make_pair((l - target).pow(2).sum().item<double>(), 2.0 * (l - target));
    };
    torch::Tensor l = losses::initialOrthogonal(5, 2, 1, kDouble);
    losses::ConjugateGradientOptions o;
    o.onManifold = false;
    o.maxIterations = 200;
    o.minGradNorm = 1e-10;
    const losses::ConjugateGradientResult r = losses::conjugateGradient(l, f, o);
    QVERIFY(r.finalCost < 1e-12);
    QVERIFY((l - target).abs().max().item<double>() < 1e-6);
    // A gradient of the wrong shape is refused.
    const losses::MetricObjective bad = [](const torch::Tensor&) { return std::make_pair(0.0, torch::zeros({2, 2})); };
    torch::Tensor l2 = losses::initialOrthogonal(5, 2, 1, kDouble);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, losses::conjugateGradient(l2, bad));
}

void TestStiefel::badInput()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, losses::initialOrthogonal(4, 5, 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, losses::initialOrthogonal(4, 0, 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, losses::metricUpdateFromName("adam"));
    torch::Tensor l = losses::initialOrthogonal(4, 2, 0, kDouble);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             losses::metricStep(l, torch::zeros({4, 3}, kDouble), 0.1, losses::MetricUpdate::Qr));
    QCOMPARE(std::string(losses::metricUpdateName(losses::MetricUpdate::Cayley)), std::string("cayley"));
}

QTEST_GUILESS_MAIN(TestStiefel)
#include "tst_Stiefel.moc"
