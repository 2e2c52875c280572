// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/Mining.h"
#include "core/losses/SelfSupervisedTripletLoss.h"

#include "LossTestUtil.h"

#include <torch/torch.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

using namespace setscope;
using losses::SelfSupervisedTripletLoss;
using losstest::Matrix;

namespace {

struct RefOptions {
    bool weighted = true;
    double margin = 0.1;
    double c = 7;
    double q = 100;
    bool augmented = false;
    // The parts of the authors' form (vistec-AI/WSSET loss.py), each on its own.
    bool squared = false;      ///< exp(-EMD² / 2(cσ)²)
    bool rowSigma = false;     ///< σ of the anchor's row, self included
    bool weightedNeg = false;  ///< semi-hard on w·d, the positive's w·d too
    bool matrixPct = false;    ///< percentile over the B x B matrix, tfp's nearest rank
};

/// tfp.stats.percentile's default (nearest) on a plain list: sorted from the largest down,
/// the value at round-half-even((n - 1)(1 - q/100)).
double tfpNearest(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end(), std::greater<>());
    const double pos = double(v.size() - 1) * (1 - q / 100);
    double r = std::floor(pos);
    if (pos - r > 0.5 || (pos - r == 0.5 && std::fmod(r, 2.0) != 0.0))
        r += 1;
    return v[std::size_t(r)];
}

struct RefResult {
    double loss = 0;
    std::int64_t terms = 0;
    std::int64_t active = 0;
};

/// Seed 000 Eq. 1-3 / seed 001 Eq. 7 in plain loops, as the class documents them.
RefResult referenceLoss(const Matrix& e, const Matrix& aug, const Matrix& emd, const RefOptions& o)
{
    const std::size_t b = e.size();
    RefResult r;
    if (b < 3)
        return r;
    std::vector<double> pairs;
    for (std::size_t i = 0; i < b; ++i)
        for (std::size_t j = i + 1; j < b; ++j)
            pairs.push_back(emd[i][j]);
    double mean = 0;
    for (double v : pairs)
        mean += v;
    mean /= double(pairs.size());
    double var = 0;
    for (double v : pairs)
        var += (v - mean) * (v - mean);
    const double sigma = std::sqrt(var / double(pairs.size()));
    std::sort(pairs.begin(), pairs.end());
    const double rank = o.q / 100.0 * double(pairs.size() - 1);
    const std::size_t lo = std::size_t(rank);
    const std::size_t hi = std::min(lo + 1, pairs.size() - 1);
    double threshold = pairs[lo] + (rank - double(lo)) * (pairs[hi] - pairs[lo]);
    if (o.matrixPct) {
        std::vector<double> all;
        for (const auto& row : emd)
            all.insert(all.end(), row.begin(), row.end());
        threshold = tfpNearest(all, o.q);
    }
    const auto sigmaOf = [&](std::size_t a) {
        if (!o.rowSigma)
            return sigma;
        double m = 0, v = 0;
        for (double x : emd[a])
            m += x;
        m /= double(b);
        for (double x : emd[a])
            v += (x - m) * (x - m);
        return std::sqrt(v / double(b));
    };
    const auto weight = [&](std::size_t a, std::size_t n) {
        const double s = sigmaOf(a);
        if (!o.weighted || !(s > 0) || !std::isfinite(s))
            return 1.0;
        const double e = o.squared ? emd[a][n] * emd[a][n] : emd[a][n];
        return std::exp(-e / (2 * (o.c * s) * (o.c * s)));
    };
    double sum = 0;
    for (std::size_t a = 0; a < b; ++a) {
        std::size_t p = a == 0 ? 1 : 0;
        for (std::size_t j = 0; j < b; ++j)
            if (j != a && emd[a][j] < emd[a][p])
                p = j;
        if (o.q < 100 && !(emd[a][p] < threshold))
            continue;
        std::vector<double> d(b), ranked(b);
        std::vector<bool> cand(b);
        for (std::size_t n = 0; n < b; ++n) {
            d[n] = losstest::sqDist(e[a], e[n]);
            ranked[n] = o.weightedNeg ? weight(a, n) * d[n] : d[n];
            cand[n] = n != a && n != p;
        }
        const double dap = d[p];
        const auto n = std::size_t(losstest::bruteSemiHard(ranked, ranked[p], cand));
        const double t1 = std::max(0.0, dap - weight(a, n) * d[n] + o.margin);
        sum += t1;
        r.active += t1 > 0;
        ++r.terms;
        if (o.augmented) {
            const double daa = losstest::sqDist(e[a], aug[a]);
            const auto n2 = std::size_t(losstest::bruteSemiHard(ranked, daa, cand));
            const double t2 = std::max(0.0, daa - weight(a, n2) * d[n2] + o.margin);
            sum += t2;
            r.active += t2 > 0;
            ++r.terms;
        }
    }
    r.loss = r.terms ? sum / double(r.terms) : 0.0;
    return r;
}

