// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// MoCo's momentum key encoder: the EMA against hand computations, kept out of the optimizer,
// saved in and restored from checkpoints, and a short moco run that learns.
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/losses/MocoLoss.h"
#include "core/plugin/Registry.h"
#include "core/train/KeyEncoder.h"
#include "core/train/TrainingJob.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <QtTest>

#include <filesystem>
#include <map>
#include <random>

using namespace setscope;

namespace {

/// f(set) = w · (sum of the set's elements), 2-d elements to 1-d; a buffer "seen" counts the
/// forwards in training mode (as BatchNorm's running statistics change in training mode).
class TinyEncoder : public sdk::SetEncoder {
public:
    TinyEncoder()
    {
        w = register_parameter("w", torch::zeros({1, 2}));
        seen = register_buffer("seen", torch::zeros({1}));
    }
    torch::Tensor forward(const sdk::SetBatch& batch) override
    {
        if (is_training()) {
            torch::NoGradGuard g;
            seen.add_(1);
        }
        return batch.values.sum(1).matmul(w.t());
    }
    std::int64_t outputDim() const override { return 1; }
    torch::Tensor w, seen;
};

torch::Tensor row(float a, float b) { return torch::tensor({a, b}).reshape({1, 2}); }

sdk::SetBatch oneSet(std::vector<float> elements) // one set of elements.size() / 2 2-d elements
{
    const auto n = static_cast<std::int64_t>(elements.size() / 2);
    return {torch::tensor(elements).reshape({1, n, 2}), torch::ones({1, n}), torch::ones({1, n}, torch::kBool)};
}

/// moco as it was before the trainer had a key encoder: keys = the query encoder's embedding
/// of the augmented view (LossContext::augmented, computed with the graph), detached.
class MocoFromAugmented final : public sdk::MetricLoss {
public:
    explicit MocoFromAugmented(const sdk::LossSpec& spec)
        : m_moco(register_module("moco", std::make_shared<losses::MocoLoss>(spec)))
    {
    }
    sdk::LossNeeds needs() const override { return {.augmentedView = true}; }
    sdk::LossOutput forward(const sdk::LossContext& c) override
    {
        sdk::LossContext k = c;
        k.keys = c.augmented.detach();
        return m_moco->forward(k);
    }

private:
    std::shared_ptr<losses::MocoLoss> m_moco;
};

/// kClasses x 16 sets of 2..6 points in 4-d around a class centre; every 4th item of a class
/// in the test split. Label set "fine".
constexpr int kClasses = 3;
std::shared_ptr<const data::Dataset> pointSets()
{
    data::DatasetBuilder b("test point sets");
    b.setName("points");
    b.setDimension(4);
    std::mt19937_64 rng(5);
    std::normal_distribution<float> noise(0.0f, 0.5f);
    std::vector<std::int32_t> labels;
    for (int c = 0; c < kClasses; ++c)
        for (int k = 0; k < 16; ++k) {
            const std::size_t n = 2 + std::size_t(k % 5);
            std::vector<float> v(n * 4), w(n, 1.0f);
            for (std::size_t e = 0; e < n; ++e)
                for (std::size_t d = 0; d < 4; ++d)
                    v[e * 4 + d] = (d == std::size_t(c) ? 2.0f : 0.0f) + noise(rng);
            b.addItem(v.data(), w.data(), n, k % 4 == 0 ? data::Split::Test : data::Split::Train);
            labels.push_back(c);
        }
    b.defineLabelSet("fine", {"a", "b", "c"});
    for (std::size_t i = 0; i < labels.size(); ++i)
        b.setLabel("fine", i, labels[i]);
    return std::make_shared<const data::Dataset>(b.finish());
}

/// A moco run of a small MLP on the point sets: 36 training sets in batches of 12 (3 steps an
/// epoch), PointDrop views, one thread.
train::TrainerConfig mocoConfig(const std::string& momentum)
{
    train::TrainerConfig c;
    c.loss = "moco";
    c.lossOptions = {{"queue", "24"}, {"temperature", "0.2"}, {"key-momentum", momentum}};
    c.augmentation = "pointdrop";
    c.samplerOptions = {{"batch-size", "12"}};
    c.model = "mlp";
    c.modelOptions = {{"hidden", "16,16"}};
    c.embeddingDim = 4;
    c.epochs = 4;
    c.validationFraction = 0;
    c.snapshotEvery = 0;
    c.evaluateEachEpoch = false;
    c.device = "cpu";
    c.threads = 1;
    return c;
}

using Weights = std::map<std::string, torch::Tensor>;

/// The encoder ("model") or key encoder ("key_model") of a checkpoint, by parameter and buffer name.
Weights weightsOf(const std::string& path, const std::string& key, const plugin::Registry& registry,
                  const train::TrainerConfig& c, std::int64_t inputDim)
{
    torch::serialize::InputArchive ar;
    ar.load_from(path);
    const sdk::EncoderInfo& info = registry.requireEncoder(c.model);
    sdk::EncoderSpec spec;
    spec.inputDim = inputDim;
    spec.outputDim = c.embeddingDim;
    spec.options = sdk::OptionValues::resolve(info.options, c.modelOptions, "model");
    const auto enc = info.create(spec);
    torch::serialize::InputArchive m;
    if (!ar.try_read(key, m))
        return {};
    enc->load(m);
    Weights out;
    for (const auto& p : enc->named_parameters())
        out[p.key()] = p.value().detach().clone();
    for (const auto& b : enc->named_buffers())
        out[b.key()] = b.value().clone();
    return out;
}

bool equal(const Weights& a, const Weights& b)
{
    if (a.size() != b.size())
        return false;
    for (const auto& [k, v] : a)
        if (!b.count(k) || !torch::equal(v, b.at(k)))
            return false;
    return true;
}

std::string stepFile(const std::string& dir, int step)
{
    char name[64];
    std::snprintf(name, sizeof name, "/step-%09d.pt", step);
    return dir + name;
}

} // namespace

