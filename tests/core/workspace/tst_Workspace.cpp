// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The workspace's state and rules (core/workspace/Workspace.h) on a hand-built dataset of
// 24 two-element sets and a temporary project: opening and creating projects, attaching,
// reloading a label set after an edit, the map's items and raw vectors worked out by hand,
// and the rule that a run is recorded only for a dataset in the project.
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/plugin/Registry.h"
#include "core/project/ProjectStore.h"
#include "core/train/TrainerConfig.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/Workspace.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace setscope;

namespace {

constexpr std::size_t kItems = 24;

/// Item i: the set {(i, 2i), (i + 3, 2i + 6)} with weights (1, 3). Items 0..11 are in the
/// train split, 12..23 in the test split.
float elementValue(std::size_t i, std::size_t e, std::size_t k)
{
    const float base = static_cast<float>(i) * (k == 0 ? 1.0f : 2.0f);
    return base + (e == 1 ? (k == 0 ? 3.0f : 6.0f) : 0.0f);
}

/// "fine": train items alternate classes a, b (6 each); in the test split items 12..20 are
/// class a (9 items) and 21..23 class b (3 items). "half": test items 12..17 are x and
/// 18..23 y (6 each); train items x.
std::vector<std::int32_t> fineLabels()
{
    std::vector<std::int32_t> l(kItems);
    for (std::size_t i = 0; i < 12; ++i)
        l[i] = static_cast<std::int32_t>(i % 2);
    for (std::size_t i = 12; i < kItems; ++i)
        l[i] = i <= 20 ? 0 : 1;
    return l;
}

std::vector<std::int32_t> halfLabels()
{
    std::vector<std::int32_t> l(kItems, 0);
    for (std::size_t i = 18; i < kItems; ++i)
        l[i] = 1;
    return l;
}

std::shared_ptr<const data::Dataset> handBuilt()
{
    data::DatasetBuilder b("hand");
    b.setName("hand");
    b.setDimension(2);
    const float w[] = {1.0f, 3.0f};
    for (std::size_t i = 0; i < kItems; ++i) {
        const float v[] = {elementValue(i, 0, 0), elementValue(i, 0, 1), elementValue(i, 1, 0), elementValue(i, 1, 1)};
        b.addItem(v, w, 2, i < 12 ? data::Split::Train : data::Split::Test);
    }
    b.defineLabelSet("fine", {"a", "b"});
    b.defineLabelSet("half", {"x", "y"});
    const auto fine = fineLabels(), half = halfLabels();
    for (std::size_t i = 0; i < kItems; ++i) {
        b.setLabel("fine", i, fine[i]);
        b.setLabel("half", i, half[i]);
    }
    return std::make_shared<const data::Dataset>(b.finish());
}

int countLabel(const data::Dataset& ds, const std::string& set, const std::vector<std::int64_t>& items, int label)
{
    const auto& l = ds.requireLabelSet(set).labels;
    int n = 0;
    for (std::int64_t i : items)
        n += l[static_cast<std::size_t>(i)] == label;
    return n;
}

train::TrainerConfig oneEpoch()
{
    train::TrainerConfig c;
    c.device = "cpu";
    c.epochs = 1;
    c.snapshotEvery = 0;
    c.evaluateEachEpoch = false;
    c.embeddingDim = 4;
    c.threads = 1;
    return c;
}

} // namespace

class TestWorkspace : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;

