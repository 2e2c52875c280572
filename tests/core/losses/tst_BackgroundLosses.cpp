// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The background losses of seed 002: N-pair, the cosine-distance triplet and MoCo's queue
// InfoNCE; and the registration of all of issue 11's losses.
#include "core/builtins/Builtins.h"
#include "core/losses/CosineTripletLoss.h"
#include "core/losses/MocoLoss.h"
#include "core/losses/NPairLoss.h"
#include "core/plugin/Registry.h"

#include "LossTestUtil.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace setscope;
using losses::CosineTripletLoss;
using losses::MocoLoss;
using losses::NPairLoss;
using losstest::Matrix;

namespace {

template <typename L>
L make(const std::map<std::string, std::string>& given, std::int64_t embeddingDim = 2)
{
    return L(losstest::spec(L::schema(), given, embeddingDim));
}

sdk::LossContext context(const torch::Tensor& emb, const std::vector<std::int64_t>& labels,
                         const torch::Tensor& augmented = {})
{
    sdk::LossContext c;
    c.embeddings = emb;
    c.augmented = augmented;
    c.labels = torch::tensor(labels, torch::kInt64).to(emb.device());
    c.items = torch::arange(emb.size(0), torch::TensorOptions().dtype(torch::kInt64).device(emb.device()));
    return c;
}

/// MoCo's queries and keys (the key encoder's embeddings, LossContext::keys).
sdk::LossContext mocoContext(const torch::Tensor& queries, const torch::Tensor& keys)
{
    sdk::LossContext c = context(queries, std::vector<std::int64_t>(static_cast<std::size_t>(queries.size(0)), -1));
    c.keys = keys;
    return c;
}

double dot(const std::vector<double>& a, const std::vector<double>& b)
{
    double s = 0;
    for (std::size_t k = 0; k < a.size(); ++k)
        s += a[k] * b[k];
    return s;
}

double cosineDistance(const std::vector<double>& a, const std::vector<double>& b)
{
    return 1.0 - dot(a, b) / std::sqrt(dot(a, a) * dot(b, b));
}

} // namespace

class TestBackgroundLosses : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void npairByHand_data() { losstest::addDeviceRows(); }
    void npairByHand();
    void npairSameClassPairsAreNotNegatives();
    void npairAugmentedMatchesLoops();
    void cosineTripletByHand();
    void cosineTripletSemiHardMatchesBruteForce();
    void cosineTripletAugmented();
    void mocoInfoNceByHand_data() { losstest::addDeviceRows(); }
    void mocoInfoNceByHand();
    void mocoQueueIsFifo();
    void mocoQueueIsSavedAndNotGrownInEval();
    void mocoTwoQueriesByHand();
    void mocoMomentumOption();
    void badOptionsThrow();
    void registered();
};

// Pairs (f0, f0⁺) = ((1, 0), (0.5, 0.5)) of class 0 and (f1, f1⁺) = ((0, 1), (1, 1)) of
// class 1: L_0 = log(1 + exp(f0·f1⁺ - f0·f0⁺)) = log(1 + e^0.5), L_1 = log(1 + e^-0.5).
void TestBackgroundLosses::npairByHand()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    auto loss = make<NPairLoss>({});
    // Rows in batch order: 0 (class 0), 1 (class 1), an unlabelled row, 2nd of class 0,
    // 2nd of class 1, and an unpaired third of class 0.
    const torch::Tensor e = losstest::tensorOf({{1, 0}, {0, 1}, {7, 7}, {0.5, 0.5}, {1, 1}, {3, -2}}).to(dev);
    const auto out = loss.forward(context(e, {0, 1, -1, 0, 1, 0}));
    const double want = (std::log(1 + std::exp(0.5)) + std::log(1 + std::exp(-0.5))) / 2;
    QVERIFY(std::abs(want - 0.7240769841801067) < 1e-12);
    QVERIFY2(std::abs(out.loss.item<double>() - want) < 1e-6, qPrintable(QString::number(out.loss.item<double>())));
    QCOMPARE(out.terms, std::int64_t(2));
    // The L2 regulariser: + l2 · mean over pairs of |f|² + |f⁺|² = 0.1 · (1.5 + 3) / 2.
    auto reg = make<NPairLoss>({{"l2", "0.1"}});
    QVERIFY(std::abs(reg.forward(context(e, {0, 1, -1, 0, 1, 0})).loss.item<double>() - (want + 0.225)) < 1e-6);
    // One class only: no negative, no term.
    const auto lone = loss.forward(context(e, {0, 0, 0, 0, -1, -1}));
    QCOMPARE(lone.terms, std::int64_t(0));
    QCOMPARE(lone.loss.item<double>(), 0.0);
}