class TestKeyEncoder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void emaByHand();
    void optimizerLeavesTheKeyEncoder();
    void mismatchRefused();
    void trainerFollowsTheEma();
    void trainerNeverTrainsTheKeyEncoder();
    void resumeIsIdentical();
    void zeroMomentumWritesNoKeyEncoder();
    void zeroMomentumIsTheEarlierMoco();
    void mocoRunLowersItsLoss();

private:
    plugin::Registry m_registry;
    QTemporaryDir m_dir;
};

void TestKeyEncoder::initTestCase()
{
    builtins::registerBuiltins(m_registry);
    m_registry.addLoss({"moco-augmented", "moco with keys from the augmented view's embedding, detached (test)",
                        losses::MocoLoss::schema(), [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> {
                            return std::make_shared<MocoFromAugmented>(s);
                        }});
    QVERIFY(m_dir.isValid());
}

// θ_q = (1, 2), loss = θ_q · (1, 1) (the set {(1, 1)}): gradient (1, 1); SGD with lr 0.5 moves
// θ_q to (0.5, 1.5), then (0, 1). With m = 0.9:
//   θ_k0 = (1, 2) (copied), θ_k1 = 0.9 (1, 2) + 0.1 (0.5, 1.5) = (0.95, 1.95),
//   θ_k2 = 0.9 (0.95, 1.95) + 0.1 (0, 1) = (0.855, 1.855).
// The buffer is copied, not averaged: after two training forwards of the query it is 2.
void TestKeyEncoder::emaByHand()
{
    auto query = std::make_shared<TinyEncoder>();
    {
        torch::NoGradGuard g;
        query->w.copy_(row(1.0f, 2.0f));
    }
    auto fresh = std::make_shared<TinyEncoder>();
    train::KeyEncoder key(fresh, *query, 0.9);
    auto kw = [&] { return static_cast<TinyEncoder&>(key.encoder()).w; };
    QVERIFY(torch::equal(kw(), row(1.0f, 2.0f)));
    QVERIFY(!kw().requires_grad());
    QVERIFY(query->w.requires_grad());

    torch::optim::SGD opt(query->parameters(), torch::optim::SGDOptions(0.5));
    const std::vector<std::vector<float>> want{{0.95f, 1.95f}, {0.855f, 1.855f}};
    for (int step = 0; step < 2; ++step) {
        opt.zero_grad();
        query->train();
        query->forward(oneSet({1, 1})).sum().backward();
        opt.step();
        key.update(*query);
        QVERIFY(torch::allclose(kw(), row(want[std::size_t(step)][0], want[std::size_t(step)][1]), 0, 1e-6));
        QCOMPARE(static_cast<TinyEncoder&>(key.encoder()).seen.item<float>(), float(step + 1));
    }
    QVERIFY(torch::allclose(query->w, row(0.0f, 1.0f)));
    // Keys: the key encoder's output, no gradient: (0.855, 1.855) · (1 + 3, 2 + 4).
    const torch::Tensor k = key.keys(oneSet({1, 2, 3, 4}), *query);
    QVERIFY(!k.requires_grad());
    QVERIFY(std::abs(k.item<double>() - (0.855 * 4 + 1.855 * 6)) < 1e-5);

    // m = 0 copies, m = 1 keeps.
    train::momentumUpdate(key.encoder(), *query, 1.0);
    QVERIFY(torch::allclose(kw(), row(0.855f, 1.855f), 0, 1e-6));
    train::momentumUpdate(key.encoder(), *query, 0.0);
    QVERIFY(torch::equal(kw(), query->w.detach()));
}

// The optimizer holds the query's parameters only: its step moves them and not the key's; the
// key's move only by update().
void TestKeyEncoder::optimizerLeavesTheKeyEncoder()
{
    auto query = std::make_shared<TinyEncoder>();
    {
        torch::NoGradGuard g;
        query->w.copy_(row(1.0f, -1.0f));
    }
    train::KeyEncoder key(std::make_shared<TinyEncoder>(), *query, 0.5);
    torch::optim::Adam opt(query->parameters(), torch::optim::AdamOptions(0.1));
    // Both outputs in the graph: the key's output carries no gradient and adds none.
    opt.zero_grad();
    (query->forward(oneSet({1, 1})) + key.keys(oneSet({1, 1}), *query)).sum().backward();
    opt.step();
    const auto kw = static_cast<TinyEncoder&>(key.encoder()).w;
    QVERIFY(!kw.grad().defined());
    QVERIFY(torch::equal(kw, row(1.0f, -1.0f)));
    QVERIFY(!torch::equal(query->w.detach(), row(1.0f, -1.0f)));
    key.update(*query);
    QVERIFY(torch::allclose(kw, 0.5 * row(1.0f, -1.0f) + 0.5 * query->w.detach()));
}

void TestKeyEncoder::mismatchRefused()
{
    TinyEncoder query;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, train::KeyEncoder(std::make_shared<TinyEncoder>(), query, 1.5));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, train::KeyEncoder(nullptr, query, 0.5));
    torch::nn::Linear other(2, 1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, train::momentumUpdate(*other, query, 0.5));
}