/// The hand-solved batch (see handSolvedSset): 4 sets in 2-D with squared distances
/// d01=4 d02=1 d03=2 d12=5 d13=2 d23=1, and EMDs 1 3 2 / 4 5 / 6.
const Matrix kEmb = {{0, 0}, {2, 0}, {0, 1}, {1, 1}};
const Matrix kEmd = {{0, 1, 3, 2}, {1, 0, 4, 5}, {3, 4, 0, 6}, {2, 5, 6, 0}};

sdk::LossContext context(const Matrix& emb, const Matrix& emd, const Matrix& aug = {}, bool grad = false)
{
    sdk::LossContext c;
    c.embeddings = losstest::tensorOf(emb).requires_grad_(grad);
    c.emd = losstest::tensorOf(emd);
    if (!aug.empty())
        c.augmented = losstest::tensorOf(aug).requires_grad_(grad);
    const auto b = static_cast<std::int64_t>(emb.size());
    c.labels = torch::full({b}, -1, torch::kInt64);
    c.items = torch::arange(b, torch::kInt64);
    return c;
}

sdk::LossContext toDevice(sdk::LossContext c, const torch::Device& dev)
{
    c.embeddings = c.embeddings.to(dev);
    c.emd = c.emd.to(dev);
    if (c.augmented.defined())
        c.augmented = c.augmented.to(dev);
    c.labels = c.labels.to(dev);
    c.items = c.items.to(dev);
    return c;
}

SelfSupervisedTripletLoss make(const std::map<std::string, std::string>& given)
{
    return SelfSupervisedTripletLoss(losstest::spec(SelfSupervisedTripletLoss::schema(), given));
}

std::vector<std::int64_t> vecOf(const torch::Tensor& t)
{
    const torch::Tensor c = t.to(torch::kCPU, torch::kInt64).contiguous();
    return {c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel()};
}

} // namespace

class TestSelfSupervisedTripletLoss : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handSolvedTriplets();
    void handSolvedSset();
    void handSolvedWsset();
    void positivePercentileHandSolved();
    void rowSigmaHandSolved();
    void squaredExponentHandSolved();
    void weightedNegativesHandSolved();
    void percentileOfMatrixHandSolved();
    void formsResolveTheirParts();
    void augmentedTermMeanIsOverTwoNHat();
    void sigmaZeroOrNonFiniteGivesUnitWeights();
    void tooSmallBatchGivesZero();
    void matchesScalarReference_data();
    void matchesScalarReference();
    void gradientsReachEmbeddingsAndAugmentedView();
    void options();
    void invalidContextThrows();
};

void TestSelfSupervisedTripletLoss::handSolvedTriplets()
{
    // Positives (EMD-nearest): 0->1 (EMD 1), 1->0 (1), 2->0 (3), 3->0 (2).
    // Negatives, among the sets other than anchor and positive:
    //  a0: d(a,p)=4, candidates 2 (d=1) and 3 (d=2), none farther: the farthest, 3.
    //  a1: d(a,p)=4, candidates 2 (5) and 3 (2): 2.
    //  a2: d(a,p)=1, candidates 1 (5) and 3 (1, equal, not farther): 1.
    //  a3: d(a,p)=2, candidates 1 (2, equal) and 2 (1): none farther, the farthest, 1.
    const auto loss = make({});
    const auto t = loss.mine(context(kEmb, kEmd));
    QCOMPARE(vecOf(t.positive), (std::vector<std::int64_t>{1, 0, 0, 0}));
    QCOMPARE(vecOf(t.negative), (std::vector<std::int64_t>{3, 2, 1, 1}));
    QCOMPARE(vecOf(t.anchor), (std::vector<std::int64_t>{1, 1, 1, 1}));
    QVERIFY(!t.augmentedNegative.defined());
    // σ of the EMDs 1 3 2 4 5 6: mean 3.5, population variance 17.5 / 6.
    QVERIFY(std::abs(t.sigma - std::sqrt(17.5 / 6)) < 1e-12);
}

