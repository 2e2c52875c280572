// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The substructure report (core/workspace/Substructure.h) on a tiny dataset whose scores are
// worked out here by brute force from the definitions of seed 003 (purity §3.3, nDCG and CSL
// §4.4), not by the eval code: the before side (raw features) and the after side (a model's
// embedding, re-embedded here); the fine set found from the coarse one; the initial network as
// "before" for a run started from a checkpoint; cancel; and the refusals.
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/job/Job.h"
#include "core/model/ModelHandle.h"
#include "core/plugin/Registry.h"
#include "core/project/ProjectStore.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/Models.h"
#include "core/workspace/Substructure.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

using namespace setscope;

namespace {

// 1-D positions (y = 0) of 12 items: fine classes A, B (coarse X) and C, D (coarse Y), three
// items each, A and B interleaved, C and D interleaved, the two coarse groups far apart.
// No item has two others at the same distance, so every ranking is unambiguous.
const double kX[12] = {0.0, 2.3, 5.0, 1.1, 3.6, 6.6, 50.0, 52.7, 55.1, 51.4, 53.8, 57.8};
const int kFine[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
const int kCoarse[12] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};

data::Dataset tiny(bool withFine = true, bool withCoarse = true)
{
    data::DatasetBuilder b("tiny");
    b.setName("tiny");
    b.setDimension(2);
    if (withFine)
        b.defineLabelSet("fine", {"A", "B", "C", "D"});
    if (withCoarse)
        b.defineLabelSet("coarse", {"X", "Y"});
    const float w[] = {1.0f};
    for (int i = 0; i < 12; ++i) {
        const float p[] = {static_cast<float>(kX[i]), 0.0f};
        b.addItem(p, w, 1, data::Split::Train);
        if (withFine)
            b.setLabel("fine", static_cast<std::size_t>(i), kFine[i]);
        if (withCoarse)
            b.setLabel("coarse", static_cast<std::size_t>(i), kCoarse[i]);
    }
    return b.finish();
}

double pointDistance(const std::vector<float>& e, int dim, int a, int b)
{
    double s = 0;
    for (int c = 0; c < dim; ++c) {
        const double d = e[static_cast<std::size_t>(a * dim + c)] - e[static_cast<std::size_t>(b * dim + c)];
        s += d * d;
    }
    return std::sqrt(s);
}

std::vector<int> neighbours(const std::vector<float>& e, int dim, int q)
{
    std::vector<int> o;
    for (int j = 0; j < 12; ++j)
        if (j != q)
            o.push_back(j);
    std::sort(o.begin(), o.end(), [&](int a, int b) { return pointDistance(e, dim, q, a) < pointDistance(e, dim, q, b); });
    return o;
}

struct Scores {
    double purity, ndcg, cslAverage, cslTotal;
};

/// Seed 003's scores of an embedding of the 12 items, from the definitions.
Scores bruteForce(const std::vector<float>& e, int dim, int k)
{
    // The CSL tree: average linkage of the four class means (1-D). A-B and C-D merge first
    // (their means are 1.4 and 1.1 apart against about 50 across); the root at the mean of the
    // four cross distances. LCA heights are normalised by the root's.
    double mean[4] = {0, 0, 0, 0};
    for (int i = 0; i < 12; ++i)
        mean[kFine[i]] += kX[i] / 3.0;
    const double hAB = std::abs(mean[0] - mean[1]), hCD = std::abs(mean[2] - mean[3]);
    const double root = (std::abs(mean[0] - mean[2]) + std::abs(mean[0] - mean[3]) + std::abs(mean[1] - mean[2]) +
                         std::abs(mean[1] - mean[3])) / 4.0;
    auto lca = [&](int a, int b) {
        if (a == b)
            return 0.0;
        if (kCoarse[a * 3] == kCoarse[b * 3])
            return (kCoarse[a * 3] == 0 ? hAB : hCD) / root;
        return 1.0;
    };
    Scores s{};
    double penalty = 0;
    int wrong = 0;
    for (int q = 0; q < 12; ++q) {
        const std::vector<int> nn = neighbours(e, dim, q);
        int same = 0;
        for (int r = 0; r < k; ++r)
            same += kFine[nn[static_cast<std::size_t>(r)]] == kFine[q] ? 1 : 0;
        s.purity += static_cast<double>(same) / k / 12.0;
        auto rel = [&](int j) { return kFine[j] == kFine[q] ? 1.0 : kCoarse[j] == kCoarse[q] ? 0.5 : 0.0; };
        double dcg = 0, ideal = 0;
        std::vector<double> rels;
        for (std::size_t r = 0; r < nn.size(); ++r) {
            dcg += (std::pow(2.0, rel(nn[r])) - 1.0) / std::log2(static_cast<double>(r) + 2.0);
            rels.push_back(rel(nn[r]));
        }
        std::sort(rels.rbegin(), rels.rend());
        for (std::size_t r = 0; r < rels.size(); ++r)
            ideal += (std::pow(2.0, rels[r]) - 1.0) / std::log2(static_cast<double>(r) + 2.0);
        s.ndcg += dcg / ideal / 12.0;
        const int predicted = kFine[nn.front()]; // CSL: the nearest neighbour's class is ŷ
        if (predicted != kFine[q]) {
            ++wrong;
            penalty += lca(kFine[q], predicted);
        }
    }
    s.cslAverage = wrong ? penalty / wrong : 0.0;
    s.cslTotal = penalty / 12.0;
    return s;
}

void compareScores(const workspace::SubstructureSide& side, const Scores& want)
{
    QVERIFY2(std::abs(side.value("neighbourhood-purity") - want.purity) < 1e-9,
             qPrintable(QStringLiteral("purity %1, want %2").arg(side.value("neighbourhood-purity")).arg(want.purity)));
    QVERIFY2(std::abs(side.value("ndcg") - want.ndcg) < 1e-6,
             qPrintable(QStringLiteral("ndcg %1, want %2").arg(side.value("ndcg")).arg(want.ndcg)));
    QVERIFY2(std::abs(side.value("csl-average") - want.cslAverage) < 1e-6,
             qPrintable(QStringLiteral("csl avg %1, want %2").arg(side.value("csl-average")).arg(want.cslAverage)));
    QVERIFY2(std::abs(side.value("csl-total") - want.cslTotal) < 1e-6,
             qPrintable(QStringLiteral("csl total %1, want %2").arg(side.value("csl-total")).arg(want.cslTotal)));
}

train::TrainerConfig quick(const std::string& labelSet)
{
    train::TrainerConfig c;
    c.device = "cpu";
    c.epochs = 1;
    c.maxSteps = 4;
    c.embeddingDim = 4;
    c.snapshotEvery = 0;
    c.evaluateEachEpoch = false;
    c.threads = 1;
    c.validationFraction = 0;
    c.labelSet = labelSet;
    c.samplerOptions = {{"classes", "2"}, {"per-class", "3"}};
    return c;
}

} // namespace

