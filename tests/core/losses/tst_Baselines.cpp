// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The deep SSDML baselines of seed 004: LRML (Eq. 2), SERAPH (Eq. 1) and our reading of
// APLLR / APIT (LogDet divergence to a prior + Laplacian). Hand-computed values, finite-difference gradients in double, the
// properties the formulas imply, bad input, and the projections that keep M feasible.
#include "core/losses/SeraphLoss.h"
#include "core/losses/LrmlLoss.h"
#include "core/losses/ApPriorLoss.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace setscope;

namespace {

const auto kF64 = torch::TensorOptions().dtype(torch::kFloat64);

torch::Tensor rows(std::initializer_list<std::initializer_list<double>> r)
{
    std::vector<torch::Tensor> out;
    for (const auto& row : r)
        out.push_back(torch::tensor(std::vector<double>(row), torch::kFloat64));
    return torch::stack(out);
}

torch::Tensor labelsOf(std::vector<std::int64_t> v) { return torch::tensor(v, torch::kLong); }

// The binary entropy by its definition, -p ln p - (1 - p) ln(1 - p), p = 1 / (1 + e^t): an
// independent reference for the softplus form in seraphLoss.
double entropyRef(double t)
{
    const double p = 1.0 / (1.0 + std::exp(t));
    return -p * std::log(p) - (1.0 - p) * std::log(1.0 - p);
}

bool near(double a, double b, double tol = 1e-12) { return std::abs(a - b) <= tol * std::max(1.0, std::abs(b)); }

#define VERIFY_NEAR(got, want, tol)                                                                              \
    QVERIFY2(near((got), (want), (tol)),                                                                         \
             qPrintable(QString("%1 = %2, expected %3").arg(#got).arg((got), 0, 'g', 17).arg((want), 0, 'g', 17)))

// Throws std::invalid_argument whose message contains `needle`.
void expectInvalid(const std::function<void()>& f, const std::string& needle)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        QVERIFY2(std::string(e.what()).find(needle) != std::string::npos,
                 qPrintable(QString("message \"%1\" lacks \"%2\"").arg(e.what()).arg(needle.c_str())));
        return;
    }
    QFAIL(qPrintable(QString("no std::invalid_argument (expected one mentioning \"%1\")").arg(needle.c_str())));
}

// Central differences of f against autograd, for every entry of every input.
void checkGradients(const std::function<torch::Tensor(const std::vector<torch::Tensor>&)>& f,
                    std::vector<torch::Tensor> inputs)
{
    for (torch::Tensor& x : inputs)
        x = x.detach().clone().requires_grad_();
    f(inputs).backward();
    const double eps = 1e-6;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const torch::Tensor g = inputs[k].grad().clone();
        std::vector<torch::Tensor> plain;
        for (const torch::Tensor& x : inputs)
            plain.push_back(x.detach().clone());
        torch::Tensor flat = plain[k].view({-1});
        std::int64_t nonZero = 0;
        for (std::int64_t i = 0; i < flat.numel(); ++i) {
            const double keep = flat[i].item<double>();
            flat[i] = keep + eps;
            const double up = f(plain).item<double>();
            flat[i] = keep - eps;
            const double down = f(plain).item<double>();
            flat[i] = keep;
            const double fd = (up - down) / (2 * eps);
            const double an = g.view({-1})[i].item<double>();
            nonZero += std::abs(an) > 1e-8;
            QVERIFY2(std::abs(fd - an) <= 1e-6 * std::max(1.0, std::abs(an)),
                     qPrintable(QString("input %1 entry %2: autograd %3, finite difference %4").arg(k).arg(i).arg(an).arg(fd)));
        }
        // A gradient check over an all-zero gradient would prove nothing.
        QVERIFY2(nonZero > 0, qPrintable(QString("input %1 has an all-zero gradient").arg(k)));
    }
}

// The LRML example: 4 points, M = diag(1, 2) so δ² = dx² + 2 dy².
//   p0 (0,0) class 0, p1 (1,0) class 0, p2 (0,1) class 1, p3 (1,1) unlabelled
//   δ²: (0,1) 1 similar; (0,2) 2 dissimilar; (1,2) 1 + 2 = 3 dissimilar;
//       (0,3) 3, (1,3) 2, (2,3) 1 mixed (no labelled term)
//   γ_S = 2, γ_D = 0.5: labelled = 2·1 - 0.5·(2 + 3) = -0.5
//   W symmetric: W01 = 1, W13 = 0.5, W23 = 2, and W22 = 5 on the diagonal (δ²_22 = 0: ignored)
//   ½ Σ_ij W_ij δ²_ij = 1·1 + 0.5·2 + 2·1 = 4
//   loss = -0.5 + 4 = 3.5
torch::Tensor lrmlZ() { return rows({{0, 0}, {1, 0}, {0, 1}, {1, 1}}); }
torch::Tensor lrmlM() { return rows({{1, 0}, {0, 2}}); }
torch::Tensor lrmlLabels() { return labelsOf({0, 0, 1, -1}); }
torch::Tensor lrmlW() { return rows({{0, 1, 0, 0}, {1, 0, 0, 0.5}, {0, 0, 5, 2}, {0, 0.5, 2, 0}}); }

torch::Tensor randomSymmetric(std::int64_t b)
{
    const torch::Tensor r = torch::rand({b, b}, kF64);
    return r + r.t();
}

} // namespace

class TestBaselines : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void distancesHandComputed();
    void laplacianIsTheTraceForm();

    void lrmlHandComputed();
    void lrmlGradientMatchesFiniteDifferences();
    void lrmlProperties();
    void lrmlZeroWhenConditionsMet();
    void lrmlBadInput();

    void seraphHandComputed();
    void seraphSimilarPairWithFullMetric();
    void seraphGradientMatchesFiniteDifferences();
    void seraphProperties();
    void seraphNearZeroWhenConditionsMet();
    void seraphLargeDistancesStayFinite();
    void seraphBadInput();

    void projectPsdHandComputed();
    void projectLrmlFeasible();
    void projectionsBadInput();
    void metricSquareRootHandComputed();

    void seraphModule();
    void lrmlModule();

    void apPriorHandComputed();
    void apPriorModule();
    void metricsStayFeasibleOverManySteps();
};

