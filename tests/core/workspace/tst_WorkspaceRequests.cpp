// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The workspace's requests (core/workspace) against independent references: retrieval
// against brute-force Euclidean and exact-EMD rankings, the flow view against a hand-solved
// transport, PCA against a hand-made line, augmentation against an independent EMD.
#include "core/builtins/Builtins.h"
#include "core/data/Synthetic.h"
#include "core/model/ModelHandle.h"
#include "core/ot/Emd.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/AugmentPreview.h"
#include "core/workspace/ItemText.h"
#include "core/workspace/Retrieval.h"
#include "core/workspace/SetFlow.h"
#include "core/workspace/WorkspaceJobs.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace setscope;

namespace {

std::shared_ptr<const data::Dataset> setDataset()
{
    data::SyntheticSpec s;
    s.dim = 3;
    s.coarseClasses = 2;
    s.finePerCoarse = 2;
    s.pointsPerFine = 48; // 12 sets of 4 per fine class
    s.setSize = 4;
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(s));
}

/// Items sorted by (distance, index), as both retrieval paths break ties.
std::vector<std::int64_t> ranked(std::vector<std::pair<double, std::int64_t>> d, int k)
{
    std::sort(d.begin(), d.end());
    std::vector<std::int64_t> out;
    for (int i = 0; i < k; ++i)
        out.push_back(d[static_cast<std::size_t>(i)].second);
    return out;
}

double exactEmd(const data::Dataset& ds, std::int64_t a, std::int64_t b)
{
    return ot::emd(ot::pointSet(ds, static_cast<std::size_t>(a)), ot::pointSet(ds, static_cast<std::size_t>(b))).emd;
}

/// A dataset of two 2-D sets: A = {(0,0), (10,0)}, B = {(1,0), (12,0)}, unit weights.
data::Dataset twoSets()
{
    data::DatasetBuilder b("two");
    b.setName("two");
    b.setDimension(2);
    const float a[] = {0, 0, 10, 0}, c[] = {1, 0, 12, 0}, w[] = {1, 1};
    b.addItem(a, w, 2, data::Split::Test);
    b.addItem(c, w, 2, data::Split::Test);
    return b.finish();
}

} // namespace

class TestWorkspaceRequests : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void retrievalMatchesBruteForce();
    void retrievalScoresByHand();
    void retrievalRefusesBadInput();
    void retrievalJobEmbedsTheDatabaseOnce();
    void flowMatchesAHandSolvedTransport();
    void principalPlaneOfALine();
    void pointSwapSubstitutesAlongTheFlow();
    void augmentRequestValidates();
    void describesElements();

private:
    plugin::Registry m_registry;
    std::shared_ptr<const data::Dataset> m_ds;
    std::shared_ptr<const model::ModelHandle> m_model;
};

void TestWorkspaceRequests::initTestCase()
{
    builtins::registerBuiltins(m_registry);
    m_ds = setDataset();
    QVERIFY(m_ds->size() >= 40);
    // A model to retrieve with: a few steps are enough, the test compares rankings, not quality.
    train::TrainerConfig c;
    c.epochs = 1;
    c.maxSteps = 3;
    c.samplerOptions = {{"classes", "4"}, {"per-class", "4"}};
    c.embeddingDim = 8;
    c.snapshotEvery = 0;
    c.device = "cpu";
    train::TrainingJob job(m_ds, c, m_registry);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    m_model = job.currentModel();
    QVERIFY(m_model);
}