void TestSelfSupervisedTripletLoss::handSolvedSset()
{
    // Terms [d(a,p) - d(a,n) + 0.1]_+: a0 4-2+.1 = 2.1; a1 4-5+.1 < 0; a2 1-5+.1 < 0; a3 2-2+.1 = 0.1.
    const auto out = make({{"weighted", "false"}}).forward(context(kEmb, kEmd));
    QVERIFY(std::abs(out.loss.item<double>() - 2.2 / 4) < 1e-6);
    QCOMPARE(out.terms, std::int64_t(4));
    QCOMPARE(out.activeTerms, std::int64_t(2));
    const auto m = make({{"weighted", "false"}, {"margin", "0.5"}}).forward(context(kEmb, kEmd));
    // 2.5, 0, 0, 0.5 (a1: 4-5+.5 = -.5; a2: 1-5+.5 < 0).
    QVERIFY(std::abs(m.loss.item<double>() - 3.0 / 4) < 1e-6);
}

void TestSelfSupervisedTripletLoss::handSolvedWsset()
{
    // c = 1: 2(cσ)² = 2 * 17.5/6. Negatives' EMDs: a0->3: 2, a1->2: 4, a2->1: 4, a3->1: 5.
    const double denom = 2 * 17.5 / 6;
    const double w0 = std::exp(-2 / denom), w1 = std::exp(-4 / denom), w3 = std::exp(-5 / denom);
    const double t0 = 4 - w0 * 2 + 0.1;            // 2.680
    const double t1 = 4 - w1 * 5 + 0.1;            // 1.581
    const double t2 = std::max(0.0, 1 - w1 * 5 + 0.1); // 1.1 - 2.52 < 0
    const double t3 = 2 - w3 * 2 + 0.1;            // 1.251
    auto loss = make({{"c", "1"}});
    const auto out = loss.forward(context(kEmb, kEmd));
    QVERIFY2(std::abs(out.loss.item<double>() - (t0 + t1 + t2 + t3) / 4) < 1e-5,
             qPrintable(QString("got %1 want %2").arg(out.loss.item<double>()).arg((t0 + t1 + t2 + t3) / 4)));
    QCOMPARE(out.terms, std::int64_t(4));
    QCOMPARE(out.activeTerms, std::int64_t(3));
    const auto t = loss.mine(context(kEmb, kEmd));
    QVERIFY(std::abs(t.weight[0].item<double>() - w0) < 1e-6);
    QVERIFY(std::abs(t.weight[3].item<double>() - w3) < 1e-6);
    // Default c = 7: the weights are close to 1 but below it, so the loss lies just above SSET's.
    const double big = make({}).forward(context(kEmb, kEmd)).loss.item<double>();
    QVERIFY(big > 2.2 / 4 + 1e-4 && big < 2.2 / 4 + 0.05);
}

void TestSelfSupervisedTripletLoss::positivePercentileHandSolved()
{
    // Pair EMDs sorted: 1 2 3 4 5 6; P_q = linear interpolation at rank q/100 * 5.
    // Positive EMDs per anchor: 1, 1, 3, 2. SSET terms: 2.1, 0, 0, 0.1.
    struct Case {
        const char* q;
        std::int64_t terms;
        double loss;
    };
    const Case cases[] = {
        {"100", 4, 2.2 / 4}, // no filter
        {"50", 4, 2.2 / 4},  // P = 3.5: all below
        {"30", 3, 2.2 / 3},  // P = 2.5: a2 (3) dropped
        {"20", 2, 2.1 / 2},  // P = 2: a3 (2, not strictly below) and a2 dropped
        {"0", 0, 0.0},       // P = 1: nothing strictly below
    };
    for (const Case& c : cases) {
        const auto out = make({{"weighted", "false"}, {"positive-percentile", c.q}}).forward(context(kEmb, kEmd, {}, true));
        QVERIFY2(out.terms == c.terms, c.q);
        QVERIFY2(std::abs(out.loss.item<double>() - c.loss) < 1e-6, c.q);
        out.loss.backward(); // also the zero loss of q = 0 keeps a graph
    }
}

