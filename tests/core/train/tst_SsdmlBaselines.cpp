// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Seed 004's deep baselines as recipes (lrml, seraph, isdml, apllr, apit): the partition
// sampler (batches, labelled rows per batch, the batch's affinities against a brute-force kNN
// graph, state), and short runs of each recipe through TrainingJob with M kept feasible.
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "core/semi/AffinityPropagation.h"
#include "core/train/PairAffinity.h"
#include "core/train/TrainingJob.h"

#include <torch/torch.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>

using namespace setscope;

namespace {

std::shared_ptr<const data::Dataset> dataset()
{
    data::SyntheticSpec s;
    s.dim = 10;
    s.coarseClasses = 3;
    s.finePerCoarse = 3;
    s.pointsPerFine = 30;
    s.pointSpread = 2.0;
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(s));
}

/// 60 pool items (0..59), 9 of them labelled (classes 0, 1, 2), random 3-d "embeddings".
struct Pool {
    sdk::SamplerSpec spec;
    std::map<std::int64_t, std::array<double, 3>> point; ///< l2-normalised
    std::vector<float> raw;                               ///< 60 x 3, not normalised
};

Pool pool(const plugin::Registry& registry, const std::map<std::string, std::string>& options)
{
    Pool p;
    p.spec.options = sdk::OptionValues::resolve(registry.requireSampler("ssdml-partition").options, options,
                                                "sampler ssdml-partition");
    p.spec.seed = 7;
    std::mt19937_64 rng(21);
    std::normal_distribution<double> g(0.0, 1.0);
    for (std::int64_t i = 0; i < 60; ++i) {
        p.spec.items.push_back(i);
        p.spec.labels.push_back(i % 7 == 0 && i < 63 ? static_cast<std::int32_t>((i / 7) % 3) : -1);
        p.spec.setSizes.push_back(1);
        std::array<double, 3> v{g(rng), g(rng), g(rng)};
        for (double x : v)
            p.raw.push_back(static_cast<float>(3.0 * x));
        const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        p.point[i] = {v[0] / n, v[1] / n, v[2] / n};
    }
    return p;
}

double sq(const std::array<double, 3>& a, const std::array<double, 3>& b)
{
    double s = 0.0;
    for (int c = 0; c < 3; ++c)
        s += (a[static_cast<std::size_t>(c)] - b[static_cast<std::size_t>(c)]) *
             (a[static_cast<std::size_t>(c)] - b[static_cast<std::size_t>(c)]);
    return s;
}

/// The brute-force weight of the pair (a, b) in `rows` (partition items) by the sampler's
/// documented formulas, k neighbours.
double reference(const Pool& p, const std::vector<std::int64_t>& rows, int k, const std::string& kind, std::int64_t a,
                 std::int64_t b)
{
    std::map<std::int64_t, std::vector<std::pair<double, std::int64_t>>> nn;
    for (std::int64_t i : rows) {
        auto& list = nn[i];
        for (std::int64_t j : rows)
            if (j != i)
                list.push_back({sq(p.point.at(i), p.point.at(j)), j});
        std::sort(list.begin(), list.end());
        list.resize(static_cast<std::size_t>(k));
    }
    auto isNeighbour = [&](std::int64_t i, std::int64_t j) {
        for (const auto& [d, n] : nn[i])
            if (n == j)
                return true;
        return false;
    };
    if (!isNeighbour(a, b) && !isNeighbour(b, a))
        return 0.0;
    const double d2 = sq(p.point.at(a), p.point.at(b));
    if (kind == "binary")
        return 1.0;
    if (kind == "heat") {
        double mean = 0.0;
        for (const auto& [i, list] : nn)
            for (const auto& [d, n] : list)
                mean += d;
        mean /= static_cast<double>(rows.size() * static_cast<std::size_t>(k));
        return std::exp(-d2 / mean);
    }
    // density: σ_i = distance to the k-th neighbour
    const double sa = std::sqrt(nn[a].back().first), sb = std::sqrt(nn[b].back().first);
    return std::exp(-d2 / (sa * sb));
}