void TestWorkspaceRequests::retrievalMatchesBruteForce()
{
    const data::Dataset& ds = *m_ds;
    const std::vector<float> db = m_model->embed(ds);
    const int dim = m_model->dim();
    const std::int64_t q = ds.indices(data::Split::Test).front();
    workspace::RetrievalOptions o;
    o.k = 5;
    const workspace::RetrievalResult r = workspace::compareRetrieval(ds, *m_model, db, q, o);

    const std::vector<std::int64_t> train = ds.indices(data::Split::Train);
    QCOMPARE(r.candidates, static_cast<std::int64_t>(train.size()));
    QCOMPARE(r.pool, std::string("train split"));
    std::vector<std::pair<double, std::int64_t>> euclid, emd;
    for (const std::int64_t i : train) {
        double s = 0;
        for (int k = 0; k < dim; ++k) {
            const double d = db[static_cast<std::size_t>(q * dim + k)] - db[static_cast<std::size_t>(i * dim + k)];
            s += d * d;
        }
        euclid.emplace_back(std::sqrt(s), i);
        emd.emplace_back(exactEmd(ds, q, i), i);
    }
    const std::vector<std::int64_t> wantEmb = ranked(euclid, 5), wantEmd = ranked(emd, 5);
    std::sort(euclid.begin(), euclid.end());
    std::sort(emd.begin(), emd.end());
    QCOMPARE(r.byEmbedding.size(), std::size_t(5));
    QCOMPARE(r.byEmd.size(), std::size_t(5));
    for (std::size_t j = 0; j < 5; ++j) {
        QCOMPARE(r.byEmbedding[j].item, wantEmb[j]);
        QCOMPARE(r.byEmd[j].item, wantEmd[j]);
        QVERIFY(std::abs(r.byEmd[j].distance - emd[j].first) < 1e-9);
        QVERIFY(std::abs(r.byEmbedding[j].distance - euclid[j].first) < 1e-3 * (1 + euclid[j].first));
    }
    int overlap = 0;
    for (const std::int64_t i : wantEmb)
        overlap += std::count(wantEmd.begin(), wantEmd.end(), i) ? 1 : 0;
    QCOMPARE(r.overlap, overlap);
    QVERIFY(r.exactSeconds > 0);
    QVERIFY(r.encodeSeconds > 0);
}

void TestWorkspaceRequests::retrievalScoresByHand()
{
    // Labels of "fine": item 0's class is 0. List {1, 2, 3}: items 1 and 3 share it.
    data::DatasetBuilder b("six");
    b.setDimension(1);
    b.defineLabelSet("fine", {"a", "b"});
    const std::int32_t labels[] = {0, 0, 1, 0, 1, 0};
    for (int i = 0; i < 6; ++i) {
        const float v = static_cast<float>(i), w = 1;
        b.addItem(&v, &w, 1, data::Split::Test);
        b.setLabel("fine", static_cast<std::size_t>(i), labels[i]);
    }
    const data::Dataset ds = b.finish();
    const std::vector<std::int64_t> list{1, 2, 3}, cands{1, 2, 3, 4, 5};
    const workspace::RetrievalScore s = workspace::scoreList(ds, "fine", 0, list, cands);
    QCOMPARE(s.correct, 2);
    QCOMPARE(s.recallHit, 1.0);
    QCOMPARE(s.recallClass, 2.0 / 3.0); // class a among the candidates: 1, 3, 5
    QCOMPARE(s.precision, 2.0 / 3.0);
    const workspace::RetrievalScore none = workspace::scoreList(ds, "fine", 0, std::vector<std::int64_t>{2, 4}, cands);
    QCOMPARE(none.recallHit, 0.0);
    QCOMPARE(workspace::scoreList(ds, "missing", 0, list, cands).correct, 0);
}

void TestWorkspaceRequests::retrievalRefusesBadInput()
{
    const std::vector<float> db = m_model->embed(*m_ds);
    workspace::RetrievalOptions o;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             workspace::compareRetrieval(*m_ds, *m_model, db, static_cast<std::int64_t>(m_ds->size()), o));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             workspace::compareRetrieval(*m_ds, *m_model, std::span(db).first(8), 0, o));
    o.k = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, workspace::compareRetrieval(*m_ds, *m_model, db, 0, o));
}