void TestSelfSupervisedTripletLoss::rowSigmaHandSolved()
{
    // σ of each anchor's row of kEmd, self included (population):
    //  row 0: 0 1 3 2, mean 1.5, variance 5/4;   row 1: 1 0 4 5, mean 2.5, variance 17/4;
    //  row 2: 3 4 0 6, mean 3.25, variance 18.75/4; row 3: 2 5 6 0, mean 3.25, variance 22.75/4.
    // Negatives as in handSolvedTriplets (3, 2, 1, 1) with EMDs 2, 4, 4, 5; c = 1.
    const double var[] = {5.0 / 4, 17.0 / 4, 18.75 / 4, 22.75 / 4};
    const double negEmd[] = {2, 4, 4, 5};
    auto loss = make({{"c", "1"}, {"sigma", "row"}});
    QVERIFY(loss.rowSigma() && !loss.squaredExponent() && !loss.weightedNegatives());
    const auto t = loss.mine(context(kEmb, kEmd));
    QCOMPARE(vecOf(t.negative), (std::vector<std::int64_t>{3, 2, 1, 1}));
    double w[4];
    for (int a = 0; a < 4; ++a) {
        QVERIFY(std::abs(t.anchorSigma[a].item<double>() - std::sqrt(var[a])) < 1e-12);
        w[a] = std::exp(-negEmd[a] / (2 * var[a]));
        QVERIFY2(std::abs(t.weight[a].item<double>() - w[a]) < 1e-6, qPrintable(QString::number(a)));
    }
    // Terms: a0 4 - 2 w0 + .1, a1 4 - 5 w1 + .1, a2 1 - 5 w2 + .1, a3 2 - 2 w3 + .1 (each >= 0 here).
    const double want = ((4 - 2 * w[0] + .1) + (4 - 5 * w[1] + .1) + std::max(0.0, 1 - 5 * w[2] + .1) +
                         (2 - 2 * w[3] + .1)) / 4;
    QVERIFY2(std::abs(loss.forward(context(kEmb, kEmd)).loss.item<double>() - want) < 1e-5,
             qPrintable(QString("want %1").arg(want)));
}

void TestSelfSupervisedTripletLoss::squaredExponentHandSolved()
{
    // σ of the batch: 2σ² = 2 * 17.5/6; the negatives' EMDs 2, 4, 4, 5 enter squared.
    const double denom = 2 * 17.5 / 6;
    auto loss = make({{"c", "1"}, {"exponent", "emd-squared"}});
    QVERIFY(loss.squaredExponent() && !loss.rowSigma());
    const auto t = loss.mine(context(kEmb, kEmd));
    const double w[] = {std::exp(-4 / denom), std::exp(-16 / denom), std::exp(-16 / denom), std::exp(-25 / denom)};
    for (int a = 0; a < 4; ++a)
        QVERIFY2(std::abs(t.weight[a].item<double>() - w[a]) < 1e-6, qPrintable(QString::number(a)));
    // Doubling every EMD: the printed weight exp(-EMD / 2(cσ)²) changes (σ doubles, EMD doubles:
    // the exponent halves), the squared one does not (it depends on EMD / σ only).
    Matrix twice = kEmd;
    for (auto& r : twice)
        for (double& v : r)
            v *= 2;
    const auto t2 = loss.mine(context(kEmb, twice));
    QVERIFY(torch::allclose(t.weight, t2.weight, 1e-6, 1e-7));
    const auto printed = make({{"c", "1"}});
    QVERIFY(!torch::allclose(printed.mine(context(kEmb, kEmd)).weight, printed.mine(context(kEmb, twice)).weight, 1e-3, 1e-3));
}

void TestSelfSupervisedTripletLoss::weightedNegativesHandSolved()
{
    // 1-D embeddings 0, 1, √2, √3: d(0,1) = 1, d(0,2) = 2, d(0,3) = 3. EMDs: anchor 0's positive is
    // 1 (EMD 1), EMD(0,2) = 6, EMD(0,3) = 2; the other pairs 3 4 5. The pairs' σ² = 17.5/6 as in
    // kEmd, c = 1, exponent EMD: w01 = e^{-1/5.833}, w02 = e^{-6/5.833}, w03 = e^{-2/5.833}.
    //  plain:    the closest candidate farther than d(0,1) = 1 is 2 (d = 2): term 1 - 2 w02 + .1
    //  weighted: w·d = 0.842 (p), 0.715 (2), 2.129 (3): only 3 is farther, term 1 - 3 w03 + .1 < 0
    const Matrix emb = {{0, 0}, {1, 0}, {std::sqrt(2.0), 0}, {std::sqrt(3.0), 0}};
    const Matrix emd = {{0, 1, 6, 2}, {1, 0, 3, 4}, {6, 3, 0, 5}, {2, 4, 5, 0}};
    const double denom = 2 * 17.5 / 6;
    const double w02 = std::exp(-6 / denom);
    const auto plain = make({{"c", "1"}}).mine(context(emb, emd));
    const auto weighted = make({{"c", "1"}, {"negatives", "weighted"}}).mine(context(emb, emd));
    QCOMPARE(plain.negative[0].item<std::int64_t>(), std::int64_t(2));
    QCOMPARE(weighted.negative[0].item<std::int64_t>(), std::int64_t(3));
    QVERIFY(std::abs(plain.weight[0].item<double>() - w02) < 1e-6);
    QVERIFY(std::abs(weighted.weight[0].item<double>() - std::exp(-2 / denom)) < 1e-6);
    // The whole loss against the scalar reference (both choices).
    for (bool wn : {false, true}) {
        const RefResult want = referenceLoss(emb, {}, emd, {.weighted = true, .c = 1, .weightedNeg = wn});
        const auto got = make({{"c", "1"}, {"negatives", wn ? "weighted" : "plain"}}).forward(context(emb, emd));
        QVERIFY(std::abs(got.loss.item<double>() - want.loss) < 1e-5);
        QCOMPARE(got.activeTerms, want.active);
    }
    // Row 0's own terms, by hand: active with plain mining, zero with weighted.
    QVERIFY(1 - 2 * w02 + 0.1 > 0 && 1 - 3 * std::exp(-2 / denom) + 0.1 < 0);
}