train::TrainerConfig baselineConfig(const std::string& recipe)
{
    train::TrainerConfig c;
    c.recipe = recipe;
    c.recipeOptions = {{"labels-per-class", "3"}};
    c.model = "mlp";
    c.embeddingDim = 8;
    c.samplerOptions = {{"partition-size", "120"}, {"batch-size", "60"}, {"labelled-per-batch", "20"}};
    c.optimizerOptions = {{"lr", "0.001"}};
    c.labelSet = "fine";
    c.validationFraction = 0.0;
    c.epochs = 2;
    c.snapshotEvery = 0;
    c.threads = 1;
    c.device = "cpu";
    return c;
}

torch::Tensor metricOf(const std::string& checkpoint)
{
    torch::serialize::InputArchive ar, loss;
    ar.load_from(checkpoint);
    ar.read("loss", loss);
    torch::Tensor m;
    loss.read("metric", m);
    return m;
}

} // namespace

class TestSsdmlBaselines : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void batchesHoldLabelledRows();
    void affinitiesMatchBruteForce_data();
    void affinitiesMatchBruteForce();
    void propagatedAffinities();
    void stateRoundTrip();
    void badOptions();
    void recipesTrain_data();
    void recipesTrain();
    void graphLossNeedsGraphSampler();
    void keptModelMeasuresWithItsEpochsMetric();

private:
    plugin::Registry m_registry;
    QTemporaryDir m_dir;
};

void TestSsdmlBaselines::initTestCase()
{
    builtins::registerBuiltins(m_registry);
    QVERIFY(m_dir.isValid());
}

namespace {

sdk::EmbedItems embedOf(const Pool& p, int* calls = nullptr)
{
    return [&p, calls](const std::vector<std::int64_t>& items, int& dim) {
        if (calls)
            ++*calls;
        dim = 3;
        std::vector<float> out;
        for (std::int64_t i : items)
            out.insert(out.end(), p.raw.begin() + 3 * i, p.raw.begin() + 3 * i + 3);
        return out;
    };
}

} // namespace

void TestSsdmlBaselines::batchesHoldLabelledRows()
{
    // 9 labelled + 30 unlabelled rows; batches of 10 with 4 labelled: 6 unlabelled per batch,
    // 5 batches, each unlabelled partition row exactly once per epoch.
    const Pool p = pool(m_registry, {{"batch-size", "10"}, {"labelled-per-batch", "4"}, {"partition-size", "30"},
                                     {"k", "3"}, {"affinity", "none"}, {"partition-epochs", "2"}});
    auto s = m_registry.requireSampler("ssdml-partition").create(p.spec);
    QCOMPARE(s->batchesPerEpoch(), std::int64_t(5));
    QCOMPARE(s->refreshEvery(), std::int64_t(2));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, s->epochBatches(0));
    int calls = 0;
    s->refresh(0, embedOf(p, &calls));
    QCOMPARE(calls, 0); // SERAPH's partition needs no graph, hence no embedding
    for (std::int64_t epoch : {0, 1}) {
        const auto batches = s->epochBatches(epoch);
        QCOMPARE(batches.size(), std::size_t(5));
        std::multiset<std::int64_t> unl;
        std::set<std::int64_t> lab;
        for (const auto& b : batches) {
            QCOMPARE(b.size(), std::size_t(10));
            QCOMPARE(std::set<std::int64_t>(b.begin(), b.end()).size(), b.size()); // no row twice in a batch
            int labelled = 0;
            for (std::int64_t i : b) {
                if (p.spec.labels[static_cast<std::size_t>(i)] >= 0) {
                    ++labelled;
                    lab.insert(i);
                } else {
                    unl.insert(i);
                }
            }
            QCOMPARE(labelled, 4);
        }
        QCOMPARE(unl.size(), std::size_t(30));
        QCOMPARE(std::set<std::int64_t>(unl.begin(), unl.end()).size(), std::size_t(30)); // each once
        QCOMPARE(lab.size(), std::size_t(9)); // 20 labelled slots cycle through all 9
    }
    QVERIFY(s->epochBatches(0) != s->epochBatches(1)); // reshuffled per epoch
    QVERIFY(s->epochBatches(1) == s->epochBatches(1));
    // Without a graph the batch's affinity is all zero, and the sampler says so.
    auto* a = dynamic_cast<const train::PairAffinitySampler*>(s.get());
    QVERIFY(a);
    QVERIFY(!a->hasAffinity());
    const auto w = a->batchAffinity(s->epochBatches(0).front());
    QVERIFY(std::all_of(w.begin(), w.end(), [](float v) { return v == 0.0f; }));
}