class TestSubstructure : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void rawBeforeAndModelAfterMatchTheDefinitions();
    void findsTheFineSetTheCoarseOneGroups();
    void initialNetworkIsBeforeForARunFromACheckpoint();
    void weakRunsOfAProject();
    void setDatasetsToo();
    void cancelStopsTheReport();
    void refusesClearly();

private:
    std::shared_ptr<model::ModelHandle const> trainOn(const data::Dataset& ds, train::TrainerConfig c);
    plugin::Registry m_registry;
    std::shared_ptr<const data::Dataset> m_ds;
    std::shared_ptr<const model::ModelHandle> m_coarseModel, m_fineModel;
};

std::shared_ptr<model::ModelHandle const> TestSubstructure::trainOn(const data::Dataset& ds, train::TrainerConfig c)
{
    train::TrainingJob job(std::make_shared<const data::Dataset>(ds), c, m_registry);
    if (job.runHere(nullptr) != job::JobStatus::Finished)
        return nullptr;
    return job.currentModel();
}

void TestSubstructure::initTestCase()
{
    builtins::registerBuiltins(m_registry);
    m_ds = std::make_shared<const data::Dataset>(tiny());
    m_coarseModel = trainOn(*m_ds, quick("coarse"));
    m_fineModel = trainOn(*m_ds, quick("fine"));
    QVERIFY(m_coarseModel && m_fineModel);
    QCOMPARE(m_coarseModel->labelSet(), std::string("coarse"));
}