void TestWorkspaceRequests::retrievalJobEmbedsTheDatabaseOnce()
{
    workspace::RetrievalOptions o;
    o.k = 3;
    auto first = workspace::makeRetrievalJob(m_ds, m_model, nullptr, 0, o);
    QCOMPARE(first->runHere(nullptr), job::JobStatus::Finished);
    const auto a = first->result();
    QVERIFY(a && a->database);
    QCOMPARE(a->database->size(), m_ds->size() * static_cast<std::size_t>(m_model->dim()));
    QVERIFY(a->databaseSeconds > 0);
    auto second = workspace::makeRetrievalJob(m_ds, m_model, a->database, 1, o);
    QCOMPARE(second->runHere(nullptr), job::JobStatus::Finished);
    QCOMPARE(second->result()->database.get(), a->database.get()); // reused, not recomputed
    QCOMPARE(second->result()->databaseSeconds, 0.0);
    // A cancelled job reports Cancelled and has no result.
    auto cancelled = workspace::makeRetrievalJob(m_ds, m_model, nullptr, 0, o);
    cancelled->cancel();
    QCOMPARE(cancelled->runHere(nullptr), job::JobStatus::Cancelled);
    QVERIFY(!cancelled->result());
}

void TestWorkspaceRequests::flowMatchesAHandSolvedTransport()
{
    // A = {(0,0), (10,0)}, B = {(1,0), (12,0)}: the optimal plan sends 0 -> 0 (distance 1) and
    // 1 -> 1 (distance 2); EMD = (1 + 2) / 2 = 1.5.
    const auto ds = std::make_shared<const data::Dataset>(twoSets());
    const workspace::SetFlow f = workspace::computeSetFlow(*ds, 0, 1);
    QCOMPARE(f.emd, 1.5);
    QCOMPARE(f.totalFlow, 2.0);
    QCOMPARE(f.arcs.size(), std::size_t(2));
    QCOMPARE(f.arcs[0].i, 0);
    QCOMPARE(f.arcs[0].j, 0);
    QCOMPARE(f.arcs[0].amount, 1.0);
    QCOMPARE(f.arcs[0].cost, 1.0);
    QCOMPARE(f.arcs[1].cost, 2.0);
    QCOMPARE(f.projection, std::string("coordinates"));
    QCOMPARE(f.xyB, (std::vector<float>{1, 0, 12, 0}));
    QCOMPARE(f.namesA[1], std::string("(10, 0)"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, workspace::computeSetFlow(*ds, 0, 2));
    // The job gives the same.
    auto job = workspace::makeSetFlowJob(ds, 0, 1, ot::GroundDistance::Euclidean);
    QCOMPARE(job->runHere(nullptr), job::JobStatus::Finished);
    QCOMPARE(job->result()->emd, 1.5);
}

void TestWorkspaceRequests::principalPlaneOfALine()
{
    // Points t * (1, 2, 2) / 3 for t = 0..4: one axis (1, 2, 2) / 3 holds all the variance; the
    // projection is t - 2 along it and 0 across.
    std::vector<float> p;
    for (int t = 0; t < 5; ++t)
        for (float c : {1.0f, 2.0f, 2.0f})
            p.push_back(static_cast<float>(t) * c / 3.0f);
    double explained = 0;
    const std::vector<float> xy = workspace::principalPlane(p, 5, 3, &explained);
    QVERIFY(std::abs(explained - 1.0) < 1e-6);
    for (int t = 0; t < 5; ++t) {
        QVERIFY2(std::abs(xy[static_cast<std::size_t>(2 * t)] - static_cast<float>(t - 2)) < 1e-5,
                 qPrintable(QString::number(xy[static_cast<std::size_t>(2 * t)])));
        QVERIFY(std::abs(xy[static_cast<std::size_t>(2 * t + 1)]) < 1e-5);
    }
}

void TestWorkspaceRequests::pointSwapSubstitutesAlongTheFlow()
{
    const data::Dataset& ds = *m_ds;
    const std::int64_t item = ds.indices(data::Split::Test).front();
    // The partner is the EMD-nearest train item: brute force over the train split.
    std::vector<std::pair<double, std::int64_t>> emd;
    for (const std::int64_t i : ds.indices(data::Split::Train))
        emd.emplace_back(exactEmd(ds, item, i), i);
    const std::int64_t nearest = ranked(emd, 1).front();
    workspace::AugmentRequest req;
    req.item = item;
    req.omega = 1.0; // every element is swapped
    const workspace::AugmentPreview pv = workspace::previewAugmentation(ds, req);
    QCOMPARE(pv.partner.item, nearest);
    QVERIFY(std::abs(pv.partner.emd - exactEmd(ds, item, nearest)) < 1e-9);
    QCOMPARE(pv.rows.size(), ds.setSize(static_cast<std::size_t>(item)));
    // Every substitute has positive flow in an independent solve of item -> partner.
    ot::EmdOptions eo;
    eo.flows = true;
    const ot::EmdResult r =
        ot::emd(ot::pointSet(ds, static_cast<std::size_t>(item)), ot::pointSet(ds, static_cast<std::size_t>(nearest)), eo);
    for (const workspace::ChangeRow& row : pv.rows) {
        const auto it = std::find_if(r.flows.begin(), r.flows.end(), [&](const ot::Flow& f) {
            return f.i == row.change.element && f.j == row.change.partnerElement;
        });
        QVERIFY(it != r.flows.end());
        QVERIFY(std::abs(it->amount - row.change.flow) < 1e-9);
        QCOMPARE(row.original, workspace::describeElement(ds, static_cast<std::size_t>(item), row.change.element));
    }
    // The same partner handed in (as the GUI does when re-sampling ω) is used as given.
    req.omega = 0.0;
    const workspace::AugmentPreview none = workspace::previewAugmentation(ds, req, pv.partner);
    QCOMPARE(none.partner.item, nearest);
    QVERIFY(none.rows.empty());
    // PointDrop has no partner.
    req.method = workspace::AugmentMethod::PointDrop;
    req.p = 0.5;
    QCOMPARE(workspace::previewAugmentation(ds, req).partner.item, std::int64_t(-1));
}

void TestWorkspaceRequests::augmentRequestValidates()
{
    workspace::AugmentRequest req;
    req.item = 0;
    req.omega = 1.5;
    try {
        req.validate();
        QFAIL("omega 1.5 accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).startsWith("omega must be in [0, 1]"), e.what());
    }
    req.omega = 0.5;
    req.variant = 4;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, req.validate());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, workspace::parseAugmentMethod("pointshuffle"));
    QCOMPARE(workspace::parseAugmentMethod("pointmixup"), workspace::AugmentMethod::PointMixup);
    req.variant = 0;
    req.item = static_cast<std::int64_t>(m_ds->size());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, workspace::previewAugmentation(*m_ds, req));
}