void TestSsdmlBaselines::affinitiesMatchBruteForce_data()
{
    QTest::addColumn<QString>("kind");
    QTest::newRow("binary") << "binary";
    QTest::newRow("heat (LRML)") << "heat";
    QTest::newRow("density (ISDML)") << "density";
}

void TestSsdmlBaselines::affinitiesMatchBruteForce()
{
    QFETCH(QString, kind);
    const int k = 4;
    const Pool p = pool(m_registry, {{"batch-size", "10"}, {"labelled-per-batch", "4"}, {"partition-size", "30"},
                                     {"k", std::to_string(k)}, {"affinity", kind.toStdString()}});
    auto s = m_registry.requireSampler("ssdml-partition").create(p.spec);
    int calls = 0;
    s->refresh(0, embedOf(p, &calls));
    QCOMPARE(calls, 1);
    const auto batches = s->epochBatches(0);
    std::set<std::int64_t> rowSet;
    for (const auto& b : batches)
        rowSet.insert(b.begin(), b.end());
    const std::vector<std::int64_t> rows(rowSet.begin(), rowSet.end());
    QCOMPARE(rows.size(), std::size_t(39));
    auto* a = dynamic_cast<const train::PairAffinitySampler*>(s.get());
    QVERIFY(a && a->hasAffinity());
    int edges = 0;
    for (const auto& b : batches) {
        const std::vector<float> w = a->batchAffinity(b);
        QCOMPARE(w.size(), b.size() * b.size());
        for (std::size_t i = 0; i < b.size(); ++i) {
            QCOMPARE(w[i * b.size() + i], 0.0f);
            for (std::size_t j = 0; j < b.size(); ++j) {
                if (i == j)
                    continue;
                const double want = reference(p, rows, k, kind.toStdString(), b[i], b[j]);
                const double got = w[i * b.size() + j];
                QVERIFY2(std::abs(got - want) < 1e-5,
                         qPrintable(QString("W(%1, %2) = %3, brute force %4").arg(b[i]).arg(b[j]).arg(got).arg(want)));
                edges += want > 0.0 ? 1 : 0;
            }
        }
    }
    QVERIFY(edges > 0); // the batches do hold graph edges
    // An item outside the partition is refused.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a->batchAffinity({rows.front(), 1000}));
}

void TestSsdmlBaselines::propagatedAffinities()
{
    // APLLR / APIT: the batch's W is the propagated, symmetrised W of the partition's graph on
    // its edges (semi::propagateDense on the same rows as the reference) and 0 elsewhere.
    const int k = 4;
    const Pool p = pool(m_registry, {{"batch-size", "39"}, {"labelled-per-batch", "9"}, {"partition-size", "30"},
                                     {"k", std::to_string(k)}, {"affinity", "propagated"}});
    auto s = m_registry.requireSampler("ssdml-partition").create(p.spec);
    s->refresh(0, embedOf(p));
    const auto batches = s->epochBatches(0);
    QCOMPARE(batches.size(), std::size_t(1));
    std::vector<std::int64_t> rows = batches.front();
    std::sort(rows.begin(), rows.end()); // the partition's order: dataset order (samplePartition)
    std::vector<float> feats;
    std::vector<std::int32_t> labels;
    for (std::int64_t i : rows) {
        feats.insert(feats.end(), p.raw.begin() + 3 * i, p.raw.begin() + 3 * i + 3);
        labels.push_back(p.spec.labels[static_cast<std::size_t>(i)]);
    }
    // samplePartition puts the labelled rows first, then the unlabelled ones: the graph is the
    // same whatever the order, and so is W up to the permutation.
    const semi::KnnGraph g = semi::buildKnnGraph({feats.data(), static_cast<std::int64_t>(rows.size()), 3}, k);
    semi::PropagationOptions o;
    o.k = k;
    const Eigen::MatrixXd dense = semi::propagateDense(g, labels, o);
    auto* a = dynamic_cast<const train::PairAffinitySampler*>(s.get());
    const std::vector<float> w = a->batchAffinity(rows);
    const std::size_t n = rows.size();
    bool negative = false;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            bool edge = false;
            for (int t = 0; t < k; ++t)
                edge = edge || g.neighbour(static_cast<std::int64_t>(i), t) == static_cast<std::int64_t>(j) ||
                       g.neighbour(static_cast<std::int64_t>(j), t) == static_cast<std::int64_t>(i);
            const double want = i != j && edge ? dense(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) : 0.0;
            negative = negative || want < 0.0;
            QVERIFY2(std::abs(w[i * n + j] - want) < 1e-5,
                     qPrintable(QString("W(%1, %2) = %3, propagateDense %4").arg(i).arg(j).arg(w[i * n + j]).arg(want)));
        }
    std::printf("propagated affinities: some negative (dissimilar labelled pairs spread): %s\n", negative ? "yes" : "no");
}

