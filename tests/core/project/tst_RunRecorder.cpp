// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// prepareTrainingRun(): the one place where the CLI and the GUI set up a training run, and
// what a recorded run leaves in the project (its row, folder, metrics and checkpoints).
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/plugin/Registry.h"
#include "core/project/ProjectStore.h"
#include "core/project/RunRecorder.h"
#include "core/train/TrainingJob.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <random>
#include <set>

using namespace setscope;
namespace fs = std::filesystem;

namespace {

/// 2 classes x 12 vectors in 3-d; every 4th item of a class in the test split.
std::shared_ptr<const data::Dataset> vectors()
{
    data::DatasetBuilder b("test vectors");
    b.setName("vectors");
    b.setDimension(3);
    std::mt19937_64 rng(3);
    std::normal_distribution<float> noise(0.0f, 0.3f);
    std::vector<std::int32_t> labels;
    for (int c = 0; c < 2; ++c)
        for (int k = 0; k < 12; ++k) {
            const float v[3] = {float(c) + noise(rng), noise(rng), noise(rng)};
            b.addItem(v, nullptr, 1, k % 4 == 0 ? data::Split::Test : data::Split::Train);
            labels.push_back(c);
        }
    b.defineLabelSet("fine", {"a", "b"});
    for (std::size_t i = 0; i < labels.size(); ++i)
        b.setLabel("fine", i, labels[i]);
    return std::make_shared<const data::Dataset>(b.finish());
}

train::TrainerConfig config()
{
    train::TrainerConfig c;
    c.model = "mlp";
    c.loss = "triplet";
    c.samplerOptions = {{"classes", "2"}, {"per-class", "4"}};
    c.epochs = 2;
    c.snapshotEvery = 0;
    c.device = "cpu";
    c.threads = 1;
    return c;
}

struct Forward : train::TrainingSink {
    int epochs = 0;
    std::vector<std::string> checkpoints;
    bool finishedCalled = false;
    void epochMetrics(const train::EpochMetrics&) override { ++epochs; }
    void checkpointWritten(std::int64_t, const std::string& path) override { checkpoints.push_back(path); }
    void finished(job::JobStatus, const std::string&) override { finishedCalled = true; }
};

} // namespace

class TestRunRecorder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void recordedRunGetsItsFolderAndRow();
    void eachRunGetsItsOwnFolder();
    void givenFolderIsKept();
    void badConfigurationRecordsNothing();
    void withoutAProjectNothingIsRecorded();

private:
    std::shared_ptr<project::ProjectStore> store(const QString& name);

    QTemporaryDir m_dir;
    plugin::Registry m_registry;
    std::shared_ptr<const data::Dataset> m_ds;
};

void TestRunRecorder::initTestCase()
{
    QVERIFY(m_dir.isValid());
    builtins::registerBuiltins(m_registry);
    m_ds = vectors();
}

std::shared_ptr<project::ProjectStore> TestRunRecorder::store(const QString& name)
{
    return project::ProjectStore::open(m_dir.filePath(name).toStdString());
}

// A run in a project gets a checkpoint folder of its own under the project's checkpoint folder;
// the row, the job and the checkpoints all name it; every epoch's metrics and every checkpoint
// reach the project and the next sink; the row ends "finished".
void TestRunRecorder::recordedRunGetsItsFolderAndRow()
{
    auto s = store("a.setscope");
    const auto attached = project::attachDataset(*s, *m_ds, "vectors");
    Forward next;
    project::TrainingRun run =
        project::prepareTrainingRun(s, attached.datasetId, attached.dataset, config(), m_registry, nullptr, &next);
    QVERIFY(run.job && run.recorder);
    QVERIFY(run.recordError.empty());
    QCOMPARE(run.sink, static_cast<train::TrainingSink*>(run.recorder.get()));
    const std::string folder = run.job->config().checkpointDir;
    QCOMPARE(fs::path(folder).parent_path().string(), s->checkpointDir());
    QVERIFY2(fs::path(folder).filename().string().rfind("run-", 0) == 0, folder.c_str());

    const auto rows = s->runs();
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].id, run.recorder->runId());
    QCOMPARE(rows[0].status, std::string("running"));
    QCOMPARE(nlohmann::json::parse(rows[0].configJson).at("checkpoint_dir").get<std::string>(), folder);

    QCOMPARE(run.job->runHere(run.sink), job::JobStatus::Finished);
    QCOMPARE(s->run(run.recorder->runId())->status, std::string("finished"));
    QCOMPARE(next.epochs, 2);
    QVERIFY(next.finishedCalled);
    const auto cks = s->checkpoints(run.recorder->runId());
    QCOMPARE(cks.size(), next.checkpoints.size());
    QVERIFY(!cks.empty());
    for (const auto& c : cks) {
        QCOMPARE(fs::path(c.path).parent_path().string(), folder);
        QVERIFY(fs::is_regular_file(c.path));
    }
    std::set<int> epochsWithKnn;
    for (const auto& m : s->metrics(run.recorder->runId()))
        if (m.name == "knn-accuracy")
            epochsWithKnn.insert(m.epoch);
    QCOMPARE(epochsWithKnn, (std::set<int>{1, 2}));
}

void TestRunRecorder::eachRunGetsItsOwnFolder()
{
    auto s = store("b.setscope");
    const auto attached = project::attachDataset(*s, *m_ds, "vectors");
    std::set<std::string> folders;
    for (int i = 0; i < 3; ++i) {
        const project::TrainingRun run =
            project::prepareTrainingRun(s, attached.datasetId, attached.dataset, config(), m_registry, nullptr, nullptr);
        folders.insert(run.job->config().checkpointDir);
    }
    QCOMPARE(folders.size(), std::size_t(3));
    QCOMPARE(s->runs().size(), std::size_t(3));
}

void TestRunRecorder::givenFolderIsKept()
{
    auto s = store("c.setscope");
    const auto attached = project::attachDataset(*s, *m_ds, "vectors");
    train::TrainerConfig c = config();
    c.checkpointDir = m_dir.filePath("mine").toStdString();
    const project::TrainingRun run =
        project::prepareTrainingRun(s, attached.datasetId, attached.dataset, c, m_registry, nullptr, nullptr);
    QCOMPARE(run.job->config().checkpointDir, c.checkpointDir);
    QCOMPARE(nlohmann::json::parse(s->runs().at(0).configJson).at("checkpoint_dir").get<std::string>(), c.checkpointDir);
}

// A configuration the job refuses throws before the project gets a row for it.
void TestRunRecorder::badConfigurationRecordsNothing()
{
    auto s = store("d.setscope");
    const auto attached = project::attachDataset(*s, *m_ds, "vectors");
    train::TrainerConfig c = config();
    c.labelFraction = 0.0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             project::prepareTrainingRun(s, attached.datasetId, attached.dataset, c, m_registry, nullptr,
                                                         nullptr));
    QVERIFY(s->runs().empty());
}

void TestRunRecorder::withoutAProjectNothingIsRecorded()
{
    Forward next;
    const project::TrainingRun run = project::prepareTrainingRun(nullptr, 0, m_ds, config(), m_registry, nullptr, &next);
    QVERIFY(run.job);
    QVERIFY(!run.recorder);
    QVERIFY(run.recordError.empty());
    QCOMPARE(run.sink, static_cast<train::TrainingSink*>(&next));
    QVERIFY(run.job->config().checkpointDir.empty());
}

QTEST_GUILESS_MAIN(TestRunRecorder)
#include "tst_RunRecorder.moc"