// In a run: with a checkpoint after every step, the key encoder of step t + 1 is
// m θ_k(t) + (1 - m) θ_q(t + 1), from the checkpoints' own weights.
void TestKeyEncoder::trainerFollowsTheEma()
{
    auto ds = pointSets();
    train::TrainerConfig c = mocoConfig("0.75");
    c.maxSteps = 3;
    c.checkpointEvery = 1;
    c.checkpointDir = m_dir.filePath("ema").toStdString();
    train::TrainingJob job(ds, c, m_registry);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    for (int t = 1; t < 3; ++t) {
        const Weights k0 = weightsOf(stepFile(c.checkpointDir, t), "key_model", m_registry, c, ds->dim());
        const Weights q1 = weightsOf(stepFile(c.checkpointDir, t + 1), "model", m_registry, c, ds->dim());
        const Weights k1 = weightsOf(stepFile(c.checkpointDir, t + 1), "key_model", m_registry, c, ds->dim());
        QVERIFY(!k0.empty() && k0.size() == q1.size());
        for (const auto& [name, v] : k1) {
            const torch::Tensor want = 0.75 * k0.at(name) + 0.25 * q1.at(name);
            QVERIFY2(torch::allclose(v, want, 1e-5, 1e-6), name.c_str());
            // The query moved and the key lags it.
            QVERIFY2(!torch::equal(v, q1.at(name)), name.c_str());
        }
    }
}

// m = 1: the EMA never moves the key encoder, so anything that did would be the optimizer. It
// must still hold the weights the encoder started from (the seed's: built again here).
void TestKeyEncoder::trainerNeverTrainsTheKeyEncoder()
{
    auto ds = pointSets();
    train::TrainerConfig c = mocoConfig("1");
    c.maxSteps = 6;
    c.checkpointDir = m_dir.filePath("frozen").toStdString();
    c.checkpointEvery = 6;
    {
        train::TrainingJob job(ds, c, m_registry);
        QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    }
    const Weights key = weightsOf(stepFile(c.checkpointDir, 6), "key_model", m_registry, c, ds->dim());
    const Weights trained = weightsOf(stepFile(c.checkpointDir, 6), "model", m_registry, c, ds->dim());
    const sdk::EncoderInfo& info = m_registry.requireEncoder(c.model);
    sdk::EncoderSpec spec;
    spec.inputDim = ds->dim();
    spec.outputDim = c.embeddingDim;
    spec.options = sdk::OptionValues::resolve(info.options, c.modelOptions, "model");
    torch::manual_seed(c.seed);
    const auto initial = info.create(spec);
    Weights start;
    for (const auto& p : initial->named_parameters())
        start[p.key()] = p.value().detach().clone();
    QVERIFY(!key.empty());
    QVERIFY(equal(key, start));
    QVERIFY(!equal(trained, start));
}