void TestSsdmlBaselines::stateRoundTrip()
{
    const Pool p = pool(m_registry, {{"batch-size", "10"}, {"labelled-per-batch", "4"}, {"partition-size", "30"},
                                     {"k", "3"}, {"affinity", "heat"}});
    auto s = m_registry.requireSampler("ssdml-partition").create(p.spec);
    QVERIFY(s->state().empty());
    s->refresh(3, embedOf(p));
    auto r = m_registry.requireSampler("ssdml-partition").create(p.spec);
    r->restoreState(s->state());
    QVERIFY(r->epochBatches(4) == s->epochBatches(4));
    auto* as = dynamic_cast<const train::PairAffinitySampler*>(s.get());
    auto* ar = dynamic_cast<const train::PairAffinitySampler*>(r.get());
    for (const auto& b : s->epochBatches(4))
        QVERIFY(as->batchAffinity(b) == ar->batchAffinity(b));
    std::vector<std::int64_t> bad = s->state();
    bad[3] = 100000; // an item outside the pool
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r->restoreState(bad));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r->restoreState({1, 2, 3}));
}

void TestSsdmlBaselines::badOptions()
{
    // 4 labelled per batch of 4 leaves no unlabelled slot.
    const Pool p = pool(m_registry, {{"batch-size", "4"}, {"labelled-per-batch", "4"}, {"affinity", "none"}});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, m_registry.requireSampler("ssdml-partition").create(p.spec));
    // No labelled item in the pool.
    Pool q = pool(m_registry, {});
    std::fill(q.spec.labels.begin(), q.spec.labels.end(), -1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, m_registry.requireSampler("ssdml-partition").create(q.spec));
}

void TestSsdmlBaselines::recipesTrain_data()
{
    QTest::addColumn<QString>("recipe");
    for (const char* r : {"lrml", "seraph", "isdml", "apllr", "apit"})
        QTest::newRow(r) << r;
}

void TestSsdmlBaselines::recipesTrain()
{
    // Two epochs on 270 items (27 labelled, 3 per class), partitions of 27 + 120 rows, batches
    // of 60 with 20 labelled rows: 3 batches per epoch.
    QFETCH(QString, recipe);
    auto ds = dataset();
    train::TrainerConfig c = baselineConfig(recipe.toStdString());
    c.checkpointDir = m_dir.filePath(recipe).toStdString();
    train::TrainingJob j(ds, c, m_registry);
    QCOMPARE(j.runHere(nullptr), job::JobStatus::Finished);
    QCOMPARE(j.totalSteps(), std::int64_t(2 * 3));
    const auto& h = j.history();
    QCOMPARE(h.size(), std::size_t(2));
    for (const auto& m : h) {
        QVERIFY(std::isfinite(m.meanLoss));
        bool scored = false;
        for (const auto& [k, v] : m.values)
            scored = scored || (k == "nmi" && v >= 0.0);
        QVERIFY(scored);
    }
    const torch::Tensor m = metricOf(j.lastCheckpoint()).to(torch::kFloat64);
    QCOMPARE(m.sizes().vec(), (std::vector<std::int64_t>{8, 8}));
    QVERIFY(!torch::allclose(m, torch::eye(8, torch::kFloat64), 0, 1e-6)); // step 3 ran
    QVERIFY(torch::allclose(m, m.t(), 0, 1e-5));
    const double minEig = torch::linalg::eigvalsh(m, "L").min().item<double>();
    std::printf("%s: mean loss %.4g -> %.4g, min eigenvalue of M %.3g\n", qPrintable(recipe), h.front().meanLoss,
                h.back().meanLoss, minEig);
    QVERIFY(minEig >= -1e-5);
    if (recipe == "lrml" || recipe == "isdml")
        QVERIFY(torch::logdet(m).item<double>() >= -1e-3);
    if (recipe == "apllr" || recipe == "apit")
        QVERIFY(minEig > 0.0);
}