// Two pairs of class 0 and one of class 1: a pair of the same class is not a negative.
void TestBackgroundLosses::npairSameClassPairsAreNotNegatives()
{
    auto loss = make<NPairLoss>({});
    // Pairs: (r0, r1) class 0, (r2, r3) class 0, (r4, r5) class 1.
    const Matrix m = {{1, 0}, {0.8, 0.1}, {0, 1}, {0.2, 0.9}, {-1, 0.5}, {-0.7, 0.2}};
    const auto out = loss.forward(context(losstest::tensorOf(m), {0, 0, 0, 0, 1, 1}));
    const auto term = [&](std::size_t a, std::size_t p, std::vector<std::size_t> negatives) {
        double s = 0;
        for (std::size_t n : negatives)
            s += std::exp(dot(m[a], m[n]) - dot(m[a], m[p]));
        return std::log(1 + s);
    };
    const double want = (term(0, 1, {5}) + term(2, 3, {5}) + term(4, 5, {1, 3})) / 3;
    QVERIFY2(std::abs(out.loss.item<double>() - want) < 1e-6, qPrintable(QString("%1 vs %2").arg(out.loss.item<double>()).arg(want)));
    QCOMPARE(out.terms, std::int64_t(3));
}

void TestBackgroundLosses::npairAugmentedMatchesLoops()
{
    auto loss = make<NPairLoss>({{"positive", "augmented"}});
    QVERIFY(loss.needs().augmentedView && !loss.needs().labels);
    torch::manual_seed(6);
    const torch::Tensor e = torch::randn({3, 2});
    const torch::Tensor a = torch::randn({3, 2});
    const Matrix em = losstest::matrixOf(e), am = losstest::matrixOf(a);
    double want = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        double s = 0;
        for (std::size_t j = 0; j < 3; ++j)
            if (j != i)
                s += std::exp(dot(em[i], am[j]) - dot(em[i], am[i]));
        want += std::log(1 + s) / 3;
    }
    const auto out = loss.forward(context(e, {-1, -1, -1}, a));
    QVERIFY(std::abs(out.loss.item<double>() - want) < 1e-6);
    QCOMPARE(out.terms, std::int64_t(3));
}

// a = (1, 0), p = (1, 1) share a label, n = (0, 1) does not. D(a, p) = D(p, n) = 1 - 1/√2,
// D(a, n) = 1. Triplets: (a, p, n): max(0, 0.2929 - 1 + 0.5) = 0; (p, a, n):
// max(0, 0.2929 - 0.2929 + 0.5) = 0.5. Mean 0.25 with either mining (one negative).
void TestBackgroundLosses::cosineTripletByHand()
{
    const torch::Tensor e = losstest::tensorOf({{1, 0}, {1, 1}, {0, 1}});
    for (const char* mining : {"semi-hard", "all"}) {
        auto loss = make<CosineTripletLoss>({{"mining", mining}});
        QCOMPARE(loss.margin(), 0.5);
        const auto out = loss.forward(context(e, {0, 0, 1}));
        QVERIFY2(std::abs(out.loss.item<double>() - 0.25) < 1e-6, mining);
        QCOMPARE(out.terms, std::int64_t(2));
        QCOMPARE(out.activeTerms, std::int64_t(1));
    }
    const torch::Tensor d = CosineTripletLoss::cosineDistances(e, e);
    QVERIFY(std::abs(d[0][1].item<double>() - (1 - 1 / std::sqrt(2.0))) < 1e-6);
    QVERIFY(std::abs(d[0][2].item<double>() - 1.0) < 1e-6);
}