void TestWorkspaceRequests::describesElements()
{
    const data::Dataset ds = twoSets();
    QCOMPARE(workspace::describeElement(ds, 1, 1), std::string("(12, 0)"));
    QCOMPARE(workspace::labelOf(ds, 0, "fine"), std::string("-"));
    std::string pool;
    QCOMPARE(workspace::otherItems(ds, 0, false, &pool), (std::vector<std::int64_t>{1}));
    QCOMPARE(pool, std::string("dataset (no train split)"));
    QVERIFY(workspace::Vocabulary(ds).empty());

    // One check of a named item everywhere, its message naming the range.
    QCOMPARE(workspace::requireItem(ds, 1), std::size_t(1));
    for (const std::int64_t bad : {std::int64_t(-1), std::int64_t(2)}) {
        try {
            workspace::requireItem(ds, bad, "--query");
            QFAIL("an item outside the dataset was accepted");
        } catch (const std::invalid_argument& e) {
            const std::string expected = "--query " + std::to_string(bad) + " is not an item of '" + ds.name() + "' (0..1)";
            QCOMPARE(std::string(e.what()), expected);
        }
    }
    // The label set shown by default: "fine" when there is one, else the first.
    QCOMPARE(workspace::primaryLabelSet(ds), std::string("fine"));
    QCOMPARE(workspace::primaryLabelSet(*m_ds), std::string("fine"));
    data::LabelSet coarse;
    coarse.name = "coarse";
    coarse.classNames = {"a"};
    coarse.labels = {0, 0};
    QCOMPARE(workspace::primaryLabelSet(ds.withLabelSet(coarse)), std::string("coarse"));
}

QTEST_GUILESS_MAIN(TestWorkspaceRequests)
#include "tst_WorkspaceRequests.moc"