void TestSsdmlBaselines::graphLossNeedsGraphSampler()
{
    // LRML without a graph would drop its Laplacian term: the run refuses.
    auto ds = dataset();
    train::TrainerConfig c = baselineConfig("lrml");
    c.samplerOptions["affinity"] = "none";
    train::TrainingJob j(ds, c, m_registry);
    QCOMPARE(j.runHere(nullptr), job::JobStatus::Failed);
    QVERIFY2(j.error().find("affinit") != std::string::npos, j.error().c_str());
}

// The model a run keeps is its best validation epoch's, and for these recipes the loss's M is
// part of it (every score is of z M^1/2): the final row must score what that epoch scored, and
// best.pt must hold that epoch's M -- the one its step-N.pt checkpoint holds, not the last
// step's. (Before, the best epoch's network was scored with the last step's M: on Fashion-MNIST
// the kept SERAPH model scored kNN 0.793 where its epoch had scored 0.810.)
void TestSsdmlBaselines::keptModelMeasuresWithItsEpochsMetric()
{
    auto ds = dataset();
    train::TrainerConfig c = baselineConfig("seraph");
    c.validationFraction = 0.2;
    c.epochs = 6;
    c.evaluateEachEpoch = true;
    c.optimizerOptions = {{"lr", "0.05"}}; // large steps: the validation score moves around
    c.checkpointDir = m_dir.filePath("kept").toStdString();
    train::TrainingJob j(ds, c, m_registry);
    QCOMPARE(j.runHere(nullptr), job::JobStatus::Finished);
    const auto h = j.history();
    const auto value = [](const train::EpochMetrics& m, const std::string& key) {
        const std::optional<double> v = m.value(key);
        return v ? *v : -1.0;
    };
    const train::EpochMetrics* top = nullptr;
    for (const auto& m : h)
        if (m.stage.rfind("best", 0) != 0 && (!top || value(m, "validation-knn") > value(*top, "validation-knn")))
            top = &m;
    QVERIFY(top);
    const train::EpochMetrics& final = h.back();
    std::printf("validation kNN by epoch:");
    for (const auto& m : h)
        std::printf(" %.3f", value(m, "validation-knn"));
    std::printf("; best epoch %d of %d\n", top->epoch, c.epochs);
    // The case this test is about: the best epoch is not the last one (else nothing is restored).
    QVERIFY2(top->epoch < c.epochs, "the best epoch is the last: choose settings whose validation score moves");
    QCOMPARE(QString::fromStdString(final.stage), QStringLiteral("best (epoch %1)").arg(top->epoch));
    for (const char* k : {"knn-accuracy", "recall-hit@1", "recall-hit@4", "nmi", "spread"})
        QCOMPARE(value(final, k), value(*top, k));

    char name[32];
    std::snprintf(name, sizeof name, "step-%09lld.pt", static_cast<long long>(top->step));
    const std::string atBest = (std::filesystem::path(c.checkpointDir) / name).string();
    const torch::Tensor kept = metricOf(j.bestCheckpoint());
    QVERIFY(torch::equal(kept, metricOf(atBest)));
    QVERIFY(!torch::equal(kept, metricOf(j.lastCheckpoint()))); // M moved after the best epoch
}

QTEST_GUILESS_MAIN(TestSsdmlBaselines)
#include "tst_SsdmlBaselines.moc"