void TestBackgroundLosses::cosineTripletSemiHardMatchesBruteForce()
{
    torch::manual_seed(7);
    const torch::Tensor e = torch::randn({8, 3});
    const std::vector<std::int64_t> labels = {0, 1, 0, 2, 1, -1, 0, 2};
    const Matrix m = losstest::matrixOf(e);
    double semi = 0, all = 0;
    int nSemi = 0, nAll = 0;
    for (std::size_t a = 0; a < 8; ++a)
        for (std::size_t p = 0; p < 8; ++p) {
            if (a == p || labels[a] < 0 || labels[a] != labels[p])
                continue;
            std::vector<double> d(8);
            std::vector<bool> cand(8);
            for (std::size_t n = 0; n < 8; ++n) {
                d[n] = cosineDistance(m[a], m[n]);
                cand[n] = labels[n] >= 0 && labels[n] != labels[a];
                if (cand[n]) {
                    all += std::max(0.0, cosineDistance(m[a], m[p]) - d[n] + 0.5);
                    ++nAll;
                }
            }
            const std::int64_t n = losstest::bruteSemiHard(d, cosineDistance(m[a], m[p]), cand);
            semi += std::max(0.0, cosineDistance(m[a], m[p]) - d[std::size_t(n)] + 0.5);
            ++nSemi;
        }
    const auto outSemi = make<CosineTripletLoss>({}).forward(context(e, labels));
    const auto outAll = make<CosineTripletLoss>({{"mining", "all"}}).forward(context(e, labels));
    QCOMPARE(outSemi.terms, std::int64_t(nSemi));
    QCOMPARE(outAll.terms, std::int64_t(nAll));
    QVERIFY(std::abs(outSemi.loss.item<double>() - semi / nSemi) < 1e-5);
    QVERIFY(std::abs(outAll.loss.item<double>() - all / nAll) < 1e-5);
}

// The augmented view is the positive, every other set a candidate negative.
void TestBackgroundLosses::cosineTripletAugmented()
{
    auto loss = make<CosineTripletLoss>({{"positive", "augmented"}, {"mining", "all"}});
    QVERIFY(loss.needs().augmentedView && !loss.needs().labels);
    torch::manual_seed(10);
    const torch::Tensor e = torch::randn({3, 2});
    const torch::Tensor a = torch::randn({3, 2});
    const Matrix em = losstest::matrixOf(e), am = losstest::matrixOf(a);
    double want = 0;
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t n = 0; n < 3; ++n)
            if (n != i)
                want += std::max(0.0, cosineDistance(em[i], am[i]) - cosineDistance(em[i], em[n]) + 0.5) / 6;
    const auto out = loss.forward(context(e, {-1, -1, -1}, a));
    QVERIFY(std::abs(out.loss.item<double>() - want) < 1e-6);
    QCOMPARE(out.terms, std::int64_t(6));
}

// Queue [(1, 0), (0, 1)], q = (1, 0), k⁺ = (0.6, 0.8), τ = 0.5: logits (0.6, 1, 0) / 0.5,
// ℓ = -log(e^1.2 / (e^1.2 + e^2 + e^0)).
void TestBackgroundLosses::mocoInfoNceByHand()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    auto loss = make<MocoLoss>({{"queue", "4"}, {"temperature", "0.5"}});
    loss.to(dev);
    loss.enqueue(losstest::tensorOf({{1, 0}, {0, 1}}).to(dev));
    QCOMPARE(loss.filled(), std::int64_t(2));
    // The query is normalised by the loss (3, 0) -> (1, 0); so is the key (3, 4) -> (0.6, 0.8).
    const torch::Tensor q = losstest::tensorOf({{3, 0}}).to(dev).requires_grad_(true);
    const torch::Tensor k = losstest::tensorOf({{3, 4}}).to(dev).requires_grad_(true);
    const auto out = loss.forward(mocoContext(q, k));
    const double want = -std::log(std::exp(1.2) / (std::exp(1.2) + std::exp(2.0) + 1.0));
    QVERIFY(std::abs(want - 1.2603725535673185) < 1e-12);
    QVERIFY2(std::abs(out.loss.item<double>() - want) < 1e-6, qPrintable(QString::number(out.loss.item<double>())));
    QCOMPARE(out.terms, std::int64_t(1));
    // The key is detached: no gradient reaches the key encoder's output.
    out.loss.backward();
    QVERIFY(q.grad().defined() && q.grad().abs().sum().item<double>() > 0);
    QVERIFY(!k.grad().defined());
    // Training mode: the key entered the queue behind the two others.
    QCOMPARE(loss.filled(), std::int64_t(3));
    QVERIFY(torch::allclose(loss.queuedKeys().cpu(), losstest::tensorOf({{1, 0}, {0, 1}, {0.6, 0.8}})));
    // An empty queue: the positive alone, ℓ = 0.
    auto fresh = make<MocoLoss>({{"queue", "4"}});
    fresh.to(dev);
    QVERIFY(std::abs(fresh.forward(mocoContext(q.detach(), k.detach())).loss.item<double>()) < 1e-7);
}

