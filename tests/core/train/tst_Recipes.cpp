// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Recipes trained end to end on tiny sets: stage transitions (ρ re-initialised for
// fine-tuning), what each stage reads, resume across stages, loss parameters in checkpoints,
// what a loss gets to see, and best-validation model selection. A plugin-style "recording"
// loss registered in the test's registry shows the trainer's LossContext.
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/eval/Metrics.h"
#include "core/ot/Emd.h"
#include "core/ot/PairwiseMatrix.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"

#include <setscope/sdk/Model.h>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <QtTest>

#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>

using namespace setscope;
namespace fs = std::filesystem;

namespace {

constexpr int kClasses = 3;
constexpr int kPerClass = 16;
constexpr double kLr = 1e-3; // Adam's default: one step moves a weight by at most this much

/// kClasses x kPerClass sets of 2..6 points in 4-d around a class centre; every 4th item of a
/// class is in the test split. Label set "fine", all unlabelled when !labelled.
std::shared_ptr<const data::Dataset> pointSets(bool labelled = true)
{
    data::DatasetBuilder b("test point sets");
    b.setName(labelled ? "points" : "unlabelled points");
    b.setDimension(4);
    std::mt19937_64 rng(5);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    std::vector<std::int32_t> labels;
    for (int c = 0; c < kClasses; ++c)
        for (int k = 0; k < kPerClass; ++k) {
            const std::size_t n = 2 + std::size_t(k % 5);
            std::vector<float> v(n * 4), w(n, 1.0f);
            for (std::size_t e = 0; e < n; ++e)
                for (std::size_t d = 0; d < 4; ++d)
                    v[e * 4 + d] = (d == std::size_t(c) ? 1.0f : 0.0f) + noise(rng);
            b.addItem(v.data(), w.data(), n, k % 4 == 0 ? data::Split::Test : data::Split::Train);
            labels.push_back(c);
        }
    b.defineLabelSet("fine", {"a", "b", "c"});
    for (std::size_t i = 0; i < labels.size(); ++i)
        b.setLabel("fine", i, labelled ? labels[i] : sdk::kUnlabelled);
    return std::make_shared<const data::Dataset>(b.finish());
}

/// A recipe run of the tiny self-attention encoder (no dropout: an augmented view's embedding
/// differs from the set's only through the view) on one thread, no evaluation.
train::TrainerConfig tiny(const std::string& recipe)
{
    train::TrainerConfig c;
    c.recipe = recipe;
    c.model = "selfattn";
    c.modelOptions = {{"layers", "1"}, {"heads", "2"}, {"ff", "8"}, {"rho", "8"}, {"dropout", "0"}};
    c.embeddingDim = 8;
    c.epochs = 2;
    c.snapshotEvery = 0;
    c.evaluateEachEpoch = false;
    c.device = "cpu";
    c.threads = 1;
    return c;
}

/// What the recording loss saw in one step.
struct Seen {
    std::vector<std::int64_t> items;
    std::vector<std::int64_t> labels;
    torch::Tensor emd;       ///< B x B, undefined when not asked for
    torch::Tensor embeddings;
    torch::Tensor augmented; ///< undefined when not asked for
    bool setsGiven = false;
    bool transportGiven = false;
};

struct Recorder {
    std::mutex mutex;
    std::vector<Seen> steps;
};

/// A loss as a plugin would write one: options select what it asks for; it records the
/// LossContext and pulls each set towards its augmented view (or its batch neighbour).
class RecordingLoss final : public sdk::MetricLoss {
public:
    RecordingLoss(const sdk::LossSpec& spec, std::shared_ptr<Recorder> recorder)
        : m_recorder(std::move(recorder))
    {
        m_needs.labels = spec.options.flag("labels");
        m_needs.transport = spec.options.flag("transport");
        m_needs.augmentedView = spec.options.flag("augmented");
    }
    sdk::LossNeeds needs() const override { return m_needs; }
    sdk::LossOutput forward(const sdk::LossContext& c) override
    {
        Seen s;
        const torch::Tensor items = c.items.cpu(), labels = c.labels.cpu();
        s.items.assign(items.data_ptr<std::int64_t>(), items.data_ptr<std::int64_t>() + items.numel());
        s.labels.assign(labels.data_ptr<std::int64_t>(), labels.data_ptr<std::int64_t>() + labels.numel());
        if (c.emd.defined())
            s.emd = c.emd.detach().cpu().clone();
        s.embeddings = c.embeddings.detach().cpu().clone();
        if (c.augmented.defined())
            s.augmented = c.augmented.detach().cpu().clone();
        s.setsGiven = c.sets != nullptr;
        s.transportGiven = c.transport != nullptr;
        {
            std::lock_guard lock(m_recorder->mutex);
            m_recorder->steps.push_back(std::move(s));
        }
        const torch::Tensor other = c.augmented.defined() ? c.augmented : c.embeddings.roll(1, 0);
        return {(c.embeddings - other).pow(2).sum(1).mean(), c.embeddings.size(0), c.embeddings.size(0)};
    }

private:
    sdk::LossNeeds m_needs;
    std::shared_ptr<Recorder> m_recorder;
};

/// The parameters of a checkpoint's encoder ("model") by name.
using Weights = std::map<std::string, torch::Tensor>;

torch::serialize::InputArchive openCheckpoint(const std::string& path)
{
    torch::serialize::InputArchive ar;
    ar.load_from(path);
    return ar;
}

train::TrainerConfig configOf(torch::serialize::InputArchive& ar)
{
    c10::IValue v;
    ar.read("config", v);
    return train::TrainerConfig::fromJson(nlohmann::json::parse(v.toStringRef()));
}

Weights parameters(torch::nn::Module& m)
{
    Weights out;
    for (const auto& p : m.named_parameters())
        out[p.key()] = p.value().detach().clone();
    return out;
}

Weights encoderWeights(const std::string& path, const plugin::Registry& registry, const data::Dataset& ds)
{
    auto ar = openCheckpoint(path);
    const train::TrainerConfig c = configOf(ar);
    const sdk::EncoderInfo& info = registry.requireEncoder(c.model);
    sdk::EncoderSpec spec;
    spec.inputDim = ds.dim();
    spec.outputDim = c.embeddingDim;
    spec.options = sdk::OptionValues::resolve(info.options, c.modelOptions, "model");
    const auto enc = info.create(spec);
    torch::serialize::InputArchive m;
    ar.read("model", m);
    enc->load(m);
    return parameters(*enc);
}

/// The parameters of the cross-entropy classifier stored with a checkpoint ("loss").
Weights classifierWeights(const std::string& path, const plugin::Registry& registry)
{
    auto ar = openCheckpoint(path);
    const train::TrainerConfig c = configOf(ar);
    const sdk::LossInfo& info = registry.requireLoss("cross-entropy");
    sdk::LossSpec spec;
    spec.options = sdk::OptionValues::resolve(info.options, {}, "loss");
    spec.embeddingDim = c.embeddingDim;
    spec.numClasses = kClasses;
    const auto loss = info.create(spec);
    torch::serialize::InputArchive l;
    ar.read("loss", l);
    loss->load(l);
    return parameters(*loss);
}

std::int64_t stepOf(const std::string& path)
{
    auto ar = openCheckpoint(path);
    c10::IValue v;
    ar.read("step", v);
    return v.toInt();
}

std::string ckpt(const std::string& dir, std::int64_t step)
{
    char name[64];
    std::snprintf(name, sizeof name, "step-%09lld.pt", static_cast<long long>(step));
    return (fs::path(dir) / name).string();
}

QByteArray readBytes(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool identical(const Weights& a, const Weights& b)
{
    if (a.size() != b.size())
        return false;
    for (const auto& [k, t] : a)
        if (!b.count(k) || !torch::equal(t, b.at(k)))
            return false;
    return true;
}

struct Sink : train::TrainingSink {
    std::vector<std::string> messages;
    std::vector<train::EpochMetrics> epochs;
    void message(const std::string& m) override { messages.push_back(m); }
    void epochMetrics(const train::EpochMetrics& m) override { epochs.push_back(m); }
    bool said(const std::string& part) const
    {
        for (const auto& m : messages)
            if (m.find(part) != std::string::npos)
                return true;
        return false;
    }
    QString all() const
    {
        QString s;
        for (const auto& m : messages)
            s += QString::fromStdString(m) + "\n";
        return s;
    }
};

double extra(const train::EpochMetrics& m, const std::string& key)
{
    return m.value(key).value_or(-1.0);
}

} // namespace

class TestRecipes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void fineTuningResetsOnlyRho();
    void selfSupervisedStagesReadNoLabels();
    void labelFractionUsesTheStratifiedSubset();
    void resumeAcrossStagesIsIdentical_data();
    void resumeAcrossStagesIsIdentical();
    void lossParametersTrainAndResume();
    void augmentedViewReachesTheLoss();
    void emdMatrixIsTheBatchsExactEmd();
    void batchEmdsComeFromTheCache();
    void bestValidationEpochIsTheModel();
    void bestValidationSurvivesResume_data();
    void bestValidationSurvivesResume();

private:
    /// Runs `c` to the end; returns its history.
    std::vector<train::EpochMetrics> run(const train::TrainerConfig& c, Sink* sink = nullptr,
                                         std::shared_ptr<const data::Dataset> ds = nullptr);
    std::string dir(const QString& name) const { return m_dir.filePath(name).toStdString(); }