void TestSubstructure::rawBeforeAndModelAfterMatchTheDefinitions()
{
    workspace::SubstructureOptions o;
    o.k = 2;
    o.tsne.maxIterations = 300;
    std::vector<std::string> messages;
    const workspace::SubstructureReport r = workspace::substructureReport(
        *m_ds, *m_coarseModel, nullptr, o, nullptr,
        [&](std::int64_t, std::int64_t, const std::string& w) { messages.push_back(w); });
    QCOMPARE(r.fineLabelSet, std::string("fine"));
    QCOMPARE(r.coarseLabelSet, std::string("coarse"));
    QVERIFY2(r.note.empty(), r.note.c_str());
    std::vector<std::int64_t> all(12);
    std::iota(all.begin(), all.end(), 0);
    QCOMPARE(r.items, all);
    // Before: the raw vectors, as they are.
    QCOMPARE(r.before.dim, 2);
    for (int i = 0; i < 12; ++i) {
        QCOMPARE(r.before.embedding[static_cast<std::size_t>(2 * i)], static_cast<float>(kX[i]));
        QCOMPARE(r.before.embedding[static_cast<std::size_t>(2 * i + 1)], 0.0f);
    }
    QVERIFY(r.before.what.find("raw input features") != std::string::npos);
    QVERIFY(r.before.raw && !r.after.raw);
    const Scores rawWant = bruteForce(r.before.embedding, 2, 2);
    compareScores(r.before, rawWant);
    // By hand, class A = {0, 2.3, 5.0} among B = {1.1, 3.6, 6.6} at k = 2: 0 -> 1.1, 2.3 (1 of
    // 2); 2.3 -> 1.1, 3.6 (0); 5.0 -> 3.6, 6.6 (0). The raw line mixes A and B.
    QVERIFY(rawWant.purity < 0.5);
    // After: the model's embedding of the same items, scored by the same definitions.
    QCOMPARE(r.after.dim, m_coarseModel->dim());
    const std::vector<float> emb = m_coarseModel->embed(*m_ds, all);
    QCOMPARE(r.after.embedding.size(), emb.size());
    for (std::size_t i = 0; i < emb.size(); ++i)
        QVERIFY(std::abs(r.after.embedding[i] - emb[i]) < 1e-5f);
    compareScores(r.after, bruteForce(emb, m_coarseModel->dim(), 2));
    // Both maps: every item, finite positions, t-SNE run to the end.
    for (const workspace::SubstructureSide* s : {&r.before, &r.after}) {
        QCOMPARE(s->map.items, all);
        QCOMPARE(s->map.xy.size(), std::size_t(24));
        QVERIFY(std::all_of(s->map.xy.begin(), s->map.xy.end(), [](float v) { return std::isfinite(v); }));
        QCOMPARE(s->map.iteration, 300);
    }
    QVERIFY(!messages.empty());
    QVERIFY(std::any_of(messages.begin(), messages.end(), [](const std::string& m) { return m.find("t-SNE") == 0; }));
}

void TestSubstructure::findsTheFineSetTheCoarseOneGroups()
{
    QCOMPARE(workspace::finerLabelSets(*m_ds, "coarse"), std::vector<std::string>{"fine"});
    QVERIFY(workspace::finerLabelSets(*m_ds, "fine").empty()); // fine groups nothing finer
    QVERIFY(workspace::finerLabelSets(*m_ds, "nope").empty());
    // A set that splits fine class A between its classes groups nothing: the report still runs
    // against "fine" and says so in its note.
    data::LabelSet lasso{"mine", {"picked", "rest"}, std::vector<std::int32_t>(12, 1)};
    lasso.labels[0] = 0; // one item of A
    lasso.labels[3] = 0; // one item of B
    const data::Dataset withLasso = m_ds->withLabelSet(lasso);
    QVERIFY(workspace::finerLabelSets(withLasso, "mine").empty());
    workspace::SubstructureOptions o;
    o.coarseLabelSet = "mine";
    o.tsne.maxIterations = 50;
    const workspace::SubstructureReport r = workspace::substructureReport(withLasso, *m_coarseModel, nullptr, o, nullptr);
    QCOMPARE(r.fineLabelSet, std::string("fine"));
    QVERIFY2(r.note.find("does not group") != std::string::npos && r.note.find("'A'") != std::string::npos &&
                 r.note.find("'B'") != std::string::npos && r.note.find("'C'") == std::string::npos,
             r.note.c_str());
}