void TestBackgroundLosses::mocoQueueIsFifo()
{
    auto loss = make<MocoLoss>({{"queue", "3"}}, 1);
    QCOMPARE(loss.capacity(), std::int64_t(3));
    QCOMPARE(loss.queuedKeys().size(0), std::int64_t(0));
    const auto keys = [](std::vector<double> v) {
        Matrix m;
        for (double x : v)
            m.push_back({x});
        return losstest::tensorOf(m);
    };
    const auto queued = [&] {
        std::vector<double> v;
        for (const auto& row : losstest::matrixOf(loss.queuedKeys()))
            v.push_back(row[0]);
        return v;
    };
    loss.enqueue(keys({1}));
    loss.enqueue(keys({2}));
    QCOMPARE(queued(), (std::vector<double>{1, 2}));
    loss.enqueue(keys({3, 4}));
    QCOMPARE(queued(), (std::vector<double>{2, 3, 4})); // 1, the oldest, left
    loss.enqueue(keys({5}));
    QCOMPARE(queued(), (std::vector<double>{3, 4, 5}));
    loss.enqueue(keys({6, 7, 8, 9, 10})); // more than the capacity: the last three stay
    QCOMPARE(queued(), (std::vector<double>{8, 9, 10}));
    QCOMPARE(loss.filled(), std::int64_t(3));
    loss.enqueue(keys({11, 12}));
    QCOMPARE(queued(), (std::vector<double>{10, 11, 12}));
}

void TestBackgroundLosses::mocoQueueIsSavedAndNotGrownInEval()
{
    auto loss = make<MocoLoss>({{"queue", "5"}});
    loss.enqueue(losstest::tensorOf({{1, 0}, {0, 1}, {0.6, 0.8}}));
    // A checkpoint holds the queue (buffers), as the trainer saves a loss.
    torch::serialize::OutputArchive out;
    loss.save(out);
    std::ostringstream bytes;
    out.save_to(bytes);
    auto restored = make<MocoLoss>({{"queue", "5"}});
    torch::serialize::InputArchive in;
    std::istringstream read(bytes.str());
    in.load_from(read);
    restored.load(in);
    QCOMPARE(restored.filled(), std::int64_t(3));
    QVERIFY(torch::allclose(restored.queuedKeys(), loss.queuedKeys()));
    QVERIFY(restored.named_buffers().contains("queue"));
    // Evaluation mode reads the queue but does not add to it.
    restored.eval();
    restored.forward(mocoContext(torch::randn({2, 2}), torch::randn({2, 2})));
    QCOMPARE(restored.filled(), std::int64_t(3));
    restored.train();
    restored.forward(mocoContext(torch::randn({2, 2}), torch::randn({2, 2})));
    QCOMPARE(restored.filled(), std::int64_t(5));
}