// A resumed moco run continues bit-identically: encoder, key encoder and queue.
void TestKeyEncoder::resumeIsIdentical()
{
    auto ds = pointSets();
    train::TrainerConfig c = mocoConfig("0.9");
    c.maxSteps = 10; // crosses epoch boundaries (3 steps an epoch)
    c.checkpointEvery = 5;
    const std::string dirA = m_dir.filePath("resumeA").toStdString();
    const std::string dirB = m_dir.filePath("resumeB").toStdString();
    c.checkpointDir = dirA;
    {
        train::TrainingJob a(ds, c, m_registry);
        QCOMPARE(a.runHere(nullptr), job::JobStatus::Finished);
    }
    train::TrainerConfig r = c;
    r.checkpointDir = dirB;
    r.resumeFrom = stepFile(dirA, 5);
    {
        train::TrainingJob b(ds, r, m_registry);
        QCOMPARE(b.runHere(nullptr), job::JobStatus::Finished);
    }
    for (const char* part : {"model", "key_model"}) {
        const Weights a = weightsOf(stepFile(dirA, 10), part, m_registry, c, ds->dim());
        const Weights b = weightsOf(stepFile(dirB, 10), part, m_registry, c, ds->dim());
        QVERIFY2(!a.empty() && equal(a, b), part);
        QVERIFY2(!equal(a, weightsOf(stepFile(dirA, 5), part, m_registry, c, ds->dim())), part);
    }
    auto queue = [](const std::string& path) {
        torch::serialize::InputArchive ar, l;
        ar.load_from(path);
        ar.read("loss", l);
        torch::Tensor q;
        l.read("queue", q, /*is_buffer=*/true);
        return q;
    };
    QVERIFY(torch::equal(queue(stepFile(dirA, 10)), queue(stepFile(dirB, 10))));
}

// m = 0: the keys are the encoder's own (no copy to keep, none in the checkpoint).
void TestKeyEncoder::zeroMomentumWritesNoKeyEncoder()
{
    auto ds = pointSets();
    train::TrainerConfig c = mocoConfig("0");
    c.maxSteps = 2;
    c.checkpointDir = m_dir.filePath("zero").toStdString();
    train::TrainingJob job(ds, c, m_registry);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    QVERIFY(!weightsOf(stepFile(c.checkpointDir, 2), "model", m_registry, c, ds->dim()).empty());
    QVERIFY(weightsOf(stepFile(c.checkpointDir, 2), "key_model", m_registry, c, ds->dim()).empty());
}

// m = 0 is step for step what moco computed before the key encoder: the same weights and the
// same losses as the loss that takes its keys from LossContext::augmented.
void TestKeyEncoder::zeroMomentumIsTheEarlierMoco()
{
    auto ds = pointSets();
    std::vector<Weights> weights;
    std::vector<std::vector<double>> losses;
    for (const char* loss : {"moco", "moco-augmented"}) {
        train::TrainerConfig c = mocoConfig("0");
        c.loss = loss;
        c.maxSteps = 9;
        c.checkpointDir = m_dir.filePath(QString("earlier-") + loss).toStdString();
        train::TrainingJob job(ds, c, m_registry);
        QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
        weights.push_back(weightsOf(stepFile(c.checkpointDir, 9), "model", m_registry, c, ds->dim()));
        std::vector<double> l;
        for (const auto& e : job.history())
            l.push_back(e.meanLoss);
        losses.push_back(l);
    }
    QCOMPARE(losses[0].size(), std::size_t(3));
    QVERIFY(losses[0][2] > 0);
    QCOMPARE(losses[0], losses[1]);
    QVERIFY(equal(weights[0], weights[1]));
    // ... and a momentum changes them (the comparison can fail).
    train::TrainerConfig m = mocoConfig("0.5");
    m.maxSteps = 9;
    m.checkpointDir = m_dir.filePath("earlier-m").toStdString();
    train::TrainingJob job(ds, m, m_registry);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    QVERIFY(!equal(weights[0], weightsOf(stepFile(m.checkpointDir, 9), "model", m_registry, m, ds->dim())));
}

// MoCo learns on the point sets: the mean loss of the last epochs is below the first full-queue
// epoch's (the first epoch's queue is still filling, so its loss is not comparable).
void TestKeyEncoder::mocoRunLowersItsLoss()
{
    auto ds = pointSets();
    train::TrainerConfig c = mocoConfig("0.99");
    c.epochs = 30;
    c.lossOptions["queue"] = "12";
    c.optimizerOptions = {{"lr", "0.01"}};
    train::TrainingJob job(ds, c, m_registry);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    const auto h = job.history();
    QCOMPARE(h.size(), std::size_t(30));
    const double early = h[1].meanLoss;
    const double late = (h[27].meanLoss + h[28].meanLoss + h[29].meanLoss) / 3;
    qInfo("moco mean loss: epoch 2 %.4f, epochs 28-30 %.4f", early, late);
    QVERIFY2(late < early * 0.8, qPrintable(QString("%1 -> %2").arg(early).arg(late)));
}

QTEST_GUILESS_MAIN(TestKeyEncoder)
#include "tst_KeyEncoder.moc"