void TestSelfSupervisedTripletLoss::percentileOfMatrixHandSolved()
{
    // kEmd's 16 entries sorted: 0 0 0 0 1 1 2 2 3 3 4 4 5 5 6 6. tfp's nearest rank of q, counted
    // from the largest: round-half-even(15 (1 - q/100)).
    //  q = 20: 12 from the top = 0 -> nothing is strictly below: no anchor kept.
    //  q = 40: 9 from the top = 2 -> positives' EMDs 1, 1, 3, 2: anchors 0 and 1 kept.
    //  q = 70: 4.5 -> 4 (to even) from the top (6 6 5 5 4 ...) = 4: every anchor kept.
    // Over the pairs (interpolated), q = 40 gives 3: anchors 0, 1 and 3.
    struct Case {
        const char* q;
        const char* of;
        double threshold;
        std::vector<std::int64_t> kept;
    };
    const Case cases[] = {
        {"20", "matrix", 0, {0, 0, 0, 0}},
        {"40", "matrix", 2, {1, 1, 0, 0}},
        {"70", "matrix", 4, {1, 1, 1, 1}},
        {"40", "pairs", 3, {1, 1, 0, 1}},
    };
    for (const Case& c : cases) {
        auto loss = make({{"weighted", "false"}, {"positive-percentile", c.q}, {"percentile-of", c.of}});
        const auto t = loss.mine(context(kEmb, kEmd));
        QVERIFY2(t.threshold == c.threshold, c.q);
        QVERIFY2(vecOf(t.anchor) == c.kept, c.q);
        const auto out = loss.forward(context(kEmb, kEmd, {}, true));
        QCOMPARE(out.terms, std::int64_t(std::count(c.kept.begin(), c.kept.end(), 1)));
        out.loss.backward();
    }
}

void TestSelfSupervisedTripletLoss::formsResolveTheirParts()
{
    const auto paper = make({});
    QCOMPARE(paper.form(), std::string("paper"));
    QCOMPARE(paper.c(), 7.0);
    QCOMPARE(paper.positivePercentile(), 100.0);
    QVERIFY(!paper.squaredExponent() && !paper.rowSigma() && !paper.weightedNegatives() && !paper.percentileOfMatrix());
    auto authors = make({{"form", "authors"}});
    QCOMPARE(authors.c(), 12.0);
    QCOMPARE(authors.positivePercentile(), 20.0);
    QVERIFY(authors.squaredExponent() && authors.rowSigma() && authors.weightedNegatives() && authors.percentileOfMatrix());
    // A part given explicitly wins over the form.
    const auto mixed = make({{"form", "authors"}, {"c", "7"}, {"sigma", "batch"}, {"positive-percentile", "100"}});
    QCOMPARE(mixed.c(), 7.0);
    QVERIFY(!mixed.rowSigma() && mixed.squaredExponent() && mixed.weightedNegatives());
    QCOMPARE(mixed.positivePercentile(), 100.0);
    QVERIFY(make({{"exponent", "emd-squared"}}).squaredExponent());
    QVERIFY(!make({{"form", "authors"}, {"negatives", "plain"}}).weightedNegatives());
    // The authors' form is the sum of its parts.
    const RefOptions ref{.weighted = true, .margin = 0.1, .c = 12, .q = 20, .squared = true, .rowSigma = true,
                         .weightedNeg = true, .matrixPct = true};
    int compared = 0;
    for (int trial = 0; trial < 20; ++trial) {
        torch::manual_seed(300 + trial);
        const std::int64_t b = 12;
        const Matrix emb = losstest::matrixOf(torch::nn::functional::normalize(
            torch::randn({b, 3}), torch::nn::functional::NormalizeFuncOptions().dim(1)));
        const Matrix emd = losstest::matrixOf(losstest::tensorOf(losstest::randomEmd(b, 0.2, 2.0)));
        const RefResult want = referenceLoss(emb, {}, emd, ref);
        const auto got = authors.forward(context(emb, emd));
        QVERIFY2(std::abs(got.loss.item<double>() - want.loss) < 1e-5, qPrintable(QString::number(trial)));
        QCOMPARE(got.terms, want.terms);
        compared += want.terms > 0;
    }
    QVERIFY(compared > 5); // the filter keeps some anchors: the comparison was not 0 == 0 throughout
}