// M = [[4, 0], [0, 9]] has the square root [[2, 0], [0, 3]]; a rotated M = R diag(1, 16) Rᵀ
// gives (a - b) P with ‖·‖² = (a - b)ᵀ M (a - b), worked out here; a negative eigenvalue is
// dropped (sym([[1, 0], [0, -4]]) -> [[1, 0], [0, 0]]).
void TestBaselines::metricSquareRootHandComputed()
{
    const torch::Tensor p = losses::metricSquareRoot(torch::tensor({{4.0, 0.0}, {0.0, 9.0}}, torch::kFloat64));
    QVERIFY(torch::allclose(p, torch::tensor({{2.0, 0.0}, {0.0, 3.0}}, torch::kFloat64), 1e-12, 1e-12));
    const double c = std::cos(0.3), s = std::sin(0.3);
    const torch::Tensor r = torch::tensor({{c, -s}, {s, c}}, torch::kFloat64);
    const torch::Tensor m = r.matmul(torch::diag(torch::tensor({1.0, 16.0}, torch::kFloat64))).matmul(r.t());
    const torch::Tensor root = losses::metricSquareRoot(m);
    const torch::Tensor diff = torch::tensor({{0.5, -1.5}}, torch::kFloat64);
    // (a - b)ᵀ M (a - b) by hand: M = [[c² + 16 s², -15 c s], [-15 c s, s² + 16 c²]].
    const double m00 = c * c + 16 * s * s, m01 = -15 * c * s, m11 = s * s + 16 * c * c;
    const double expected = 0.25 * m00 + 2 * 0.5 * -1.5 * m01 + 2.25 * m11;
    QVERIFY(std::abs(diff.matmul(root).pow(2).sum().item<double>() - expected) < 1e-10);
    QVERIFY(torch::allclose(losses::metricSquareRoot(torch::tensor({{1.0, 0.0}, {0.0, -4.0}}, torch::kFloat64)),
                            torch::tensor({{1.0, 0.0}, {0.0, 0.0}}, torch::kFloat64), 1e-12, 1e-12));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, losses::metricSquareRoot(torch::ones({2, 3})));
}