    plugin::Registry m_registry;
    std::shared_ptr<Recorder> m_recorder = std::make_shared<Recorder>();
    std::shared_ptr<const data::Dataset> m_ds;
    QTemporaryDir m_dir;
};

void TestRecipes::initTestCase()
{
    QVERIFY(m_dir.isValid());
    builtins::registerBuiltins(m_registry);
    auto recorder = m_recorder;
    m_registry.addLoss({"recording", "records what the trainer hands a loss (test)",
                        {sdk::OptionSpec::flag("labels", false, "ask for labels"),
                         sdk::OptionSpec::flag("transport", false, "ask for the batch's EMD matrix"),
                         sdk::OptionSpec::flag("augmented", false, "ask for the augmented view")},
                        [recorder](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> {
                            return std::make_shared<RecordingLoss>(s, recorder);
                        }});
    // ours+ps with the recording loss in place of WSSET: a plugin's variant of a recipe.
    const sdk::RecipeInfo& ps = m_registry.requireRecipe("ours+ps");
    auto stages = ps.stages(sdk::OptionValues::resolve(ps.options, {}, "recipe ours+ps"));
    for (sdk::RecipeStage& s : stages) {
        s.loss = "recording";
        s.lossOptions = {{"transport", "true"}, {"augmented", "true"}};
    }
    m_registry.addRecipe({"recording+ps", "ours+ps with the recording loss (test)", {},
                          [stages](const sdk::OptionValues&) { return stages; }});
    m_ds = pointSets();
}

std::vector<train::EpochMetrics> TestRecipes::run(const train::TrainerConfig& c, Sink* sink,
                                                  std::shared_ptr<const data::Dataset> ds)
{
    train::TrainingJob job(ds ? ds : m_ds, c, m_registry);
    Sink own;
    Sink* s = sink ? sink : &own;
    const job::JobStatus status = job.runHere(s);
    if (status != job::JobStatus::Finished)
        qWarning("%s", job.error().c_str());
    [&] { QCOMPARE(status, job::JobStatus::Finished); }();
    return job.history();
}

// Ours+Int. (seed 001 §5): the fine-tuning stage starts from the pre-trained encoder with ρ
// re-initialised. Checkpoints after every step: the first fine-tuning step moves each weight
// outside ρ by at most one Adam step (|Δ| <= lr) from where pre-training left it, while ρ
// holds fresh weights.
void TestRecipes::fineTuningResetsOnlyRho()
{
    train::TrainerConfig c = tiny("int");
    c.recipeOptions = {{"pretrain-epochs", "2"}, {"finetune-epochs", "1"}};
    c.samplerOptions = {{"batch-size", "8"}, {"classes", "3"}, {"per-class", "4"}};
    c.checkpointEvery = 1;
    c.checkpointDir = dir("int-steps");
    const auto history = run(c);
    QVERIFY(!QTest::currentTestFailed());
    std::int64_t boundary = -1;
    for (const auto& m : history)
        if (m.stage == "pre-train")
            boundary = m.step;
    QVERIFY(boundary > 1);
    QCOMPARE(history.back().stage, std::string("fine-tune"));

    const Weights before = encoderWeights(ckpt(c.checkpointDir, boundary - 1), m_registry, *m_ds);
    const Weights pre = encoderWeights(ckpt(c.checkpointDir, boundary), m_registry, *m_ds);
    const Weights fine = encoderWeights(ckpt(c.checkpointDir, boundary + 1), m_registry, *m_ds);
    QCOMPARE(pre.size(), fine.size());
    int rhoTensors = 0, rhoElements = 0, rhoFar = 0;
    double restMoved = 0.0;
    for (const auto& [name, p] : pre) {
        const torch::Tensor d = (fine.at(name) - p).abs();
        if (name.rfind("rho.", 0) == 0) {
            ++rhoTensors;
            rhoElements += int(d.numel());
            rhoFar += int((d > 10 * kLr).sum().item<std::int64_t>());
            // Within pre-training ρ only moves by optimizer steps.
            QVERIFY2((p - before.at(name)).abs().max().item<double>() < 10 * kLr, name.c_str());
        } else {
            const double m = d.max().item<double>();
            // One Adam step, plus the float32 rounding of weights near 1.
            QVERIFY2(m <= kLr + 1e-6, qPrintable(QStringLiteral("%1 moved by %2").arg(name.c_str()).arg(m)));
            restMoved = std::max(restMoved, m);
        }
    }
    QCOMPARE(rhoTensors, 4); // rho: Linear(4, 8), ReLU, Linear(8, 8)
    QVERIFY2(rhoFar >= rhoElements * 95 / 100, qPrintable(QStringLiteral("%1 of %2").arg(rhoFar).arg(rhoElements)));
    QVERIFY2(restMoved > 0.5 * kLr, "the encoder below rho is not fine-tuned"); // trained, not frozen
}

// A self-supervised stage reads no labels: `ours` trains on a dataset whose label set has no
// label at all (and without one), and the labels a self-supervised loss sees are all -1.
void TestRecipes::selfSupervisedStagesReadNoLabels()
{
    const auto unlabelled = pointSets(false);
    train::TrainerConfig c = tiny("ours");
    c.samplerOptions = {{"batch-size", "8"}};
    c.evaluateEachEpoch = true; // scoring on a label set without labels must not fail either
    Sink sink;
    const auto h = run(c, &sink, unlabelled);
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(h.size(), std::size_t(2));
    QVERIFY(std::isfinite(h.back().meanLoss));
    QVERIFY2(sink.said("no validation split"), qPrintable(sink.all()));

    c.labelSet = "none-such"; // no label set of that name
    run(c, nullptr, unlabelled);
    QVERIFY(!QTest::currentTestFailed());

    // On labelled data, the loss of a self-supervised stage gets -1 for every row.
    c = tiny("recording+ps");
    c.samplerOptions = {{"batch-size", "8"}};
    c.maxSteps = 3;
    m_recorder->steps.clear();
    run(c);
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(m_recorder->steps.size(), std::size_t(3));
    for (const Seen& s : m_recorder->steps)
        for (std::int64_t l : s.labels)
            QCOMPARE(l, std::int64_t(-1));
}

// Semi-supervised fine-tuning (seed 001 §7.3): the supervised stage trains on a stratified
// share of the labelled training pool; the self-supervised stage on the whole pool.
void TestRecipes::labelFractionUsesTheStratifiedSubset()
{
    // 12 training items per class, no validation split: 25 % is 3 per class.
    train::TrainerConfig c = tiny("int");
    c.validationFraction = 0.0;
    c.labelFraction = 0.25;
    c.recipeOptions = {{"pretrain-epochs", "1"}, {"finetune-epochs", "1"}};
    c.samplerOptions = {{"batch-size", "8"}, {"classes", "3"}, {"per-class", "2"}};
    Sink sink;
    run(c, &sink);
    QVERIFY(!QTest::currentTestFailed());
    QVERIFY2(sink.said("pre-train: wsset on 'points', 36 items"), qPrintable(sink.all()));
    QVERIFY2(sink.said("fine-tune: triplet on 'points', 9 labelled items"), qPrintable(sink.all()));

    // Which items: a supervised recording loss, 1 % (at least one per class).
    for (const double fraction : {0.25, 0.01}) {
        train::TrainerConfig r = tiny("");
        r.loss = "recording";
        r.lossOptions = {{"labels", "true"}};
        r.labelFraction = fraction;
        r.sampler = "random"; // every pool item in every epoch (class-balanced needs 2 per class)
        r.epochs = 6;
        m_recorder->steps.clear();
        Sink s;
        run(r, &s);
        QVERIFY(!QTest::currentTestFailed());
        const int perClass = fraction == 0.25 ? 3 : 1;
        QVERIFY2(s.said(std::to_string(kClasses * perClass) + " labelled items"), qPrintable(s.all()));
        std::map<std::int64_t, std::set<std::int64_t>> byClass;
        for (const Seen& seen : m_recorder->steps)
            for (std::size_t k = 0; k < seen.items.size(); ++k) {
                const auto item = std::size_t(seen.items[k]);
                QCOMPARE(m_ds->split(item), data::Split::Train);
                QCOMPARE(seen.labels[k], std::int64_t(m_ds->labelSet("fine")->labels[item]));
                byClass[seen.labels[k]].insert(seen.items[k]);
            }
        QCOMPARE(int(byClass.size()), kClasses);
        for (const auto& [label, items] : byClass)
            QCOMPARE(int(items.size()), perClass);
    }
}

void TestRecipes::resumeAcrossStagesIsIdentical_data()
{
    QTest::addColumn<QString>("finetune");
    QTest::addColumn<QString>("dropout");
    QTest::newRow("triplet") << "triplet" << "0";
    QTest::newRow("cross-entropy") << "cross-entropy" << "0";
    QTest::newRow("triplet, dropout") << "triplet" << "0.1";
}

// Resuming from any checkpoint, before, at or after the stage boundary, gives the weights of
// the uninterrupted run, bit for bit on one thread.
void TestRecipes::resumeAcrossStagesIsIdentical()
{
    QFETCH(QString, finetune);
    QFETCH(QString, dropout);
    const QString tag = finetune + "-" + dropout;
    train::TrainerConfig c = tiny("int");
    c.modelOptions["dropout"] = dropout.toStdString();
    c.recipeOptions = {{"pretrain-epochs", "2"}, {"finetune-epochs", "2"}, {"finetune", finetune.toStdString()}};
    c.samplerOptions = {{"batch-size", "8"}};
    if (finetune == "triplet")
        c.samplerOptions.insert({{"classes", "3"}, {"per-class", "4"}});
    c.checkpointDir = dir("full-" + tag);
    const auto history = run(c);
    QVERIFY(!QTest::currentTestFailed());
    std::int64_t boundary = -1;
    for (const auto& m : history)
        if (m.stage == "pre-train")
            boundary = m.step;
    const std::int64_t last = history.back().step;
    const Weights want = encoderWeights(ckpt(c.checkpointDir, last), m_registry, *m_ds);
    // Epoch ends: mid pre-training, the boundary, mid fine-tuning.
    std::vector<std::int64_t> from;
    for (const auto& m : history)
        if (m.step < last)
            from.push_back(m.step);
    QVERIFY(std::find(from.begin(), from.end(), boundary) != from.end());
    QVERIFY(from.front() < boundary && from.back() > boundary);
    for (std::int64_t step : from) {
        train::TrainerConfig r = c;
        r.resumeFrom = ckpt(c.checkpointDir, step);
        r.checkpointDir = dir(QStringLiteral("resume-%1-%2").arg(tag).arg(step));
        Sink sink;
        const auto h = run(r, &sink);
        QVERIFY(!QTest::currentTestFailed());
        QVERIFY2(sink.said("an exact continuation"), qPrintable(sink.all()));
        QCOMPARE(h.size(), history.size());
        QVERIFY2(identical(encoderWeights(ckpt(r.checkpointDir, last), m_registry, *m_ds), want),
                 qPrintable(QStringLiteral("resumed at step %1 (boundary %2) differs").arg(step).arg(boundary)));
        if (finetune == "cross-entropy")
            QVERIFY(identical(classifierWeights(ckpt(r.checkpointDir, last), m_registry),
                              classifierWeights(ckpt(c.checkpointDir, last), m_registry)));
    }
}

// The cross-entropy classifier is a loss parameter: trained with the encoder, stored in every
// checkpoint and restored on resume (a fresh classifier would give other weights).
void TestRecipes::lossParametersTrainAndResume()
{
    train::TrainerConfig c = tiny("ce");
    c.epochs = 3;
    c.samplerOptions = {{"batch-size", "8"}};
    c.checkpointDir = dir("ce");
    const auto history = run(c);
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(history.size(), std::size_t(3));
    const std::int64_t first = history.front().step, last = history.back().step;
    const Weights w1 = classifierWeights(ckpt(c.checkpointDir, first), m_registry);
    const Weights w3 = classifierWeights(ckpt(c.checkpointDir, last), m_registry);
    QCOMPARE(w1.size(), std::size_t(2)); // classifier weight and bias
    for (const auto& [name, t] : w1) {
        const double moved = (w3.at(name) - t).abs().max().item<double>();
        QVERIFY2(moved > kLr, qPrintable(QStringLiteral("%1 moved by %2").arg(name.c_str()).arg(moved)));
    }

    train::TrainerConfig r = c;
    r.resumeFrom = ckpt(c.checkpointDir, first);
    r.checkpointDir = dir("ce-resumed");
    run(r);
    QVERIFY(!QTest::currentTestFailed());
    QVERIFY(identical(classifierWeights(ckpt(r.checkpointDir, last), m_registry), w3));
    QVERIFY(identical(encoderWeights(ckpt(r.checkpointDir, last), m_registry, *m_ds),
                      encoderWeights(ckpt(c.checkpointDir, last), m_registry, *m_ds)));
}

// ours+ps (seed 001 Eq. 7): the loss sees the embedding of each set's PointSwap view next to
// the set's own. The real recipe trains; its variant with the recording loss shows the view.
void TestRecipes::augmentedViewReachesTheLoss()
{
    train::TrainerConfig c = tiny("ours+ps");
    c.samplerOptions = {{"batch-size", "8"}};
    c.maxSteps = 3;
    Sink sink;
    run(c, &sink);
    QVERIFY(!QTest::currentTestFailed());
    QVERIFY2(sink.said("self-supervised: wsset + pointswap on 'points'"), qPrintable(sink.all()));

    c.recipe = "recording+ps";
    m_recorder->steps.clear();
    run(c);
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(m_recorder->steps.size(), std::size_t(3));
    for (const Seen& s : m_recorder->steps) {
        QVERIFY(s.augmented.defined());
        QVERIFY(s.augmented.sizes() == s.embeddings.sizes());
        QCOMPARE(s.augmented.size(0), std::int64_t(s.items.size()));
        QVERIFY(s.setsGiven && s.transportGiven);
        // Views, not copies: PointSwap changes the sets, so their embeddings differ.
        QVERIFY(!torch::allclose(s.augmented, s.embeddings));
    }
}

// The EMD matrix a loss gets is the exact EMD (ot::emd) between the batch's original sets,
// in the order of LossContext::items.
void TestRecipes::emdMatrixIsTheBatchsExactEmd()
{
    train::TrainerConfig c = tiny("");
    c.loss = "recording";
    c.lossOptions = {{"transport", "true"}};
    c.samplerOptions = {{"batch-size", "8"}};
    c.maxSteps = 5;
    m_recorder->steps.clear();
    run(c);
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(m_recorder->steps.size(), std::size_t(5));
    for (const Seen& s : m_recorder->steps) {
        QVERIFY(s.emd.defined());
        QVERIFY(s.emd.scalar_type() == torch::kFloat32);
        const auto b = std::int64_t(s.items.size());
        QVERIFY(s.emd.dim() == 2 && s.emd.size(0) == b && s.emd.size(1) == b);
        QVERIFY(!s.augmented.defined()); // not asked for
        const auto e = s.emd.accessor<float, 2>();
        for (std::int64_t i = 0; i < b; ++i)
            for (std::int64_t j = 0; j < b; ++j) {
                const double want = i == j ? 0.0
                                           : ot::emd(ot::pointSet(*m_ds, std::size_t(s.items[std::size_t(i)])),
                                                     ot::pointSet(*m_ds, std::size_t(s.items[std::size_t(j)])))
                                                 .emd;
                QVERIFY2(std::abs(e[i][j] - want) <= 1e-6 * std::max(1.0, want),
                         qPrintable(QStringLiteral("(%1, %2): %3 vs %4").arg(i).arg(j).arg(e[i][j]).arg(want)));
            }
    }
}

// With a finished pairwise EMD matrix of the dataset in the cache (emd_cache auto, the
// default), every pair of every batch is read from it: the epoch rows count no solve, and the
// loss gets the matrix's values. Without one, or with emd_cache off, or with a damaged file,
// every pair is solved. The counts are checked against the pairs of the batches the loss saw.
void TestRecipes::batchEmdsComeFromTheCache()
{
    QTemporaryDir cacheHome;
    QVERIFY(cacheHome.isValid());
    qputenv("XDG_CACHE_HOME", cacheHome.path().toUtf8()); // the trainer looks in the default cache
    struct Restore {
        ~Restore() { qunsetenv("XDG_CACHE_HOME"); }
    } restore;

    train::TrainerConfig c = tiny("");
    c.loss = "recording";
    c.lossOptions = {{"transport", "true"}};
    c.samplerOptions = {{"batch-size", "8"}};
    c.epochs = 1;
    // The distinct pairs of the batches the loss saw in the last run.
    auto pairsSeen = [&] {
        double pairs = 0;
        for (const Seen& s : m_recorder->steps)
            for (std::size_t i = 0; i < s.items.size(); ++i)
                for (std::size_t j = i + 1; j < s.items.size(); ++j)
                    pairs += s.items[i] != s.items[j] ? 1 : 0;
        return pairs;
    };
    auto runOnce = [&](const train::TrainerConfig& cfg, Sink& sink) {
        m_recorder->steps.clear();
        const auto h = run(cfg, &sink);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(h.size(), std::size_t(1));
        QVERIFY(pairsSeen() > 0);
    };

    Sink none;
    runOnce(c, none);
    QVERIFY2(none.said("no cached emd matrix of this dataset"), qPrintable(none.all()));
    QCOMPARE(extra(none.epochs.back(), "emd-solved"), pairsSeen());
    QCOMPARE(extra(none.epochs.back(), "emd-cached"), 0.0);

    ot::PairwiseJob pairwise(m_ds, ot::PairwiseOptions{});
    QCOMPARE(pairwise.runHere(nullptr), job::JobStatus::Finished);
    const auto matrix = pairwise.result();
    QVERIFY(matrix);
    QVERIFY(QString::fromStdString(pairwise.cachePath()).startsWith(cacheHome.path()));

    Sink cached;
    runOnce(c, cached);
    QVERIFY2(cached.said("using " + pairwise.cachePath()), qPrintable(cached.all()));
    QCOMPARE(extra(cached.epochs.back(), "emd-solved"), 0.0);
    QCOMPARE(extra(cached.epochs.back(), "emd-cached"), pairsSeen());
    for (const Seen& s : m_recorder->steps) {
        const auto e = s.emd.accessor<float, 2>();
        for (std::size_t i = 0; i < s.items.size(); ++i)
            for (std::size_t j = 0; j < s.items.size(); ++j)
                QCOMPARE(e[std::int64_t(i)][std::int64_t(j)], i == j ? 0.0f : matrix->at(s.items[i], s.items[j]));
    }

    train::TrainerConfig off = c;
    off.emdCache = "off";
    Sink solved;
    runOnce(off, solved);
    QVERIFY(!solved.said("EMDs of '"));
    QCOMPARE(extra(solved.epochs.back(), "emd-solved"), pairsSeen());
    QCOMPARE(extra(solved.epochs.back(), "emd-cached"), 0.0);

    // A damaged file is not used (and not repaired by training).
    {
        QFile f(QString::fromStdString(pairwise.cachePath()));
        QVERIFY(f.open(QIODevice::ReadWrite));
        const qint64 at = f.size() - 8; // a value of the last rows
        QVERIFY(f.seek(at));
        QVERIFY(f.write("\x01\x02\x03\x04", 4) == 4);
    }
    Sink damaged;
    runOnce(c, damaged);
    QVERIFY2(damaged.said("does not match its checksum") || damaged.said("not symmetric"), qPrintable(damaged.all()));
    QCOMPARE(extra(damaged.epochs.back(), "emd-solved"), pairsSeen());
}

// Recipes hold out a validation share; the run's model is the weights of the best
// validation epoch of the last stage: written to best.pt and scored as the final history row.
void TestRecipes::bestValidationEpochIsTheModel()
{
    train::TrainerConfig c = tiny("tl");
    c.epochs = 8;
    c.evaluateEachEpoch = true;
    c.samplerOptions = {{"classes", "3"}, {"per-class", "4"}};
    c.optimizerOptions = {{"lr", "0.05"}}; // a large step: validation accuracy moves around
    c.checkpointDir = dir("best");
    train::TrainingJob job(m_ds, c, m_registry);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    const auto h = job.history();
    const std::string best = (fs::path(c.checkpointDir) / "best.pt").string();
    QCOMPARE(job.bestCheckpoint(), best);
    QVERIFY(fs::exists(best));

    // The first epoch with the highest validation kNN accuracy.
    const train::EpochMetrics* top = nullptr;
    for (const auto& m : h)
        if (m.stage == "supervised" && (!top || extra(m, "validation-knn") > extra(*top, "validation-knn")))
            top = &m;
    QVERIFY(top);
    QVERIFY(extra(*top, "validation-knn") >= 0);
    const train::EpochMetrics& final = h.back();
    QCOMPARE(final.epoch, top->epoch);
    QCOMPARE(extra(final, "knn-accuracy"), extra(*top, "knn-accuracy"));
    for (const char* k : {"recall-hit@1", "recall-hit@8", "recall-class@4", "precision@2"})
        QCOMPARE(extra(final, k), extra(*top, k));
    if (top != &final) {
        QCOMPARE(QString::fromStdString(final.stage), QStringLiteral("best (epoch %1)").arg(top->epoch));
        QCOMPARE(h.size(), std::size_t(9));
    } else {
        QCOMPARE(h.size(), std::size_t(8));
    }
    QCOMPARE(stepOf(best), top->step);
    // best.pt holds those weights: the same scores from the file.
    const auto e = train::embedWithCheckpoint(best, *m_ds, m_registry);
    const auto ev = eval::evaluateMetrics(*m_ds, e.data.data(), e.dim, "fine", eval::standardMetrics());
    QCOMPARE(ev.front().name, std::string("knn-accuracy"));
    QCOMPARE(ev.front().value, extra(final, "knn-accuracy"));
    qInfo("best epoch %d of 8 (validation kNN %.3f)", top->epoch, extra(*top, "validation-knn"));
}

// A run resumed after its best validation epoch keeps that epoch as its model: the same
// final row and best.pt as the uninterrupted run. Resumed into another folder, it takes the
// old best.pt along as it is; when that file is gone, it writes it from the best weights its
// checkpoint carries, and those are the weights of the uninterrupted run's best epoch.
void TestRecipes::bestValidationSurvivesResume_data()
{
    QTest::addColumn<bool>("oldFileKept");
    QTest::newRow("best.pt taken along") << true;
    QTest::newRow("best.pt gone") << false;
}

void TestRecipes::bestValidationSurvivesResume()
{
    QFETCH(bool, oldFileKept);
    const QString tag = oldFileKept ? "kept" : "gone";
    train::TrainerConfig c = tiny("tl");
    c.epochs = 6;
    c.evaluateEachEpoch = true;
    c.samplerOptions = {{"classes", "3"}, {"per-class", "4"}};
    c.optimizerOptions = {{"lr", "0.05"}};
    c.checkpointDir = dir("best-full-" + tag);
    const auto h = run(c);
    QVERIFY(!QTest::currentTestFailed());
    const train::EpochMetrics& want = h.back();
    QVERIFY2(want.stage.rfind("best", 0) == 0, "the data no longer give an early best epoch");
    QVERIFY(want.epoch < 5);
    const std::string oldBest = (fs::path(c.checkpointDir) / "best.pt").string();
    const QByteArray oldBytes = readBytes(oldBest);
    const Weights bestWeights = encoderWeights(oldBest, m_registry, *m_ds);
    if (!oldFileKept)
        QVERIFY(fs::remove(oldBest));

    train::TrainerConfig r = c;
    r.resumeFrom = ckpt(c.checkpointDir, h[std::size_t(want.epoch)].step); // after the best epoch
    r.checkpointDir = dir("best-resumed-" + tag);
    Sink sink;
    const auto g = run(r, &sink);
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(g.back().stage, want.stage);
    QCOMPARE(g.back().epoch, want.epoch);
    QCOMPARE(extra(g.back(), "knn-accuracy"), extra(want, "knn-accuracy"));
    const std::string best = (fs::path(r.checkpointDir) / "best.pt").string();
    QCOMPARE(stepOf(best), h[std::size_t(want.epoch - 1)].step);
    QVERIFY(identical(encoderWeights(best, m_registry, *m_ds), bestWeights));
    if (oldFileKept)
        QCOMPARE(readBytes(best), oldBytes);
    else
        QVERIFY2(sink.said("from the checkpoint's best weights"), qPrintable(sink.all()));
}

QTEST_GUILESS_MAIN(TestRecipes)
#include "tst_Recipes.moc"