void TestSubstructure::initialNetworkIsBeforeForARunFromACheckpoint()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    train::TrainerConfig first = quick("fine");
    first.checkpointDir = (dir.path() + "/first").toStdString();
    train::TrainingJob a(m_ds, first, m_registry);
    QCOMPARE(a.runHere(nullptr), job::JobStatus::Finished);
    QVERIFY(!a.lastCheckpoint().empty());
    train::TrainerConfig second = quick("coarse");
    second.initFrom = a.lastCheckpoint();
    second.checkpointDir = (dir.path() + "/second").toStdString();
    train::TrainingJob b(m_ds, second, m_registry);
    QCOMPARE(b.runHere(nullptr), job::JobStatus::Finished);

    workspace::SubstructureOptions o;
    o.k = 3;
    o.tsne.maxIterations = 50;
    const workspace::SubstructureReport r =
        workspace::substructureOfCheckpoint(*m_ds, b.lastCheckpoint(), m_registry, o, nullptr);
    QVERIFY2(r.before.what.find("initial network") != std::string::npos, r.before.what.c_str());
    QVERIFY(!r.before.raw);
    const auto initial = workspace::openModel(a.lastCheckpoint(), m_registry);
    const std::vector<float> want = initial->embed(*m_ds, r.items);
    QCOMPARE(r.before.dim, initial->dim());
    for (std::size_t i = 0; i < want.size(); ++i)
        QVERIFY(std::abs(r.before.embedding[i] - want[i]) < 1e-5f);
    compareScores(r.before, bruteForce(want, initial->dim(), 3));
    // The initial checkpoint gone: the raw features, and the report says so.
    std::filesystem::remove(a.lastCheckpoint());
    const workspace::SubstructureReport raw =
        workspace::substructureOfCheckpoint(*m_ds, b.lastCheckpoint(), m_registry, o, nullptr);
    QVERIFY2(raw.before.what.find("raw input features") != std::string::npos &&
                 raw.before.what.find("is gone") != std::string::npos,
             raw.before.what.c_str());
    compareScores(raw.before, bruteForce(raw.before.embedding, 2, 3));
}

void TestSubstructure::weakRunsOfAProject()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto store = project::ProjectStore::open((dir.path() + "/p.setscope").toStdString());
    const std::int64_t id = store->addDataset("tiny", "/mem/tiny", m_ds->contentHash(), 12);
    const std::string cp = (dir.path() + "/ckpt.pt").toStdString();
    auto record = [&](const std::string& labelSet, bool withCheckpoint) {
        train::TrainerConfig c = quick(labelSet);
        const std::int64_t run = store->createRun(id, c.toJson().dump());
        if (withCheckpoint)
            store->addCheckpoint(run, 4, cp);
        store->finishRun(run, "finished", "");
        return run;
    };
    const std::int64_t onFine = record("fine", true);
    const std::int64_t onCoarse = record("coarse", true);
    const std::int64_t noCheckpoint = record("coarse", false);
    const std::int64_t onCoarse2 = record("coarse", true);
    Q_UNUSED(onFine);
    Q_UNUSED(noCheckpoint);
    const auto runs = workspace::weakMetricRuns(*store, id, *m_ds);
    QCOMPARE(runs.size(), std::size_t(2)); // not the run on fine, not the one without a checkpoint
    QCOMPARE(runs[0].runId, onCoarse2);    // newest first
    QCOMPARE(runs[1].runId, onCoarse);
    QCOMPARE(runs[0].coarseLabelSet, std::string("coarse"));
    QCOMPARE(runs[0].fineLabelSet, std::string("fine"));
    QCOMPARE(runs[0].checkpoint, cp);
    QCOMPARE(runs[0].step, std::int64_t(4));
    QVERIFY(!runs[0].fromInitial);
}

// A dataset of sets (the hierarchical clusters as sets of 4 points): before is each set's
// weighted mean point, computed here; the scores follow the definitions on it.
void TestSubstructure::setDatasetsToo()
{
    data::SyntheticSpec spec;
    spec.dim = 3;
    spec.coarseClasses = 2;
    spec.finePerCoarse = 2;
    spec.pointsPerFine = 24;
    spec.setSize = 4;
    const auto ds = std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(spec));
    QVERIFY(!ds->isVectorDataset());
    const auto model = trainOn(*ds, quick("coarse"));
    QVERIFY(model);
    workspace::SubstructureOptions o;
    o.maxItems = 0; // every item
    o.tsne.maxIterations = 50;
    const workspace::SubstructureReport r = workspace::substructureReport(*ds, *model, nullptr, o, nullptr);
    QCOMPARE(r.items.size(), ds->size());
    QCOMPARE(r.fineLabelSet, std::string("fine"));
    QVERIFY(r.before.raw);
    QCOMPARE(r.before.dim, 3);
    for (std::size_t i = 0; i < ds->size(); ++i) {
        const data::ItemView it = ds->item(i);
        for (int c = 0; c < 3; ++c) {
            double sum = 0, weight = 0;
            for (std::size_t e = 0; e < it.count; ++e) {
                const double w = it.weights ? it.weights[e] : 1.0;
                sum += w * it.element(e)[static_cast<std::size_t>(c)];
                weight += w;
            }
            QVERIFY(std::abs(r.before.embedding[i * 3 + static_cast<std::size_t>(c)] - sum / weight) < 1e-5);
        }
    }
    QCOMPARE(r.after.dim, model->dim());
    QCOMPARE(r.after.map.xy.size(), 2 * ds->size());
    // Purity from its definition (k = 10) on the mean points.
    const data::LabelSet& fine = ds->requireLabelSet("fine");
    double purity = 0;
    const std::size_t n = ds->size();
    for (std::size_t q = 0; q < n; ++q) {
        std::vector<std::pair<double, std::size_t>> d;
        for (std::size_t j = 0; j < n; ++j)
            if (j != q)
                d.emplace_back(pointDistance(r.before.embedding, 3, static_cast<int>(q), static_cast<int>(j)), j);
        std::sort(d.begin(), d.end());
        int same = 0;
        for (int k = 0; k < 10; ++k)
            same += fine.labels[d[static_cast<std::size_t>(k)].second] == fine.labels[q] ? 1 : 0;
        purity += same / 10.0 / static_cast<double>(n);
    }
    QVERIFY2(std::abs(r.before.value("neighbourhood-purity") - purity) < 1e-9,
             qPrintable(QStringLiteral("%1 vs %2").arg(r.before.value("neighbourhood-purity")).arg(purity)));
}