private Q_SLOTS:
    void initTestCase() { builtins::registerBuiltins(m_registry); }

    void openProjectCreatesTheFileAndItsFolder()
    {
        QTemporaryDir dir;
        const std::filesystem::path file = std::filesystem::path(dir.path().toStdString()) / "a" / "b" / "p.setscope";
        workspace::Workspace ws(m_registry);
        QVERIFY(!ws.project());
        QCOMPARE(ws.projectPath(), std::string());
        ws.openProject(file.string());
        QVERIFY(ws.project());
        QVERIFY(std::filesystem::is_directory(file.parent_path()));
        QVERIFY(std::filesystem::is_regular_file(file));
        QCOMPARE(ws.projectPath(), file.string());

        // Not a project: refused naming the file, the open project stays.
        const std::filesystem::path junk = file.parent_path() / "junk.setscope";
        std::ofstream(junk) << "not sqlite";
        bool threw = false;
        try {
            ws.openProject(junk.string());
        } catch (const std::exception& e) {
            threw = true;
            QVERIFY2(std::string(e.what()).find(junk.string()) != std::string::npos, e.what());
        }
        QVERIFY(threw);
        QCOMPARE(ws.projectPath(), file.string());
    }

    void attachRegistersTheDatasetOnce()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("p.setscope")).toStdString();
        const auto ds = handBuilt();
        workspace::Workspace ws(m_registry);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, ws.attach(ds, "hand")); // no project yet
        ws.openProject(file);
        ws.attach(ds, "hand");
        const std::int64_t id = ws.projectDatasetId();
        QVERIFY(id != 0);
        QVERIFY(ws.inProject());
        QCOMPARE(ws.spec(), std::string("hand"));
        QVERIFY(ws.sourceDataset() == ds);
        QCOMPARE(ws.dataset()->requireLabelSet("fine").labels, fineLabels());
        QCOMPARE(ws.project()->datasets().size(), std::size_t(1));
        QCOMPARE(ws.project()->labelSets(id).size(), std::size_t(2)); // both shipped label sets

        ws.attach(ds, "hand"); // the same dataset again: the same record
        QCOMPARE(ws.projectDatasetId(), id);
        workspace::Workspace other(m_registry); // and from another workspace on the same file
        other.openProject(file);
        other.attach(ds, "hand");
        QCOMPARE(other.projectDatasetId(), id);
        QCOMPARE(other.project()->datasets().size(), std::size_t(1));

        // Opened outside the project: no id, although a project is open.
        ws.adoptDataset(ds, "hand");
        QCOMPARE(ws.projectDatasetId(), std::int64_t(0));
        QVERIFY(!ws.inProject());
        // Another project: the dataset stays open but is not in it until attached there.
        ws.attach(ds, "hand");
        ws.openProject(dir.filePath(QStringLiteral("q.setscope")).toStdString());
        QVERIFY(ws.dataset() != nullptr);
        QCOMPARE(ws.projectDatasetId(), std::int64_t(0));
        ws.attach(ws.sourceDataset(), "hand");
        QVERIFY(ws.projectDatasetId() != 0);
    }

    void reloadLabelSetSeesAnEditInTheStore()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("p.setscope")).toStdString();
        workspace::Workspace ws(m_registry);
        ws.openProject(file);
        ws.attach(handBuilt(), "hand");
        const auto before = ws.dataset();

        // A person's edit, written through another connection to the same file: item 3 from
        // b to a, item 21 from b to a, item 5 unlabelled.
        {
            const auto store = project::ProjectStore::open(file);
            const auto rec = store->findLabelSet(ws.projectDatasetId(), "fine");
            QVERIFY(rec);
            store->applyEdit(rec->id, {{3, 0}, {21, 0}, {5, data::kUnlabelled}}, "by hand");
        }
        std::vector<std::int32_t> expected = fineLabels();
        QCOMPARE(expected[3], 1);
        QCOMPARE(expected[21], 1);
        expected[3] = 0;
        expected[21] = 0;
        expected[5] = data::kUnlabelled;
        QCOMPARE(ws.dataset()->requireLabelSet("fine").labels, fineLabels()); // not before the reload

        const auto after = ws.reloadLabelSet("fine");
        QVERIFY(after == ws.dataset());
        QVERIFY(after != before);
        QCOMPARE(after->requireLabelSet("fine").labels, expected);
        QCOMPARE(after->requireLabelSet("fine").classNames, (std::vector<std::string>{"a", "b"}));
        QCOMPARE(after->requireLabelSet("half").labels, halfLabels()); // the other set untouched
        QCOMPARE(after->size(), kItems);
        QCOMPARE(before->requireLabelSet("fine").labels, fineLabels()); // the old object unchanged

        bool threw = false;
        try {
            ws.reloadLabelSet("species");
        } catch (const std::runtime_error& e) {
            threw = true;
            const std::string m = e.what();
            QVERIFY2(m.find("'species'") != std::string::npos && m.find(ws.projectPath()) != std::string::npos,
                     e.what());
        }
        QVERIFY(threw);
        QVERIFY(ws.dataset() == after);

        workspace::Workspace bare(m_registry); // no project: nothing to reload from
        bare.adoptDataset(handBuilt(), "hand");
        QVERIFY_THROWS_EXCEPTION(std::logic_error, bare.reloadLabelSet("fine"));
    }

    void mapItemsTakeTheTestSplitInProportion()
    {
        workspace::Workspace ws(m_registry);
        QVERIFY(ws.mapItems("fine", 4).empty()); // no dataset
        ws.adoptDataset(handBuilt(), "hand");
        const data::Dataset& ds = *ws.dataset();

        std::vector<std::int64_t> all(kItems), test;
        for (std::size_t i = 0; i < kItems; ++i)
            all[i] = static_cast<std::int64_t>(i);
        for (std::int64_t i = 12; i < 24; ++i)
            test.push_back(i);
        QCOMPARE(ws.mapItems("fine", 0), all);   // every item
        QCOMPARE(ws.mapItems("fine", 12), test); // the whole test split fits
        QCOMPARE(ws.mapItems("fine", 50), test);

        // 4 of the 12 test items, a third of each class: 9 a -> 3, 3 b -> 1.
        const auto items = ws.mapItems("fine", 4);
        QCOMPARE(items.size(), std::size_t(4));
        QVERIFY(std::is_sorted(items.begin(), items.end()));
        for (std::int64_t i : items)
            QVERIFY(i >= 12);
        QCOMPARE(countLabel(ds, "fine", items, 0), 3);
        QCOMPARE(countLabel(ds, "fine", items, 1), 1);
        QCOMPARE(ws.mapItems("fine", 4), items); // fixed by the seed
        QCOMPARE(workspace::mapItems(ds, "fine", 4), items);

        // By "half" (6 x, 6 y in the test split): 2 and 2.
        const auto byHalf = ws.mapItems("half", 4);
        QCOMPARE(byHalf.size(), std::size_t(4));
        QCOMPARE(countLabel(ds, "half", byHalf, 0), 2);
        QCOMPARE(countLabel(ds, "half", byHalf, 1), 2);
        // An unknown label set falls back to the first one ("fine").
        const auto fallback = ws.mapItems("none", 4);
        QCOMPARE(countLabel(ds, "fine", fallback, 0), 3);
        QCOMPARE(countLabel(ds, "fine", fallback, 1), 1);
    }

    void rawSnapshotHoldsTheWeightedMeans()
    {
        workspace::Workspace ws(m_registry);
        QVERIFY(ws.rawSnapshot({0}) == nullptr); // no dataset
        ws.adoptDataset(handBuilt(), "hand");
        // Item i = {(i, 2i) w 1, (i + 3, 2i + 6) w 3}: mean ((i + 3(i + 3)) / 4, (2i + 3(2i + 6)) / 4)
        // = (i + 2.25, 2i + 4.5). Item 0: (2.25, 4.5); item 13: (15.25, 30.5); item 7: (9.25, 18.5).
        const std::vector<std::int64_t> items = {13, 0, 7};
        const auto s = ws.rawSnapshot(items);
        QVERIFY(s);
        QCOMPARE(s->items, items);
        QCOMPARE(s->dim, 2);
        QCOMPARE(s->step, std::int64_t(0));
        QCOMPARE(s->epoch, 0);
        const std::vector<float> expected = {15.25f, 30.5f, 2.25f, 4.5f, 9.25f, 18.5f};
        QCOMPARE(s->vectors, expected);
        QCOMPARE(workspace::rawSnapshot(*ws.dataset(), items)->vectors, expected);
    }

    void prepareRunRecordsOnlyAProjectDataset()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("p.setscope")).toStdString();
        const auto ds = handBuilt();
        workspace::Workspace ws(m_registry);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, ws.prepareRun(oneEpoch(), nullptr, nullptr)); // no dataset

        // Unrecorded runs: no recorder, and no attempt to record (which would fail with a
        // recordError for a dataset the project does not hold).
        const auto unrecorded = [&ws] {
            const project::TrainingRun r = ws.prepareRun(oneEpoch(), nullptr, nullptr);
            return r.job != nullptr && r.recorder == nullptr && r.recordError.empty();
        };
        ws.adoptDataset(ds, "hand"); // no project
        QVERIFY(unrecorded());

        ws.openProject(file); // a project, but the dataset is not in it
        QVERIFY(unrecorded());
        QCOMPARE(ws.project()->runs().size(), std::size_t(0));

        ws.attach(ds, "hand");
        project::TrainingRun run = ws.prepareRun(oneEpoch(), nullptr, nullptr);
        QVERIFY(run.recorder != nullptr);
        QVERIFY(run.recordError.empty());
        run.job->start(run.sink);
        run.job->wait();
        QCOMPARE(run.job->status(), job::JobStatus::Finished);
        const auto runs = project::ProjectStore::open(file)->runs();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].id, run.recorder->runId());
        QCOMPARE(runs[0].datasetId, ws.projectDatasetId());
        QCOMPARE(runs[0].status, std::string("finished"));

        ws.adoptDataset(ds, "hand"); // out of the project again: not recorded
        QVERIFY(unrecorded());
        QCOMPARE(ws.project()->runs().size(), std::size_t(1));
    }

    void keepsTheLastExternalDataset()
    {
        workspace::Workspace ws(m_registry);
        QVERIFY(ws.external("brown") == nullptr);
        const auto a = handBuilt(), b = handBuilt();
        ws.rememberExternal("brown", a);
        QVERIFY(ws.external("brown") == a);
        QVERIFY(ws.external("other") == nullptr);
        ws.rememberExternal("other", b);
        QVERIFY(ws.external("other") == b);
        QVERIFY(ws.external("brown") == nullptr); // one is kept
    }
};

QTEST_MAIN(TestWorkspace)
#include "tst_Workspace.moc"