void TestSelfSupervisedTripletLoss::augmentedTermMeanIsOverTwoNHat()
{
    // Views shifted by (0, 0.5): d(a,a') = 0.25; every second term is 0 (n' at distance >= 1:
    // 0.25 - 1 + 0.1 < 0), so the loss is the SSET sum over 2n̂ = 8 terms: 2.2 / 8.
    Matrix aug = kEmb;
    for (auto& r : aug)
        r[1] += 0.5;
    const auto plain = make({{"weighted", "false"}}).forward(context(kEmb, kEmd, aug));
    const auto both = make({{"weighted", "false"}, {"augmented-term", "true"}}).forward(context(kEmb, kEmd, aug));
    QVERIFY(std::abs(plain.loss.item<double>() - 2.2 / 4) < 1e-6);
    QVERIFY(std::abs(both.loss.item<double>() - 2.2 / 8) < 1e-6);
    QCOMPARE(both.terms, std::int64_t(8));
    QCOMPARE(both.activeTerms, std::int64_t(2));

    // Shifted by (0, 2): d(a,a') = 4. a0: candidates 2 (1), 3 (2) -> fallback 3: 4-2+.1 = 2.1;
    // a1: 2 (5) -> 4-5+.1 < 0; a2: 1 (5) -> < 0; a3: candidates 1 (2), 2 (1) -> fallback 1: 2.1.
    for (auto& r : aug)
        r[1] += 1.5;
    auto loss = make({{"weighted", "false"}, {"augmented-term", "true"}});
    const auto out = loss.forward(context(kEmb, kEmd, aug));
    QVERIFY(std::abs(out.loss.item<double>() - (2.2 + 4.2) / 8) < 1e-6);
    QCOMPARE(out.activeTerms, std::int64_t(4));
    QCOMPARE(vecOf(loss.mine(context(kEmb, kEmd, aug)).augmentedNegative), (std::vector<std::int64_t>{3, 2, 1, 1}));
}

void TestSelfSupervisedTripletLoss::sigmaZeroOrNonFiniteGivesUnitWeights()
{
    // Every pair at EMD 1: σ = 0. Positives tie: the lowest index (0->1, others->0), the same
    // as the hand-solved batch, so with w = 1 the loss is SSET's 2.2 / 4.
    const Matrix flat = {{0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 1}, {1, 1, 1, 0}};
    auto loss = make({{"c", "1"}});
    const auto t = loss.mine(context(kEmb, flat));
    QCOMPARE(t.sigma, 0.0);
    QCOMPARE(vecOf(t.positive), (std::vector<std::int64_t>{1, 0, 0, 0}));
    QCOMPARE(t.weight.min().item<double>(), 1.0);
    QCOMPARE(t.weight.max().item<double>(), 1.0);
    QVERIFY(std::abs(loss.forward(context(kEmb, flat)).loss.item<double>() - 2.2 / 4) < 1e-6);

    // An infinite EMD makes σ non-finite: weights 1 again, positives unchanged.
    Matrix inf = kEmd;
    inf[2][3] = inf[3][2] = std::numeric_limits<double>::infinity();
    const auto ti = loss.mine(context(kEmb, inf));
    QVERIFY(!std::isfinite(ti.sigma));
    QCOMPARE(ti.weight.min().item<double>(), 1.0);
    QVERIFY(std::abs(loss.forward(context(kEmb, inf)).loss.item<double>() - 2.2 / 4) < 1e-6);
}