void TestSubstructure::cancelStopsTheReport()
{
    // Cancel requested when the first t-SNE starts: the report ends with job::Cancelled, and
    // the control was polled on the way.
    job::JobControl control;
    workspace::SubstructureOptions o;
    bool threw = false;
    try {
        workspace::substructureReport(*m_ds, *m_coarseModel, nullptr, o, &control,
                                      [&](std::int64_t, std::int64_t, const std::string& w) {
                                          if (w.find("t-SNE") == 0)
                                              control.requestCancel();
                                      });
    } catch (const job::Cancelled&) {
        threw = true;
    }
    QVERIFY(threw);
    QVERIFY(control.polls() > 0);
    // As a job: cancelled before it starts its work, it ends Cancelled.
    QTemporaryDir dir;
    train::TrainerConfig c = quick("coarse");
    c.checkpointDir = dir.path().toStdString();
    train::TrainingJob t(m_ds, c, m_registry);
    QCOMPARE(t.runHere(nullptr), job::JobStatus::Finished);
    auto job = workspace::makeSubstructureJob(m_ds, t.lastCheckpoint(), m_registry, o);
    job->cancel();
    QCOMPARE(job->runHere(nullptr), job::JobStatus::Cancelled);
    QVERIFY(!job->result());
    auto done = workspace::makeSubstructureJob(m_ds, t.lastCheckpoint(), m_registry, o);
    QCOMPARE(done->runHere(nullptr), job::JobStatus::Finished);
    QVERIFY(done->result());
    QCOMPARE(done->result()->items.size(), std::size_t(12));
}

void TestSubstructure::refusesClearly()
{
    workspace::SubstructureOptions o;
    o.tsne.maxIterations = 50;
    auto message = [&](const data::Dataset& ds, const model::ModelHandle& m, const workspace::SubstructureOptions& opt) {
        try {
            workspace::substructureReport(ds, m, nullptr, opt, nullptr);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    // A run on the fine labels themselves.
    std::string m = message(*m_ds, *m_fineModel, o);
    QVERIFY2(m.find("not on a coarse label set") != std::string::npos, m.c_str());
    // A dataset without fine labels: nothing the coarse set groups, nothing called fine.
    const data::Dataset coarseOnly = tiny(false, true);
    m = message(coarseOnly, *m_coarseModel, o);
    QVERIFY2(m.find("has no fine label set for 'coarse'") != std::string::npos && m.find("it has: coarse") != std::string::npos,
             m.c_str());
    // A fine set named that the dataset does not have.
    workspace::SubstructureOptions named = o;
    named.fineLabelSet = "species";
    m = message(*m_ds, *m_coarseModel, named);
    QVERIFY2(m.find("no label set 'species'") != std::string::npos && m.find("fine, coarse") != std::string::npos,
             m.c_str());
    // A dataset without the run's coarse set.
    const data::Dataset fineOnly = tiny(true, false);
    m = message(fineOnly, *m_coarseModel, o);
    QVERIFY2(m.find("trained on label set 'coarse', which dataset 'tiny' does not have") != std::string::npos, m.c_str());
    // Bad k.
    workspace::SubstructureOptions badK = o;
    badK.k = 0;
    m = message(*m_ds, *m_coarseModel, badK);
    QVERIFY2(m.find("k must be at least 1") != std::string::npos, m.c_str());
}

QTEST_MAIN(TestSubstructure)
#include "tst_Substructure.moc"