void TestBaselines::distancesHandComputed()
{
    // M = [[2, 1], [1, 1]]: δ²((0,0), (1,1)) = 2 + 1 + 1 + 1 = 5, δ²((0,0), (1,0)) = 2,
    // δ²((1,1), (1,0)) = 1.
    const torch::Tensor d = losses::pairwiseMetricDistances(rows({{0, 0}, {1, 1}, {1, 0}}), rows({{2, 1}, {1, 1}}));
    const double want[3][3] = {{0, 5, 2}, {5, 0, 1}, {2, 1, 0}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            VERIFY_NEAR(d[i][j].item<double>(), want[i][j], 1e-12);
    // A non-symmetric M acts by its symmetric part: [[2, 2], [0, 1]] has sym = [[2, 1], [1, 1]].
    const torch::Tensor d2 = losses::pairwiseMetricDistances(rows({{0, 0}, {1, 1}, {1, 0}}), rows({{2, 2}, {0, 1}}));
    QVERIFY(torch::allclose(d, d2, 0, 1e-12));
}

void TestBaselines::laplacianIsTheTraceForm()
{
    // ½ Σ W_ij δ²_ij against Tr(M Zᵀ (D - W) Z) with D = diag(row sums), for a symmetric W.
    torch::manual_seed(5);
    const torch::Tensor z = torch::randn({6, 3}, kF64);
    const torch::Tensor a = torch::randn({3, 3}, kF64);
    const torch::Tensor m = a.matmul(a.t());
    const torch::Tensor w = randomSymmetric(6);
    const torch::Tensor lap = torch::diag(w.sum(1)) - w;
    const double trace = m.matmul(z.t()).matmul(lap).matmul(z).trace().item<double>();
    VERIFY_NEAR(losses::laplacianRegulariser(z, m, w).item<double>(), trace, 1e-10);
    // A non-symmetric W acts as its symmetric part.
    const torch::Tensor u = torch::rand({6, 6}, kF64);
    VERIFY_NEAR(losses::laplacianRegulariser(z, m, u).item<double>(),
                losses::laplacianRegulariser(z, m, 0.5 * (u + u.t())).item<double>(), 1e-12);
}

void TestBaselines::lrmlHandComputed()
{
    const losses::BaselineLoss out = losses::lrmlLoss(lrmlZ(), lrmlM(), lrmlLabels(), lrmlW(), {2.0, 0.5});
    VERIFY_NEAR(out.labelled.item<double>(), -0.5, 1e-12);
    VERIFY_NEAR(out.unlabelled.item<double>(), 4.0, 1e-12);
    VERIFY_NEAR(out.regulariser.item<double>(), 0.0, 0);
    VERIFY_NEAR(out.loss.item<double>(), 3.5, 1e-12);
    QCOMPARE(out.pairs.similar, std::int64_t(1));
    QCOMPARE(out.pairs.dissimilar, std::int64_t(2));
    QCOMPARE(out.pairs.unlabelled, std::int64_t(0));
    // Default weights γ_S = γ_D = 1: 1 - (2 + 3) + 4 = 0.
    VERIFY_NEAR(losses::lrmlLoss(lrmlZ(), lrmlM(), lrmlLabels(), lrmlW()).loss.item<double>(), 0.0, 1e-12);
    // Float32 inputs give the same value (M and W are cast to z's dtype).
    const losses::BaselineLoss f = losses::lrmlLoss(lrmlZ().to(torch::kFloat32), lrmlM(), lrmlLabels(),
                                                lrmlW().to(torch::kFloat32), {2.0, 0.5});
    QCOMPARE(f.loss.scalar_type(), torch::kFloat32);
    VERIFY_NEAR(f.loss.item<double>(), 3.5, 1e-6);
}

void TestBaselines::lrmlGradientMatchesFiniteDifferences()
{
    torch::manual_seed(7);
    const torch::Tensor labels = labelsOf({0, 1, 0, -1, 2, -1});
    const torch::Tensor w = randomSymmetric(6);
    checkGradients([&](const std::vector<torch::Tensor>& x) { return losses::lrmlLoss(x[0], x[1], labels, w, {1.5, 0.7}).loss; },
                   {torch::randn({6, 4}, kF64), torch::randn({4, 4}, kF64)});
}

void TestBaselines::lrmlProperties()
{
    torch::manual_seed(11);
    const torch::Tensor z = torch::randn({5, 3}, kF64);
    const torch::Tensor a = torch::randn({3, 3}, kF64);
    const torch::Tensor m = a.matmul(a.t());
    const torch::Tensor labels = labelsOf({0, 1, 0, -1, 1});
    const torch::Tensor w = randomSymmetric(5);
    const losses::LrmlOptions o{1.3, 0.6};
    const double base = losses::lrmlLoss(z, m, labels, w, o).loss.item<double>();
    QVERIFY(std::abs(base) > 1e-3); // the comparisons below are not between zeros
    // Translation of every embedding: distances unchanged.
    VERIFY_NEAR(losses::lrmlLoss(z + torch::tensor({3.0, -1.0, 2.0}, kF64), m, labels, w, o).loss.item<double>(), base, 1e-10);
    // Linear in M and quadratic in z.
    VERIFY_NEAR(losses::lrmlLoss(z, 2.5 * m, labels, w, o).loss.item<double>(), 2.5 * base, 1e-10);
    VERIFY_NEAR(losses::lrmlLoss(3.0 * z, m, labels, w, o).loss.item<double>(), 9.0 * base, 1e-10);
    // Reordering the batch (rows of z, labels, rows and columns of W) changes nothing.
    const torch::Tensor perm = torch::tensor(std::vector<std::int64_t>{3, 0, 4, 1, 2}, torch::kLong);
    VERIFY_NEAR(losses::lrmlLoss(z.index_select(0, perm), m, labels.index_select(0, perm),
                               w.index_select(0, perm).index_select(1, perm), o).loss.item<double>(),
                base, 1e-10);
    // Renaming the classes changes nothing.
    VERIFY_NEAR(losses::lrmlLoss(z, m, labelsOf({7, 3, 7, -1, 3}), w, o).loss.item<double>(), base, 1e-12);
    // Moving a dissimilar pair apart lowers the loss by γ_D times the growth of its δ² (the
    // max of the min-max principle): rows 0 (class 0) and 1 (class 1), nothing else attached.
    const torch::Tensor z2 = rows({{0, 0}, {1, 0}});
    const torch::Tensor far = rows({{0, 0}, {3, 0}});
    const torch::Tensor zeroW = torch::zeros({2, 2}, kF64);
    const torch::Tensor eye = torch::eye(2, kF64);
    VERIFY_NEAR(losses::lrmlLoss(far, eye, labelsOf({0, 1}), zeroW, o).loss.item<double>() -
                    losses::lrmlLoss(z2, eye, labelsOf({0, 1}), zeroW, o).loss.item<double>(),
                -0.6 * (9 - 1), 1e-12);
}

void TestBaselines::lrmlZeroWhenConditionsMet()
{
    // No labelled pair and no affinity: exactly zero, with a zero gradient that still exists.
    torch::Tensor z = torch::randn({4, 3}, kF64).requires_grad_();
    torch::Tensor m = torch::eye(3, kF64).requires_grad_();
    losses::BaselineLoss out = losses::lrmlLoss(z, m, labelsOf({-1, -1, -1, -1}), torch::zeros({4, 4}, kF64));
    QCOMPARE(out.loss.item<double>(), 0.0);
    QCOMPARE(out.pairs.unlabelled, std::int64_t(6));
    out.loss.backward();
    QVERIFY(z.grad().defined() && m.grad().defined());
    QCOMPARE(z.grad().abs().sum().item<double>(), 0.0);
    // γ_D = 0, non-negative W: the loss is ≥ 0 and zero when every similar pair and every
    // W-connected pair coincide in the metric, here by M projecting out the second coordinate.
    const torch::Tensor pts = rows({{1, 0}, {1, 5}, {2, 1}, {2, -3}});
    const torch::Tensor proj = rows({{1, 0}, {0, 0}});
    const torch::Tensor w = rows({{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 2}, {0, 0, 2, 0}});
    VERIFY_NEAR(losses::lrmlLoss(pts, proj, labelsOf({0, 0, 1, -1}), w, {1.0, 0.0}).loss.item<double>(), 0.0, 0);
    // ... and positive when they do not (the identity metric sees the second coordinate).
    QVERIFY(losses::lrmlLoss(pts, torch::eye(2, kF64), labelsOf({0, 0, 1, -1}), w, {1.0, 0.0}).loss.item<double>() > 1.0);
}

void TestBaselines::lrmlBadInput()
{
    const torch::Tensor z = lrmlZ(), m = lrmlM(), y = lrmlLabels(), w = lrmlW();
    expectInvalid([&] { losses::lrmlLoss(z.view({-1}), m, y, w); }, "B x d");
    expectInvalid([&] { losses::lrmlLoss(z, torch::eye(3, kF64), y, w); }, "d x d with d = 2");
    expectInvalid([&] { losses::lrmlLoss(z, rows({{1, 0}}), y, w); }, "got 1 x 2");
    expectInvalid([&] { losses::lrmlLoss(z, m, labelsOf({0, 0, 1}), w); }, "B = 4");
    expectInvalid([&] { losses::lrmlLoss(z, m, torch::zeros({4}, kF64), w); }, "integers");
    expectInvalid([&] { losses::lrmlLoss(z, m, labelsOf({0, -2, 1, -1}), w); }, "below -1");
    expectInvalid([&] { losses::lrmlLoss(z, m, y, torch::zeros({4, 3}, kF64)); }, "affinity must be B x B with B = 4");
    expectInvalid([&] { losses::lrmlLoss(z, m, y, torch::Tensor()); }, "undefined");
    expectInvalid([&] { losses::lrmlLoss(z, m, y, w, {-1.0, 1.0}); }, "γ_S");
    expectInvalid([&] { losses::lrmlLoss(z, m, y, w, {1.0, NAN}); }, "γ_D");
    expectInvalid([&] { losses::laplacianRegulariser(z, m, torch::zeros({3, 3}, kF64)); }, "B = 4");
    expectInvalid([&] { losses::pairwiseMetricDistances(z.to(torch::kLong), m); }, "floating");
}

// The SERAPH example, M = I, η = 1, μ = 0.5, λ = 0.1:
//   p0 (0,0) class 0, p1 (0,1) class 1, p2 (1,0) unlabelled, p3 (1,2) unlabelled
//   (0,1): dissimilar, δ² = 1, t = δ² - η = 0: -ln p(-1) = ln(1 + e^0) = ln 2
//   (2,3): unlabelled, δ² = 4, t = 3: entropy H(3), p = 1 / (1 + e³) ≈ 0.047426,
//          H = -p ln p - (1 - p) ln(1 - p) ≈ 0.14458 + 0.04628 ≈ 0.19086; μ H ≈ 0.09543
//   (0,2), (0,3), (1,2), (1,3): labelled with unlabelled, in neither sum
//   λ Tr(I₂) = 0.2
//   loss = ln 2 + 0.5 H(3) + 0.2 ≈ 0.98858
void TestBaselines::seraphHandComputed()
{
    const torch::Tensor z = rows({{0, 0}, {0, 1}, {1, 0}, {1, 2}});
    const losses::BaselineLoss out = losses::seraphLoss(z, torch::eye(2, kF64), labelsOf({0, 1, -1, -1}), {1.0, 0.5, 0.1});
    VERIFY_NEAR(out.labelled.item<double>(), std::log(2.0), 1e-12);
    VERIFY_NEAR(out.unlabelled.item<double>(), 0.5 * entropyRef(3.0), 1e-12);
    VERIFY_NEAR(out.regulariser.item<double>(), 0.2, 1e-12);
    VERIFY_NEAR(out.loss.item<double>(), std::log(2.0) + 0.5 * entropyRef(3.0) + 0.2, 1e-12);
    VERIFY_NEAR(out.loss.item<double>(), 0.98858, 1e-5); // the rounded arithmetic above
    QCOMPARE(out.pairs.similar, std::int64_t(0));
    QCOMPARE(out.pairs.dissimilar, std::int64_t(1));
    QCOMPARE(out.pairs.unlabelled, std::int64_t(1));
}

void TestBaselines::seraphSimilarPairWithFullMetric()
{
    // Two points of class 2, (0,0) and (1,1), M = [[2, 1], [1, 1]]: δ² = 5, η = 1, t = 4:
    // -ln p(+1) = ln(1 + e⁴) ≈ 4.01815; λ Tr(M) = 0.1 · 3 = 0.3.
    const losses::BaselineLoss out =
        losses::seraphLoss(rows({{0, 0}, {1, 1}}), rows({{2, 1}, {1, 1}}), labelsOf({2, 2}), {1.0, 0.5, 0.1});
    VERIFY_NEAR(out.loss.item<double>(), std::log1p(std::exp(4.0)) + 0.3, 1e-12);
    VERIFY_NEAR(out.loss.item<double>(), 4.31815, 1e-5);
    QCOMPARE(out.pairs.similar, std::int64_t(1));
    // The same pair called dissimilar: ln(1 + e⁻⁴); the two differ by exactly t = 4.
    const double dis =
        losses::seraphLoss(rows({{0, 0}, {1, 1}}), rows({{2, 1}, {1, 1}}), labelsOf({2, 5}), {1.0, 0.5, 0.1}).loss.item<double>();
    VERIFY_NEAR(dis, std::log1p(std::exp(-4.0)) + 0.3, 1e-12);
    VERIFY_NEAR(out.loss.item<double>() - dis, 4.0, 1e-12);
}

void TestBaselines::seraphGradientMatchesFiniteDifferences()
{
    torch::manual_seed(13);
    const torch::Tensor labels = labelsOf({0, 1, 0, -1, -1, -1, 2});
    // Small z keeps t = δ² - η around 0, where the sigmoids bend.
    checkGradients(
        [&](const std::vector<torch::Tensor>& x) { return losses::seraphLoss(x[0], x[1], labels, {0.8, 0.7, 0.3}).loss; },
        {0.5 * torch::randn({7, 3}, kF64), torch::randn({3, 3}, kF64)});
}

void TestBaselines::seraphProperties()
{
    torch::manual_seed(17);
    const torch::Tensor z = torch::randn({6, 3}, kF64);
    const torch::Tensor a = torch::randn({3, 3}, kF64);
    const torch::Tensor m = a.matmul(a.t());
    const torch::Tensor labels = labelsOf({0, 1, 0, -1, -1, 1});
    const losses::SeraphOptions o{1.2, 0.4, 0.05};
    const double base = losses::seraphLoss(z, m, labels, o).loss.item<double>();
    QVERIFY(base > 0.0); // softplus and entropies are positive, Tr(M) ≥ 0
    VERIFY_NEAR(losses::seraphLoss(z + 2.0, m, labels, o).loss.item<double>(), base, 1e-10);
    VERIFY_NEAR(losses::seraphLoss(z, m, labelsOf({4, 9, 4, -1, -1, 9}), o).loss.item<double>(), base, 1e-12);
    const torch::Tensor perm = torch::tensor(std::vector<std::int64_t>{5, 3, 0, 1, 4, 2}, torch::kLong);
    VERIFY_NEAR(losses::seraphLoss(z.index_select(0, perm), m, labels.index_select(0, perm), o).loss.item<double>(), base,
                1e-10);
    // Only mixed pairs (or one row): the loss is λ Tr(M), wherever the points are.
    for (double x : {0.0, 0.3, 40.0}) {
        const torch::Tensor two = rows({{0, 0, 0}, {x, -x, 1}});
        const losses::BaselineLoss out = losses::seraphLoss(two, m, labelsOf({1, -1}), o);
        VERIFY_NEAR(out.loss.item<double>(), 0.05 * m.trace().item<double>(), 1e-12);
        QCOMPARE(out.pairs.similar + out.pairs.dissimilar + out.pairs.unlabelled, std::int64_t(0));
    }
    VERIFY_NEAR(losses::seraphLoss(rows({{1, 2, 3}}), m, labelsOf({0}), o).loss.item<double>(), 0.05 * m.trace().item<double>(),
                1e-12);
    // The entropy of an unlabelled pair peaks at δ² = η (μ ln 2) and is symmetric about it.
    const losses::SeraphOptions noReg{1.0, 0.4, 0.0};
    const torch::Tensor eye = torch::eye(2, kF64);
    auto pairAt = [&](double dist2) {
        return losses::seraphLoss(rows({{0, 0}, {std::sqrt(dist2), 0}}), eye, labelsOf({-1, -1}), noReg).loss.item<double>();
    };
    VERIFY_NEAR(pairAt(1.0), 0.4 * std::log(2.0), 1e-12);
    VERIFY_NEAR(pairAt(1.7), pairAt(0.3), 1e-12);
    QVERIFY(pairAt(1.2) < pairAt(1.0) && pairAt(0.8) < pairAt(1.0) && pairAt(3.0) < pairAt(1.2));
}

void TestBaselines::seraphNearZeroWhenConditionsMet()
{
    // λ = 0; the similar pair coincides (t = -η), the dissimilar pairs and the unlabelled pair
    // lie far beyond η: every term is below e^-39 or so.
    const torch::Tensor z = rows({{0, 0}, {0, 0}, {10, 0}, {0, 10}, {10, 10}});
    const losses::BaselineLoss out =
        losses::seraphLoss(z, torch::eye(2, kF64), labelsOf({0, 0, 1, -1, -1}), {40.0, 1.0, 0.0});
    QCOMPARE(out.pairs.similar, std::int64_t(1));
    QCOMPARE(out.pairs.dissimilar, std::int64_t(2));
    QCOMPARE(out.pairs.unlabelled, std::int64_t(1));
    QVERIFY2(out.loss.item<double>() < 1e-15, qPrintable(QString::number(out.loss.item<double>())));
    // The same points with the labels swapped around violate every condition.
    QVERIFY(losses::seraphLoss(z, torch::eye(2, kF64), labelsOf({0, 1, 0, -1, -1}), {40.0, 1.0, 0.0}).loss.item<double>() > 30);
}

void TestBaselines::seraphLargeDistancesStayFinite()
{
    torch::Tensor z = rows({{0, 0}, {300, 0}, {0, 300}, {300, 300}}).requires_grad_();
    torch::Tensor m = torch::eye(2, kF64).requires_grad_();
    const losses::BaselineLoss out = losses::seraphLoss(z, m, labelsOf({0, 0, -1, -1}), {1.0, 1.0, 1.0});
    // Similar pair at δ² = 90 000: softplus(89 999) = 89 999; the unlabelled pair's entropy is
    // 0 in double; λ Tr(I) = 2.
    VERIFY_NEAR(out.loss.item<double>(), 89999.0 + 2.0, 1e-12);
    out.loss.backward();
    QVERIFY(torch::isfinite(z.grad()).all().item<bool>() && torch::isfinite(m.grad()).all().item<bool>());
    // d/dz1 of δ² = 2 (z1 - z0) = (600, 0), times σ(t) = 1.
    VERIFY_NEAR(z.grad()[1][0].item<double>(), 600.0, 1e-12);
}

void TestBaselines::seraphBadInput()
{
    const torch::Tensor z = rows({{0, 0}, {0, 1}, {1, 0}});
    const torch::Tensor m = torch::eye(2, kF64);
    const torch::Tensor y = labelsOf({0, 1, -1});
    expectInvalid([&] { losses::seraphLoss(torch::zeros({2, 2, 2}, kF64), m, y); }, "B x d");
    expectInvalid([&] { losses::seraphLoss(z, torch::eye(3, kF64), y); }, "d x d with d = 2");
    expectInvalid([&] { losses::seraphLoss(z, m, labelsOf({0, 1})); }, "B = 3");
    expectInvalid([&] { losses::seraphLoss(z, m, labelsOf({0, 1, -1}).view({3, 1})); }, "got 3 x 1");
    expectInvalid([&] { losses::seraphLoss(z, m, labelsOf({0, -3, -1})); }, "below -1");
    expectInvalid([&] { losses::seraphLoss(z, m, y, {-1.0, 1.0, 1.0}); }, "η");
    expectInvalid([&] { losses::seraphLoss(z, m, y, {1.0, -0.5, 1.0}); }, "μ");
    expectInvalid([&] { losses::seraphLoss(z, m, y, {1.0, 1.0, INFINITY}); }, "λ");
}

void TestBaselines::projectPsdHandComputed()
{
    // diag(2, -1) -> diag(2, 0).
    QVERIFY(torch::allclose(losses::projectPsd(rows({{2, 0}, {0, -1}})), rows({{2, 0}, {0, 0}}), 0, 1e-12));
    // [[1, 2], [0, 1]]: sym = [[1, 1], [1, 1]], eigenvalues 2 and 0, already PSD.
    QVERIFY(torch::allclose(losses::projectPsd(rows({{1, 2}, {0, 1}})), rows({{1, 1}, {1, 1}}), 0, 1e-12));
    // [[0, 1], [1, 0]]: eigenvalues ±1 on (1, ±1)/√2 -> 1 · (1,1)(1,1)ᵀ/2.
    QVERIFY(torch::allclose(losses::projectPsd(rows({{0, 1}, {1, 0}})), rows({{0.5, 0.5}, {0.5, 0.5}}), 0, 1e-12));
    torch::manual_seed(19);
    const torch::Tensor p = losses::projectPsd(torch::randn({5, 5}, kF64));
    QVERIFY(std::get<0>(torch::linalg::eigh(p, "L")).min().item<double>() > -1e-12);
    QVERIFY(torch::allclose(losses::projectPsd(p), p, 0, 1e-12));
}

void TestBaselines::projectLrmlFeasible()
{
    // Feasible already (PSD, log|M| = ln 2 ≥ 0): unchanged.
    QVERIFY(torch::allclose(losses::projectLrmlFeasible(rows({{2, 0}, {0, 1}})), rows({{2, 0}, {0, 1}}), 0, 1e-12));
    // diag(0.25, 1): log|M| < 0. The projection keeps the eigenvectors and moves the
    // eigenvalues to λ_i = (μ_i + sqrt(μ_i² + 4ν)) / 2 with λ_1 λ_2 = 1, i.e. λ_i (λ_i - μ_i)
    // = ν for both i (the KKT condition), ν > 0.
    const torch::Tensor p = losses::projectLrmlFeasible(rows({{0.25, 0}, {0, 1}}));
    QVERIFY(std::abs(p[0][1].item<double>()) < 1e-12 && std::abs(p[1][0].item<double>()) < 1e-12);
    const double l1 = p[0][0].item<double>(), l2 = p[1][1].item<double>();
    VERIFY_NEAR(l1 * l2, 1.0, 1e-9);
    const double nu1 = l1 * (l1 - 0.25), nu2 = l2 * (l2 - 1.0);
    QVERIFY(nu1 > 0);
    VERIFY_NEAR(nu1, nu2, 1e-9);
    // It is at least as close as other feasible points: diag(1, 1), diag(0.5, 2), diag(0.25, 4).
    const torch::Tensor a = rows({{0.25, 0}, {0, 1}});
    const double dist = (p - a).norm().item<double>();
    for (const torch::Tensor& x : {rows({{1, 0}, {0, 1}}), rows({{0.5, 0}, {0, 2}}), rows({{0.25, 0}, {0, 4}})})
        QVERIFY(dist <= (x - a).norm().item<double>());
    // A random matrix with negative eigenvalues comes out symmetric PSD with log|M| ≥ 0 (≈ 0).
    torch::manual_seed(23);
    const torch::Tensor in = torch::randn({4, 4}, kF64) - 0.5 * torch::eye(4, kF64);
    QVERIFY(std::get<0>(torch::linalg::eigh(0.5 * (in + in.t()), "L")).min().item<double>() < 0); // infeasible
    const torch::Tensor r = losses::projectLrmlFeasible(in);
    QVERIFY(torch::allclose(r, r.t(), 0, 1e-12));
    const torch::Tensor ev = std::get<0>(torch::linalg::eigh(r, "L"));
    QVERIFY(ev.min().item<double>() > 0);
    QVERIFY(ev.log().sum().item<double>() >= -1e-9);
    VERIFY_NEAR(ev.log().sum().item<double>(), 0.0, 1e-9);
    QCOMPARE(losses::projectLrmlFeasible(torch::randn({3, 3})).scalar_type(), torch::kFloat32);
}

void TestBaselines::projectionsBadInput()
{
    expectInvalid([] { losses::projectPsd(torch::zeros({2, 3}, kF64)); }, "got 2 x 3");
    expectInvalid([] { losses::projectLrmlFeasible(torch::zeros({3}, kF64)); }, "got 3");
    expectInvalid([] { losses::projectLrmlFeasible(torch::zeros({0, 0}, kF64)); }, "non-empty");
}

namespace {

template <typename Loss>
sdk::LossSpec specOf(std::int64_t d, const std::map<std::string, std::string>& given = {})
{
    sdk::LossSpec s;
    s.options = sdk::OptionValues::resolve(Loss::schema(), given, "baseline under test");
    s.embeddingDim = d;
    return s;
}

} // namespace

void TestBaselines::seraphModule()
{
    losses::SeraphLoss loss(specOf<losses::SeraphLoss>(2, {{"eta", "1"}, {"mu", "0.5"}, {"lambda", "0.1"}}));
    QCOMPARE(loss.options().mu, 0.5);
    QVERIFY(loss.named_parameters().contains("metric"));
    QVERIFY(torch::equal(loss.metric(), torch::eye(2)));
    // The hand-computed batch of seraphHandComputed.
    sdk::LossContext c;
    c.embeddings = rows({{0, 0}, {0, 1}, {1, 0}, {1, 2}});
    c.labels = labelsOf({0, 1, -1, -1});
    const sdk::LossOutput out = loss.forward(c);
    VERIFY_NEAR(out.loss.item<double>(), std::log(2.0) + 0.5 * entropyRef(3.0) + 0.2, 1e-6);
    QCOMPARE(out.terms, std::int64_t(2));
    QCOMPARE(out.activeTerms, std::int64_t(2));
    // Step 3: M = I, ∇_M = diag(3, -1), lr = 1: I - ∇ = diag(-2, 2), projected onto the PSD
    // cone: diag(0, 2). The gradient is cleared.
    loss.metric().mutable_grad() = rows({{3, 0}, {0, -1}}).to(torch::kFloat32);
    loss.stepMetric(1.0);
    QVERIFY(torch::allclose(loss.metric(), rows({{0, 0}, {0, 2}}).to(torch::kFloat32), 0, 1e-6));
    QCOMPARE(loss.metric().grad().abs().sum().item<double>(), 0.0);
    // A real backward reaches M (the λ Tr(M) term alone gives ∂/∂M = λ I).
    sdk::LossContext one;
    one.embeddings = rows({{5, 5}});
    one.labels = labelsOf({3});
    loss.forward(one).loss.backward();
    QVERIFY(torch::allclose(loss.metric().grad(), 0.1 * torch::eye(2), 0, 1e-7));
    expectInvalid([] { losses::SeraphLoss bad(specOf<losses::SeraphLoss>(0)); }, "at least 1");
}

void TestBaselines::lrmlModule()
{
    losses::LrmlLoss loss(specOf<losses::LrmlLoss>(2, {{"gamma-s", "2"}, {"gamma-d", "0.5"}}));
    QVERIFY(loss.named_parameters().contains("metric"));
    sdk::LossContext c;
    c.embeddings = lrmlZ();
    c.labels = lrmlLabels();
    bool threw = false;
    try {
        loss.forward(c);
    } catch (const std::logic_error& e) {
        threw = std::string(e.what()).find("affinit") != std::string::npos;
    }
    QVERIFY2(threw, "forward without the affinity must refuse");
    // The hand-computed batch of lrmlHandComputed with M = diag(1, 2).
    {
        torch::NoGradGuard noGrad;
        loss.metric().copy_(lrmlM());
    }
    const sdk::LossOutput out = loss.forward(c, lrmlW());
    VERIFY_NEAR(out.loss.item<double>(), 3.5, 1e-6);
    QCOMPARE(out.terms, std::int64_t(3));
    QCOMPARE(out.activeTerms, std::int64_t(3));
    // A similar pair at the same point is an inactive term: (0,0) (0,0) class 0, (1,0) class 1.
    sdk::LossContext same;
    same.embeddings = rows({{0, 0}, {0, 0}, {1, 0}});
    same.labels = labelsOf({0, 0, 1});
    const sdk::LossOutput s = loss.forward(same, torch::zeros({3, 3}, kF64));
    QCOMPARE(s.terms, std::int64_t(3));
    QCOMPARE(s.activeTerms, std::int64_t(2));
    // Step 3: M = I, ∇_M = diag(0.9, -1), lr = 1: I - ∇ = diag(0.1, 2), log|M| = ln 0.2 < 0;
    // the projection keeps it diagonal and brings the log-determinant to 0.
    {
        torch::NoGradGuard noGrad;
        loss.metric().copy_(torch::eye(2));
    }
    loss.metric().mutable_grad() = rows({{0.9, 0}, {0, -1}}).to(torch::kFloat32);
    loss.stepMetric(1.0);
    const torch::Tensor m = loss.metric().to(torch::kFloat64);
    QVERIFY(std::abs(m[0][1].item<double>()) < 1e-6);
    VERIFY_NEAR(m[0][0].item<double>() * m[1][1].item<double>(), 1.0, 1e-5);
    // KKT: every eigenvalue grows, by λ_i - μ_i = ν / λ_i with one ν > 0.
    const double l1 = m[0][0].item<double>(), l2 = m[1][1].item<double>();
    QVERIFY(l1 > 0.1 && l2 > 2.0);
    VERIFY_NEAR(l1 * (l1 - 0.1), l2 * (l2 - 2.0), 1e-5);
    QCOMPARE(loss.metric().grad().abs().sum().item<double>(), 0.0);
}

void TestBaselines::apPriorHandComputed()
{
    // M = I, M0 = diag(2, 1/2): D_ld = tr(M M0⁻¹) - ln det(M M0⁻¹) - d = (1/2 + 2) - ln 1 - 2 = 1/2.
    // z = (0,0), (1,0) with W_01 = W_10 = 1: ½ Σ W δ² = ½ (1 + 1) = 1; λ = 2 gives 2.
    const torch::Tensor z = rows({{0, 0}, {1, 0}});
    const torch::Tensor m0 = rows({{2, 0}, {0, 0.5}});
    const torch::Tensor w = rows({{0, 1}, {1, 0}});
    const losses::BaselineLoss b = losses::apPriorLoss(z, torch::eye(2, kF64), m0, w, 2.0);
    VERIFY_NEAR(b.labelled.item<double>(), 0.5, 1e-12);
    VERIFY_NEAR(b.unlabelled.item<double>(), 2.0, 1e-12);
    VERIFY_NEAR(b.loss.item<double>(), 2.5, 1e-12);
    // M = M0: the divergence is 0; M = 2 M0: tr = 2 d = 4, ln det(2 I) = 2 ln 2: 4 - 2 ln 2 - 2.
    VERIFY_NEAR(losses::apPriorLoss(z, m0, m0, torch::zeros({2, 2}, kF64), 1.0).loss.item<double>(), 0.0, 1e-12);
    VERIFY_NEAR(losses::apPriorLoss(z, 2 * m0, m0, torch::zeros({2, 2}, kF64), 1.0).loss.item<double>(),
                2.0 - 2.0 * std::log(2.0), 1e-12);
    // A non-diagonal case: M = [[2, 1], [1, 2]], M0 = I: tr M = 4, det M = 3: 4 - ln 3 - 2.
    VERIFY_NEAR(losses::apPriorLoss(z, rows({{2, 1}, {1, 2}}), torch::eye(2, kF64), torch::zeros({2, 2}, kF64), 1.0)
                    .labelled.item<double>(),
                2.0 - std::log(3.0), 1e-12);
    // The gradient in M of D_ld is M0⁻¹ - M⁻¹: at M = I, M0 = diag(2, 1/2) it is diag(-1/2, 1).
    torch::Tensor m = torch::eye(2, kF64).requires_grad_(true);
    losses::apPriorLoss(z, m, m0, torch::zeros({2, 2}, kF64), 1.0).loss.backward();
    QVERIFY(torch::allclose(m.grad(), rows({{-0.5, 0}, {0, 1}}), 0, 1e-12));
    expectInvalid([&] { losses::apPriorLoss(z, torch::eye(2, kF64), rows({{1, 0}, {0, 0}}), w, 1.0); },
                  "positive definite");
    expectInvalid([&] { losses::apPriorLoss(z, torch::eye(2, kF64), torch::eye(3, kF64), w, 1.0); }, "d x d");
    expectInvalid([&] { losses::apPriorLoss(z, torch::eye(2, kF64), m0, w, -1.0); }, "λ");
}

void TestBaselines::apPriorModule()
{
    // The prior of a 1-d batch by KISSME, by hand: labelled 0, 1 (class 0), 3, 5 (class 1).
    // Σ_S = (1² + 2²) / 2 = 2.5; Σ_D = (3² + 5² + 2² + 4²) / 4 = 13.5; M0 = 1/2.5 - 1/13.5 = 44/135.
    losses::ApPriorLoss loss(specOf<losses::ApPriorLoss>(1, {{"ridge", "0"}, {"lambda", "0.5"}}));
    QVERIFY(loss.named_parameters().contains("metric"));
    QCOMPARE(loss.selfUpdatedParameters().size(), std::size_t(1));
    QVERIFY(loss.selfUpdatedParameters().front().is_same(loss.metric()));
    sdk::LossContext c;
    c.embeddings = rows({{0}, {1}, {3}, {5}, {7}});
    c.labels = labelsOf({0, 0, 1, 1, -1});
    VERIFY_NEAR(loss.priorOf(c.embeddings, c.labels)[0][0].item<double>(), 44.0 / 135.0, 1e-12);
    // forward: M = 1, M0 = 44/135: D = 135/44 - ln(135/44) - 1; W links rows 3 and 4 (δ² = 4):
    // λ ½ (4 + 4) = 2.
    torch::Tensor w = torch::zeros({5, 5}, kF64);
    w[3][4] = w[4][3] = 1.0;
    const sdk::LossOutput out = loss.forward(c, w);
    VERIFY_NEAR(out.loss.item<double>(), 135.0 / 44.0 - std::log(135.0 / 44.0) - 1.0 + 2.0, 1e-6);
    QCOMPARE(out.terms, std::int64_t(6 + 1)); // 4 labelled rows: 6 pairs; one edge
    // Without the affinity the loss refuses (the Laplacian term would be dropped).
    bool threw = false;
    try {
        loss.forward(c);
    } catch (const std::logic_error&) {
        threw = true;
    }
    QVERIFY(threw);
    // Fewer than two labelled rows: no prior.
    sdk::LossContext lone = c;
    lone.labels = labelsOf({0, -1, -1, -1, -1});
    expectInvalid([&] { loss.forward(lone, w); }, "labelled");
    // APIT's prior on the same rows is positive definite and brings the similar pairs closer
    // relative to the dissimilar ones than the Euclidean metric does (ITML's constraints).
    losses::ApPriorLoss it(specOf<losses::ApPriorLoss>(1, {{"prior", "it"}}));
    QVERIFY(it.priorOf(c.embeddings, c.labels)[0][0].item<double>() > 0.0);
}

void TestBaselines::metricsStayFeasibleOverManySteps()
{
    // Algorithm 1's step 3 on random batches, 300 times with a large step: SERAPH keeps M ⪰ 0,
    // LRML M ⪰ 0 and log|M| ≥ 0, the AP loss M ≻ 0 (its LogDet term needs it).
    torch::manual_seed(3);
    const std::int64_t d = 4, b = 12;
    losses::SeraphLoss seraph(specOf<losses::SeraphLoss>(d));
    losses::LrmlLoss lrml(specOf<losses::LrmlLoss>(d));
    losses::ApPriorLoss ap(specOf<losses::ApPriorLoss>(d, {{"prior", "llr"}}));
    const torch::Tensor labels = labelsOf({0, 0, 0, 1, 1, 1, 2, 2, -1, -1, -1, -1});
    const torch::Tensor means = 2.0 * torch::randn({3, d});
    double minEig[3] = {1e9, 1e9, 1e9}, minLogDet = 1e9;
    bool moved[3] = {false, false, false};
    for (int step = 0; step < 300; ++step) {
        // Labelled rows around their class's mean (so that KISSME's prior has a direction in
        // which similar pairs are closer than dissimilar ones), unlabelled rows anywhere.
        torch::Tensor raw = torch::randn({b, d});
        for (std::int64_t i = 0; i < 8; ++i)
            raw[i] = means[labels[i].item<std::int64_t>()] + 0.3 * raw[i];
        const torch::Tensor z = torch::nn::functional::normalize(raw, torch::nn::functional::NormalizeFuncOptions().dim(1));
        torch::Tensor w = torch::rand({b, b});
        w = 0.5 * (w + w.t());
        w.fill_diagonal_(0);
        sdk::LossContext c;
        c.embeddings = z;
        c.labels = labels;
        seraph.forward(c).loss.backward();
        seraph.afterBackward(0.5);
        lrml.forward(c, w).loss.backward();
        lrml.afterBackward(0.05);
        ap.forward(c, w - 0.3).loss.backward(); // propagated affinities may be negative
        ap.afterBackward(0.05);
        torch::Tensor* ms[3] = {&seraph.metric(), &lrml.metric(), &ap.metric()};
        for (int k = 0; k < 3; ++k) {
            const torch::Tensor m = ms[k]->detach().to(torch::kFloat64);
            QVERIFY(torch::allclose(m, m.t(), 0, 1e-6));
            minEig[k] = std::min(minEig[k], torch::linalg::eigvalsh(m, "L").min().item<double>());
            moved[k] = moved[k] || !torch::allclose(m, torch::eye(d, kF64), 0, 1e-3);
        }
        minLogDet = std::min(minLogDet, torch::logdet(lrml.metric().detach().to(torch::kFloat64)).item<double>());
    }
    std::printf("min eigenvalue over 300 steps: SERAPH %.3g, LRML %.3g, AP %.3g; LRML min log|M| %.3g\n", minEig[0],
                minEig[1], minEig[2], minLogDet);
    QVERIFY(moved[0] && moved[1] && moved[2]);
    QVERIFY(minEig[0] >= -1e-5);
    QVERIFY(minEig[1] > 0.0);
    QVERIFY(minLogDet >= -1e-4);
    QVERIFY(minEig[2] > 0.0);
}

QTEST_GUILESS_MAIN(TestBaselines)
#include "tst_Baselines.moc"