void TestSelfSupervisedTripletLoss::tooSmallBatchGivesZero()
{
    for (const Matrix& emb : {Matrix{{0, 0}, {1, 0}}, Matrix{{0, 1}}}) {
        const std::size_t b = emb.size();
        const Matrix emd(b, std::vector<double>(b, 0.0));
        auto loss = make({{"augmented-term", "true"}});
        const auto c = context(emb, emd, emb, true);
        const auto out = loss.forward(c);
        QCOMPARE(out.terms, std::int64_t(0));
        QCOMPARE(out.loss.item<double>(), 0.0);
        out.loss.backward();
        QVERIFY(c.embeddings.grad().defined());
        QCOMPARE(c.embeddings.grad().abs().sum().item<double>(), 0.0);
        QCOMPARE(vecOf(loss.mine(c).anchor), std::vector<std::int64_t>(b, 0));
    }
}

void TestSelfSupervisedTripletLoss::matchesScalarReference_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("weighted");
    QTest::addColumn<double>("c");
    QTest::addColumn<double>("q");
    QTest::addColumn<bool>("augmented");
    QTest::addColumn<QString>("parts"); // extra options: s = sigma row, x = emd-squared, w = weighted negatives, m = matrix
    std::vector<std::string> devices{"cpu"};
    if (torch::cuda::is_available())
        devices.push_back("cuda:0");
    for (const std::string& d : devices) {
        const QString dev = QString::fromStdString(d);
        QTest::newRow(qPrintable(dev + " sset")) << dev << false << 7.0 << 100.0 << false << "";
        QTest::newRow(qPrintable(dev + " wsset c=0.5")) << dev << true << 0.5 << 100.0 << false << "";
        QTest::newRow(qPrintable(dev + " wsset c=7")) << dev << true << 7.0 << 100.0 << false << "";
        QTest::newRow(qPrintable(dev + " wsset+aug c=0.5")) << dev << true << 0.5 << 100.0 << true << "";
        QTest::newRow(qPrintable(dev + " wsset+aug q=60")) << dev << true << 0.4 << 60.0 << true << "";
        QTest::newRow(qPrintable(dev + " sset+aug q=35")) << dev << false << 7.0 << 35.0 << true << "";
        QTest::newRow(qPrintable(dev + " row sigma")) << dev << true << 0.5 << 100.0 << false << "s";
        QTest::newRow(qPrintable(dev + " squared")) << dev << true << 0.5 << 100.0 << false << "x";
        QTest::newRow(qPrintable(dev + " weighted negatives")) << dev << true << 0.5 << 100.0 << true << "w";
        QTest::newRow(qPrintable(dev + " matrix q=60")) << dev << false << 7.0 << 60.0 << false << "m";
        QTest::newRow(qPrintable(dev + " authors+aug c=0.7")) << dev << true << 0.7 << 70.0 << true << "sxwm";
    }
}

void TestSelfSupervisedTripletLoss::matchesScalarReference()
{
    QFETCH(QString, device);
    QFETCH(bool, weighted);
    QFETCH(double, c);
    QFETCH(double, q);
    QFETCH(bool, augmented);
    QFETCH(QString, parts);
    const torch::Device dev(device.toStdString());
    RefOptions ref{weighted, 0.3, c, q, augmented};
    ref.rowSigma = parts.contains('s');
    ref.squared = parts.contains('x');
    ref.weightedNeg = parts.contains('w');
    ref.matrixPct = parts.contains('m');
    auto loss = make({{"weighted", weighted ? "true" : "false"},
                      {"c", std::to_string(c)},
                      {"positive-percentile", std::to_string(q)},
                      {"augmented-term", augmented ? "true" : "false"},
                      {"margin", "0.3"},
                      {"sigma", ref.rowSigma ? "row" : "batch"},
                      {"exponent", ref.squared ? "emd-squared" : "emd"},
                      {"negatives", ref.weightedNeg ? "weighted" : "plain"},
                      {"percentile-of", ref.matrixPct ? "matrix" : "pairs"}});
    int nonZero = 0;
    for (int trial = 0; trial < 25; ++trial) {
        torch::manual_seed(2000 + trial);
        const std::int64_t b = 4 + trial % 3; // 4..6
        const torch::Tensor e = torch::nn::functional::normalize(torch::randn({b, 2}),
                                                                 torch::nn::functional::NormalizeFuncOptions().dim(1));
        const torch::Tensor a = torch::nn::functional::normalize(e + 0.4 * torch::randn({b, 2}),
                                                                 torch::nn::functional::NormalizeFuncOptions().dim(1));
        // The reference reads exactly the float32 values the loss reads.
        const Matrix emb = losstest::matrixOf(e), aug = losstest::matrixOf(a);
        const Matrix emd = losstest::matrixOf(losstest::tensorOf(losstest::randomEmd(b, 0.2, 2.0)));
        const RefResult want = referenceLoss(emb, aug, emd, ref);
        const auto got = loss.forward(toDevice(context(emb, emd, aug), dev));
        QCOMPARE(got.loss.device(), dev);
        QVERIFY2(std::abs(got.loss.item<double>() - want.loss) < 1e-5,
                 qPrintable(QString("trial %1: got %2 want %3").arg(trial).arg(got.loss.item<double>()).arg(want.loss)));
        QCOMPARE(got.terms, want.terms);
        QCOMPARE(got.activeTerms, want.active);
        nonZero += want.loss > 0;
    }
    QVERIFY(nonZero > 10); // the comparison was not 0 == 0 throughout
}