// Two queries, queue [(0, 1)], τ = 1, keys given (they need not be unit rows: the loss
// normalises them). q_1 = (1, 0), k_1⁺ = (0, 2) -> (0, 1): logits (0, 0), ℓ_1 = log 2.
// q_2 = (0.6, 0.8), k_2⁺ = (-1, 0): logits (-0.6, 0.8), ℓ_2 = -log(e^-0.6 / (e^-0.6 + e^0.8)).
// The queue then holds (0, 1), (0, 1), (-1, 0): the normalised keys, oldest first.
void TestBackgroundLosses::mocoTwoQueriesByHand()
{
    auto loss = make<MocoLoss>({{"queue", "8"}, {"temperature", "1"}});
    loss.enqueue(losstest::tensorOf({{0, 1}}));
    const torch::Tensor q = losstest::tensorOf({{1, 0}, {0.6, 0.8}}).requires_grad_(true);
    const auto out = loss.forward(mocoContext(q, losstest::tensorOf({{0, 2}, {-1, 0}})));
    const double l1 = std::log(2.0);
    const double l2 = -std::log(std::exp(-0.6) / (std::exp(-0.6) + std::exp(0.8)));
    QVERIFY2(std::abs(out.loss.item<double>() - 0.5 * (l1 + l2)) < 1e-6, qPrintable(QString::number(out.loss.item<double>())));
    QCOMPARE(out.terms, std::int64_t(2));
    QCOMPARE(out.activeTerms, std::int64_t(2));
    QVERIFY(torch::allclose(loss.queuedKeys(), losstest::tensorOf({{0, 1}, {0, 1}, {-1, 0}})));
    // ∂L/∂q_1 (q_1 already unit, so the normalisation's Jacobian projects out q_1 = (1, 0)):
    // ∂ℓ_1/∂q_1 before the projection = -k⁺ + Σ softmax·k = -(0, 1) + 0.5 (0, 1) + 0.5 (0, 1) = 0.
    out.loss.backward();
    QVERIFY(q.grad()[0].abs().max().item<double>() < 1e-6);
}

void TestBackgroundLosses::mocoMomentumOption()
{
    QCOMPARE(make<MocoLoss>({}).momentum(), 0.999);
    QCOMPARE(make<MocoLoss>({{"key-momentum", "0"}}).needs().keyMomentum, 0.0);
    QCOMPARE(make<MocoLoss>({{"key-momentum", "0.5"}}).needs().keyMomentum, 0.5);
    QVERIFY(make<MocoLoss>({{"key-momentum", "0"}}).needs().momentumKeys);
    // Outside [0, 1]: refused where the options are resolved.
    QVERIFY_THROWS_EXCEPTION(std::exception, make<MocoLoss>({{"key-momentum", "1.5"}}));
    QVERIFY_THROWS_EXCEPTION(std::exception, make<MocoLoss>({{"key-momentum", "-0.1"}}));
}

void TestBackgroundLosses::badOptionsThrow()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make<MocoLoss>({}, 0));
    auto moco = make<MocoLoss>({});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, moco.forward(context(torch::randn({2, 2}), {-1, -1})));
    // The augmented view is not the keys: moco reads LossContext::keys only.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             moco.forward(context(torch::randn({2, 2}), {-1, -1}, torch::randn({2, 2}))));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, moco.forward(mocoContext(torch::randn({2, 2}), torch::randn({3, 2}))));
    auto npair = make<NPairLoss>({{"positive", "augmented"}});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, npair.forward(context(torch::randn({2, 2}), {-1, -1})));
    auto triplet = make<CosineTripletLoss>({{"positive", "augmented"}});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, triplet.forward(context(torch::randn({2, 2}), {-1, -1})));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make<CosineTripletLoss>({{"margin", "-1"}}));
}

// Every loss of issue 11 is registered with its schema and builds from its defaults, also
// with the trainer's probe sizes (numClasses = 2, datasetSize = 2).
void TestBackgroundLosses::registered()
{
    plugin::Registry registry;
    builtins::registerBuiltins(registry);
    for (const char* name : {"uniformity", "locality-contrastive", "npair", "cosine-triplet", "moco"}) {
        const sdk::LossInfo& info = registry.requireLoss(name);
        QVERIFY2(!info.description.empty() && info.description.find("seed 00") != std::string::npos, name);
        sdk::LossSpec s = losstest::spec(info.options, {}, 8, 2, 2);
        const std::shared_ptr<sdk::MetricLoss> loss = info.create(s);
        QVERIFY2(loss != nullptr, name);
    }
    QVERIFY(registry.requireLoss("uniformity").create(losstest::spec(registry.requireLoss("uniformity").options, {}, 8, 2))->needs().labels);
    const sdk::LossNeeds moco = registry.requireLoss("moco").create(losstest::spec(registry.requireLoss("moco").options, {}, 8))->needs();
    QVERIFY(moco.momentumKeys && !moco.augmentedView && !moco.labels);
    QCOMPARE(moco.keyMomentum, 0.999); // MoCo's m
}

QTEST_GUILESS_MAIN(TestBackgroundLosses)
#include "tst_BackgroundLosses.moc"
