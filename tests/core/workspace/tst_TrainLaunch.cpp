// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The phases of a training run as a front end asks for it (workspace::resolveTrain,
// batchShardsFor, prepareTrainData), each checked against what it must decide: defaults that
// follow the dataset unless given, a coarse label set derived and trained on, the parts of a
// batch for local ranks, a project that records the dataset.
#include "core/builtins/Builtins.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/plugin/Registry.h"
#include "core/project/ProjectStore.h"
#include "core/workspace/TrainLaunch.h"
#include "core/workspace/Workspace.h"

#include <QtTest>

#include <fstream>

using namespace setscope;

namespace {

/// A request for `dataset` on the CPU, nothing else given.
workspace::TrainRequest request(const char* dataset)
{
    workspace::TrainRequest r;
    r.dataset = dataset;
    r.config.device = "cpu";
    return r;
}

/// The coarse mapping {"name": NAME, "from": "coarse", "classes": {A: [C0, C1], B: [C2, C3]}}
/// written to `path`, which is returned.
std::string writeMapping(const QString& path, const char* name, const char* a, const char* b)
{
    std::ofstream(path.toStdString()) << "{\"name\": \"" << name << "\", \"from\": \"coarse\", \"classes\": {\"" << a
                                      << "\": [\"C0\", \"C1\"], \"" << b << "\": [\"C2\", \"C3\"]}}";
    return path.toStdString();
}

} // namespace

class TestTrainLaunch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void setsGetTheSetEncoderUnlessAModelIsGiven();
    void aCoarseMappingNamesTheLabelSet();
    void badSettingsFailBeforeAnyData();
    void batchPartsForLocalRanks();
    void preparedDataIsInTheProject();

private:
    workspace::ResolvedTrain resolve(const workspace::TrainRequest& r);
    workspace::OpenDatasetFn m_open;
    plugin::Registry m_registry;
    QTemporaryDir m_dir;
    int m_opened = 0;
};

void TestTrainLaunch::initTestCase()
{
    QVERIFY(m_dir.isValid());
    builtins::registerBuiltins(m_registry);
    m_open = [this](const std::string& spec) {
        ++m_opened;
        return std::make_shared<const data::Dataset>(catalog::openDataset(spec, m_registry));
    };
}

workspace::ResolvedTrain TestTrainLaunch::resolve(const workspace::TrainRequest& r)
{
    return workspace::resolveTrain(r, m_registry, m_open);
}

void TestTrainLaunch::setsGetTheSetEncoderUnlessAModelIsGiven()
{
    workspace::TrainRequest r = request("synthetic:dim=2,points=6,set=5");
    m_opened = 0;
    const workspace::ResolvedTrain sets = resolve(r);
    QCOMPARE(m_opened, 1); // opened to see that it holds sets, and kept for the next phase
    QVERIFY(sets.dataset);
    QCOMPARE(sets.config.model, std::string("selfattn"));
    QCOMPARE(sets.config.preset, std::string("cpu"));
    QCOMPARE(sets.config.loss, std::string("triplet")); // no recipe: the default loss, recorded
    QVERIFY2(sets.defaultsNote.find("model selfattn, preset cpu") != std::string::npos, sets.defaultsNote.c_str());

    r.presetGiven = true; // the preset as given (none), the model still the dataset's
    QCOMPARE(resolve(r).config.preset, std::string());

    r.modelGiven = true;
    r.config.model = "mlp";
    m_opened = 0;
    const workspace::ResolvedTrain given = resolve(r);
    QCOMPARE(m_opened, 0); // nothing to decide: the data wait for the next phase
    QVERIFY(!given.dataset);
    QCOMPARE(given.config.model, std::string("mlp"));
    QVERIFY(given.defaultsNote.empty());

    r = request("synthetic:dim=2,points=6"); // vectors: the MLP stays
    QCOMPARE(resolve(r).config.model, std::string("mlp"));
}

void TestTrainLaunch::aCoarseMappingNamesTheLabelSet()
{
    workspace::TrainRequest r = request("synthetic:dim=2,points=6");
    r.coarseMapping = writeMapping(m_dir.filePath("halves.json"), "halves", "low", "high");
    const workspace::ResolvedTrain resolved = resolve(r);
    QVERIFY(resolved.coarse);
    QCOMPARE(resolved.config.labelSet, std::string("halves"));

    // Without a project: the run's dataset has the derived set, 2 classes, nothing saved.
    workspace::Workspace ws(m_registry);
    const workspace::PreparedTrain prepared = workspace::prepareTrainData(resolved, r, ws, m_open);
    QVERIFY(prepared.notes.empty());
    QVERIFY(!ws.project());
    QCOMPARE(ws.dataset()->requireLabelSet("halves").classNames, (std::vector<std::string>{"low", "high"}));

    r.labelSetGiven = true; // --label-set wins over the mapping's name
    r.config.labelSet = "fine";
    QCOMPARE(resolve(r).config.labelSet, std::string("fine"));
}

void TestTrainLaunch::badSettingsFailBeforeAnyData()
{
    workspace::TrainRequest r = request("synthetic:dim=2,points=6");
    r.modelGiven = true;
    r.config.loss = "no-such-loss";
    m_opened = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolve(r));
    QCOMPARE(m_opened, 0);
    r.config.loss = "triplet";
    r.itemOptions = {{"margin", "-1"}}; // outside the triplet margin's range
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolve(r));
    r.itemOptions = {};
    r.coarseMapping = m_dir.filePath("missing.json").toStdString();
    QVERIFY_THROWS_EXCEPTION(std::exception, resolve(r));
    QCOMPARE(m_opened, 0);
}

void TestTrainLaunch::batchPartsForLocalRanks()
{
    train::TrainerConfig c;
    c.batchShards = 1;
    QCOMPARE(workspace::batchShardsFor(c, false, 2), 2); // one part per rank
    QCOMPARE(workspace::batchShardsFor(c, false, 1), 1);
    c.batchShards = 4;
    QCOMPARE(workspace::batchShardsFor(c, true, 2), 4);
    c.batchShards = 3;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, workspace::batchShardsFor(c, true, 2));
    c.batchShards = 1;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, workspace::batchShardsFor(c, true, 2)); // asked for 1
}

void TestTrainLaunch::preparedDataIsInTheProject()
{
    workspace::TrainRequest r = request("synthetic:dim=2,points=6");
    r.coarseMapping = writeMapping(m_dir.filePath("pairs.json"), "pairs", "a", "b");
    r.project = m_dir.filePath("p/one.setscope").toStdString();
    const workspace::ResolvedTrain resolved = resolve(r);
    workspace::Workspace ws(m_registry);
    const workspace::PreparedTrain prepared = workspace::prepareTrainData(resolved, r, ws, m_open);
    QVERIFY(ws.inProject());
    QCOMPARE(prepared.notes.size(), std::size_t(1));
    QVERIFY2(prepared.notes[0].find("label set 'pairs' derived in the project") != std::string::npos,
             prepared.notes[0].c_str());
    QVERIFY(ws.dataset()->labelSet("pairs"));
    // Again: the set is there already, derived again with nothing changed.
    workspace::Workspace again(m_registry);
    const workspace::PreparedTrain second = workspace::prepareTrainData(resolved, r, again, m_open);
    QVERIFY2(second.notes[0].find("re-derived in the project (0 items changed)") != std::string::npos,
             second.notes[0].c_str());
}

QTEST_GUILESS_MAIN(TestTrainLaunch)
#include "tst_TrainLaunch.moc"