void TestSelfSupervisedTripletLoss::gradientsReachEmbeddingsAndAugmentedView()
{
    Matrix aug = kEmb;
    for (auto& r : aug)
        r[1] += 2.0; // the second terms of a0 and a3 are active (augmentedTermMeanIsOverTwoNHat)
    const auto c = context(kEmb, kEmd, aug, true);
    auto loss = make({{"augmented-term", "true"}});
    const auto out = loss.forward(c);
    out.loss.backward();
    QVERIFY(c.embeddings.grad().abs().sum().item<double>() > 0);
    QVERIFY(c.augmented.grad().abs().sum().item<double>() > 0);
    QVERIFY(torch::isfinite(c.embeddings.grad()).all().item<bool>());
    // d/d aug[0] of [ ||e0 - a0||² - ... ]_+ / 8 = -2 (e0 - a0) / 8 = (0, 0.5); a1, a2 inactive.
    const torch::Tensor g = c.augmented.grad();
    QVERIFY(std::abs(g[0][0].item<double>()) < 1e-6 && std::abs(g[0][1].item<double>() - 0.5) < 1e-6);
    QCOMPARE(g[1].abs().sum().item<double>(), 0.0);
    QCOMPARE(g[2].abs().sum().item<double>(), 0.0);
    // No parameters of its own.
    QVERIFY(loss.parameters().empty());
}

void TestSelfSupervisedTripletLoss::options()
{
    const sdk::OptionSchema schema = SelfSupervisedTripletLoss::schema();
    for (const sdk::OptionSpec& o : schema) {
        QVERIFY(!o.doc.empty());
        for (char ch : o.name)
            QVERIFY2((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-', o.name.c_str());
    }
    QCOMPARE(int(schema.size()), 10);
    const auto def = make({});
    QVERIFY(def.weighted());
    QCOMPARE(def.margin(), 0.1);
    QCOMPARE(def.c(), 7.0);
    QCOMPARE(def.positivePercentile(), 100.0);
    QVERIFY(!def.augmentedTerm());
    QVERIFY(def.needs().transport);
    QVERIFY(!def.needs().augmentedView);
    QVERIFY(!def.needs().labels);
    QVERIFY(make({{"augmented-term", "yes"}}).needs().augmentedView);
    QVERIFY(!make({{"weighted", "0"}}).weighted());

    const std::map<std::string, std::string> bad[] = {
        {{"margin", "-0.1"}}, {{"c", "-1"}}, {{"positive-percentile", "100.5"}}, {{"positive-percentile", "-2"}},
        {{"positive-percentile", "-0.5"}}, {{"weighted", "maybe"}}, {{"alpha", "0.1"}}, {{"margin", "nan"}},
        {{"form", "code"}}, {{"sigma", "col"}}, {{"exponent", "emd3"}}, {{"negatives", "hard"}}, {{"percentile-of", "all"}},
    };
    for (const auto& given : bad)
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make(given));
}

void TestSelfSupervisedTripletLoss::invalidContextThrows()
{
    auto loss = make({{"augmented-term", "true"}});
    sdk::LossContext c = context(kEmb, kEmd, kEmb);
    c.emd = torch::Tensor();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(c));
    c.emd = torch::zeros({3, 3});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(c));
    c = context(kEmb, kEmd);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(c)); // no augmented view
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.mine(c));
}

QTEST_GUILESS_MAIN(TestSelfSupervisedTripletLoss)
#include "tst_SelfSupervisedTripletLoss.moc"
