// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// planRun / resolveSamplerOptions / applyItemOptions with the builtin registry: the stages
// every recipe plans, how options layer, and the errors a user sees. Torch-free.
#include "core/builtins/Builtins.h"
#include "core/plugin/Registry.h"
#include "core/train/RunPlan.h"

#include <QtTest>

#include <map>
#include <set>
#include <stdexcept>

using namespace setscope;

namespace {

/// One expected stage: "name|loss|augmentation|sampler|labels|flags|epochs", flags a subset
/// of "R" (resetHead) and "X" (external), labels "none", "train" or "semi" (then with
/// "/N" when labelsPerClass is N > 0).
QString describeStage(const train::PlannedStage& p)
{
    QString flags;
    if (p.stage.resetHead)
        flags += 'R';
    if (p.stage.external)
        flags += 'X';
    return QStringLiteral("%1|%2|%3|%4|%5|%6|%7")
        .arg(QString::fromStdString(p.stage.name), QString::fromStdString(p.loss->name),
             p.augmentation ? QString::fromStdString(p.augmentation->name) : QString(),
             p.sampler ? QString::fromStdString(p.sampler->name) : QString(),
             p.stage.labels == sdk::StageLabels::None       ? QStringLiteral("none")
             : p.stage.labels == sdk::StageLabels::Training ? QStringLiteral("train")
                                                            : QStringLiteral("semi") +
                                                                  (p.stage.labelsPerClass > 0
                                                                       ? "/" + QString::number(p.stage.labelsPerClass)
                                                                       : QString()),
             flags)
        .arg(p.epochs);
}

/// The message of the std::invalid_argument `f` throws ("" when it throws none).
template <class F>
QString errorOf(F&& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

train::TrainerConfig recipeConfig(const std::string& recipe)
{
    train::TrainerConfig c;
    c.recipe = recipe;
    c.epochs = 7;
    return c;
}

} // namespace

class TestRunPlan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void everyBuiltinRecipeIsCovered();
    void recipeStages_data();
    void recipeStages();
    void describeNamesTheStages();
    void withoutRecipe();
    void userOptionsOverRecipeOptions();
    void lossOptionGoesOnlyWhereDeclared();
    void samplerOptionsOfMultiStageRecipes();
    void paperPreset();
    void cpuPresetAndDatasetDefaults();
    void errors_data();
    void errors();
    void applyItemOptionsDistributes();
    void applyItemOptionsFollowsRecipeOptions();
    void applyItemOptionsRejects_data();
    void applyItemOptionsRejects();

private:
    plugin::Registry m_registry;
};

void TestRunPlan::initTestCase()
{
    builtins::registerBuiltins(m_registry);
}

// A new builtin recipe must come with its row in recipeStages_data.
void TestRunPlan::everyBuiltinRecipeIsCovered()
{
    std::set<std::string> names;
    for (const auto& r : m_registry.recipes())
        names.insert(r.name);
    const std::set<std::string> covered{"ours", "ours+ps", "ours+pd", "ours+pm", "sset", "approx-emd", "cont",
                                        "exemplar", "tl", "ce", "int", "ext", "uniformity", "locality-contrastive", "ssdml",
                                        "lrml", "seraph", "isdml", "apllr", "apit"};
    QCOMPARE(names, covered);
}

void TestRunPlan::recipeStages_data()
{
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<QVariantMap>("recipeOptions");
    QTest::addColumn<QStringList>("expected");
    const QVariantMap none;
    const QString ssl = QStringLiteral("self-supervised|%1|%2|random|none||7");
    QTest::newRow("ours") << "ours" << none << QStringList{ssl.arg("wsset", "")};
    QTest::newRow("ours+ps") << "ours+ps" << none << QStringList{ssl.arg("wsset", "pointswap")};
    QTest::newRow("ours+pd") << "ours+pd" << none << QStringList{ssl.arg("wsset", "pointdrop")};
    QTest::newRow("ours+pm") << "ours+pm" << none << QStringList{ssl.arg("wsset", "pointmixup")};
    QTest::newRow("sset") << "sset" << none << QStringList{ssl.arg("sset", "")};
    QTest::newRow("approx-emd") << "approx-emd" << none << QStringList{ssl.arg("approx-emd", "")};
    QTest::newRow("cont") << "cont" << none << QStringList{ssl.arg("nt-xent", "pointswap")};
    QTest::newRow("cont view") << "cont" << QVariantMap{{"view", "pointmixup"}} << QStringList{ssl.arg("nt-xent", "pointmixup")};
    QTest::newRow("exemplar") << "exemplar" << none << QStringList{ssl.arg("exemplar", "pointdrop")};
    QTest::newRow("tl") << "tl" << none << QStringList{"supervised|triplet||class-balanced|train||7"};
    QTest::newRow("ce") << "ce" << none << QStringList{"supervised|cross-entropy||random|train||7"};
    QTest::newRow("uniformity") << "uniformity" << none << QStringList{"weak|uniformity||random|train||7"};
    QTest::newRow("locality-contrastive") << "locality-contrastive" << none
                                          << QStringList{"weak|locality-contrastive||random|train||7"};
    QTest::newRow("int") << "int" << none
                         << QStringList{"pre-train|wsset||random|none||7", "fine-tune|triplet||class-balanced|train|R|7"};
    QTest::newRow("int epochs") << "int" << QVariantMap{{"pretrain-epochs", "3"}, {"finetune-epochs", "2"}}
                                << QStringList{"pre-train|wsset||random|none||3", "fine-tune|triplet||class-balanced|train|R|2"};
    QTest::newRow("int cont+ce") << "int" << QVariantMap{{"pretrain", "cont"}, {"finetune", "cross-entropy"}}
                                 << QStringList{"pre-train|nt-xent|pointswap|random|none||7",
                                                "fine-tune|cross-entropy||random|train|R|7"};
    QTest::newRow("int ours+ps") << "int" << QVariantMap{{"pretrain", "ours+ps"}, {"pretrain-epochs", "4"}}
                                 << QStringList{"pre-train|wsset|pointswap|random|none||4",
                                                "fine-tune|triplet||class-balanced|train|R|7"};
    QTest::newRow("ext") << "ext" << QVariantMap{{"pretrain-epochs", "5"}}
                         << QStringList{"external pre-train|wsset||random|none|X|5", "pre-train|wsset||random|none||5",
                                        "fine-tune|triplet||class-balanced|train|R|7"};
    QTest::newRow("ssdml") << "ssdml" << none << QStringList{"ssdml|ssdml-angular||ssdml-triplets|semi||7"};
    QTest::newRow("ssdml 10 per class") << "ssdml" << QVariantMap{{"labels-per-class", "10"}}
                                        << QStringList{"ssdml|ssdml-angular||ssdml-triplets|semi/10||7"};
    QTest::newRow("lrml") << "lrml" << QVariantMap{{"labels-per-class", "10"}}
                          << QStringList{"lrml|lrml||ssdml-partition|semi/10||7"};
    QTest::newRow("seraph") << "seraph" << none << QStringList{"seraph|seraph||ssdml-partition|semi||7"};
    QTest::newRow("isdml") << "isdml" << none << QStringList{"isdml|lrml||ssdml-partition|semi||7"};
    QTest::newRow("apllr") << "apllr" << none << QStringList{"apllr|ap-prior||ssdml-partition|semi||7"};
    QTest::newRow("apit") << "apit" << none << QStringList{"apit|ap-prior||ssdml-partition|semi||7"};
}

void TestRunPlan::recipeStages()
{
    QFETCH(QString, recipe);
    QFETCH(QVariantMap, recipeOptions);
    QFETCH(QStringList, expected);
    train::TrainerConfig c = recipeConfig(recipe.toStdString());
    for (auto it = recipeOptions.begin(); it != recipeOptions.end(); ++it)
        c.recipeOptions[it.key().toStdString()] = it.value().toString().toStdString();
    if (recipe == "ext")
        c.externalDataset = "other.csv";
    const train::RunPlan plan = train::planRun(c, m_registry);
    QStringList got;
    for (const auto& p : plan.stages)
        got << describeStage(p);
    QCOMPARE(got, expected);
    QCOMPARE(plan.needsExternal, recipe == "ext");
    QCOMPARE(plan.encoder->name, std::string("mlp"));
    QCOMPARE(plan.optimizer->name, std::string("adam"));
    QCOMPARE(plan.validationFraction, 0.1); // recipes hold out a validation share by default
    // The augmented-view term of ours+ps|pd|pm is the recipe's own loss option.
    for (const auto& p : plan.stages)
        if (p.loss->name == "wsset")
            QCOMPARE(p.lossOptions.flag("augmented-term"), p.augmentation != nullptr);
    // The uniformity recipe adds the entropy term (docs/LOSSES.md); a user's value wins.
    for (const auto& p : plan.stages)
        if (p.loss->name == "uniformity")
            QCOMPARE(p.lossOptions.real("confidence"), 1.0);
    if (recipe == "uniformity") {
        train::TrainerConfig exact = c;
        exact.lossOptions["confidence"] = "0";
        QCOMPARE(train::planRun(exact, m_registry).stages.front().lossOptions.real("confidence"), 0.0);
    }
    // Only the seed 004 recipes score more than the standard metrics each epoch (NMI).
    const std::set<QString> semi{"ssdml", "lrml", "seraph", "isdml", "apllr", "apit"};
    for (const auto& p : plan.stages)
        QCOMPARE(p.stage.metrics, semi.count(recipe) ? std::vector<std::string>{"nmi"} : std::vector<std::string>{});
    // The baselines' graph weights and priors (seed 004, docs/SSDML.md "Deep baselines").
    static const std::map<QString, std::pair<std::string, std::string>> graph{
        {"lrml", {"heat", ""}}, {"seraph", {"none", ""}}, {"isdml", {"density", ""}},
        {"apllr", {"propagated", "llr"}}, {"apit", {"propagated", "it"}}};
    if (const auto g = graph.find(recipe); g != graph.end()) {
        QCOMPARE(plan.stages.front().samplerGiven.at("affinity"), g->second.first);
        if (!g->second.second.empty())
            QCOMPARE(plan.stages.front().lossOptions.text("prior"), g->second.second);
    }
    // The resolved recipe options are kept (with defaults).
    const auto& r = m_registry.requireRecipe(c.recipe);
    QCOMPARE(plan.recipeOptions.values().size(), r.options.size());
}

void TestRunPlan::describeNamesTheStages()
{
    train::TrainerConfig c = recipeConfig("int");
    c.recipeOptions = {{"pretrain", "ours+ps"}, {"pretrain-epochs", "10"}, {"finetune-epochs", "1"}};
    QCOMPARE(train::planRun(c, m_registry).describe(),
             std::string("pre-train (wsset + pointswap, 10 epochs) \u2192 fine-tune (triplet, 1 epoch, head re-initialised)"));
    c = recipeConfig("ext");
    c.externalDataset = "x";
    QVERIFY(train::planRun(c, m_registry).describe().find("external pre-train (wsset, 7 epochs, external data)") == 0);
}

void TestRunPlan::withoutRecipe()
{
    train::TrainerConfig c;
    c.epochs = 4;
    train::RunPlan plan = train::planRun(c, m_registry);
    QCOMPARE(plan.stages.size(), std::size_t(1));
    QCOMPARE(plan.stages[0].stage.name, std::string("train"));
    QCOMPARE(plan.stages[0].loss->name, std::string("triplet")); // "" = triplet
    QVERIFY(!plan.stages[0].augmentation);
    QVERIFY(!plan.stages[0].sampler); // chosen at stage start
    QCOMPARE(plan.stages[0].epochs, 4);
    QCOMPARE(plan.validationFraction, 0.0);
    QVERIFY(!plan.needsExternal);

    c.loss = "nt-xent";
    c.augmentation = "pointdrop";
    c.augmentationOptions = {{"p", "0.25"}};
    c.sampler = "size-bucketed";
    c.samplerOptions = {{"batch-size", "16"}};
    c.validationFraction = 0.2;
    plan = train::planRun(c, m_registry);
    QCOMPARE(describeStage(plan.stages[0]), QStringLiteral("train|nt-xent|pointdrop|size-bucketed|train||4"));
    QCOMPARE(plan.stages[0].augmentationOptions.real("p"), 0.25);
    QCOMPARE(plan.validationFraction, 0.2);
    const auto so = train::resolveSamplerOptions(*plan.stages[0].sampler, plan.stages[0], c);
    QCOMPARE(so.integer("batch-size"), std::int64_t(16));
    QCOMPARE(so.integer("chunk-batches"), std::int64_t(16)); // the default
}

// The recipe's stage options are defaults: what the user gives wins, on every stage whose
// item declares the option.
void TestRunPlan::userOptionsOverRecipeOptions()
{
    train::TrainerConfig c = recipeConfig("ours+ps");
    train::RunPlan plan = train::planRun(c, m_registry);
    QVERIFY(plan.stages[0].lossOptions.flag("augmented-term"));
    QVERIFY(!plan.stages[0].lossOptions.given("margin"));

    c.lossOptions = {{"augmented-term", "false"}, {"margin", "0.3"}};
    c.augmentationOptions = {{"omega", "0.25"}};
    c.samplerOptions = {{"batch-size", "12"}};
    plan = train::planRun(c, m_registry);
    QVERIFY(!plan.stages[0].lossOptions.flag("augmented-term"));
    QCOMPARE(plan.stages[0].lossOptions.real("margin"), 0.3);
    QCOMPARE(plan.stages[0].augmentationOptions.real("omega"), 0.25);
    QCOMPARE(train::resolveSamplerOptions(*plan.stages[0].sampler, plan.stages[0], c).integer("batch-size"),
             std::int64_t(12));
    // Values are checked against the item's schema.
    c.lossOptions = {{"margin", "-1"}};
    const QString e = errorOf([&] { train::planRun(c, m_registry); });
    QVERIFY2(e.contains("loss wsset") && e.contains("margin=-1") && e.contains("outside"), qPrintable(e));
}

// An option of one stage's loss goes to the stages whose loss declares it and is no error
// for the others.
void TestRunPlan::lossOptionGoesOnlyWhereDeclared()
{
    train::TrainerConfig c = recipeConfig("int");
    c.lossOptions = {{"weighted", "false"}, {"margin", "0.2"}};
    const train::RunPlan plan = train::planRun(c, m_registry);
    QVERIFY(!plan.stages[0].lossOptions.flag("weighted"));
    QCOMPARE(plan.stages[0].lossOptions.real("margin"), 0.2);
    QCOMPARE(plan.stages[1].lossOptions.real("margin"), 0.2); // triplet declares margin too
    QCOMPARE(plan.stages[1].lossOptions.values().count("weighted"), std::size_t(0));
}

// A sampler option of one stage's sampler (batch-size of the random pre-training sampler,
// classes of the class-balanced fine-tuning one) must not be an error for the other stage.
void TestRunPlan::samplerOptionsOfMultiStageRecipes()
{
    train::TrainerConfig c = recipeConfig("int");
    c.samplerOptions = {{"batch-size", "16"}, {"classes", "3"}, {"per-class", "4"}};
    train::RunPlan plan;
    const QString e = errorOf([&] { plan = train::planRun(c, m_registry); });
    QVERIFY2(e.isEmpty(), qPrintable(e));
    QCOMPARE(plan.stages.size(), std::size_t(2));
    const auto pre = train::resolveSamplerOptions(*plan.stages[0].sampler, plan.stages[0], c);
    QCOMPARE(pre.integer("batch-size"), std::int64_t(16));
    const auto fine = train::resolveSamplerOptions(*plan.stages[1].sampler, plan.stages[1], c);
    QCOMPARE(fine.integer("classes"), std::int64_t(3));
    QCOMPARE(fine.integer("per-class"), std::int64_t(4));
    // An option no sampler of the run declares is still refused.
    c.samplerOptions = {{"chunk-batches", "4"}};
    const QString e2 = errorOf([&] { train::planRun(c, m_registry); });
    QVERIFY2(e2.contains("chunk-batches") && e2.contains("sampler random") && e2.contains("sampler class-balanced"),
             qPrintable(e2));
}

void TestRunPlan::paperPreset()
{
    train::TrainerConfig c = recipeConfig("int");
    train::RunPlan plan = train::planRun(c, m_registry);
    QCOMPARE(plan.optimizerOptions.real("lr"), 1e-3); // Adam's own default without the preset
    QCOMPARE(train::resolveSamplerOptions(*plan.stages[0].sampler, plan.stages[0], c).integer("batch-size"),
             std::int64_t(64));

    c.preset = "paper";
    c.samplerOptions = {};
    plan = train::planRun(c, m_registry);
    QCOMPARE(plan.optimizerOptions.real("lr"), 1e-5);
    QCOMPARE(plan.optimizerOptions.real("eps"), 1e-7);
    QCOMPARE(plan.optimizerOptions.real("beta1"), 0.9);
    QCOMPARE(plan.optimizerOptions.real("beta2"), 0.999);
    QCOMPARE(train::resolveSamplerOptions(*plan.stages[0].sampler, plan.stages[0], c).integer("batch-size"),
             std::int64_t(64));
    // The class-balanced sampler has no batch-size: its own defaults.
    const auto fine = train::resolveSamplerOptions(*plan.stages[1].sampler, plan.stages[1], c);
    QCOMPARE(fine.integer("classes"), std::int64_t(8));
    QCOMPARE(fine.integer("per-class"), std::int64_t(16));

    // Given values win over the preset.
    c.optimizerOptions = {{"lr", "0.002"}};
    c.recipe = "ours";
    c.samplerOptions = {{"batch-size", "8"}};
    plan = train::planRun(c, m_registry);
    QCOMPARE(plan.optimizerOptions.real("lr"), 0.002);
    QCOMPARE(plan.optimizerOptions.real("eps"), 1e-7);
    QCOMPARE(train::resolveSamplerOptions(*plan.stages[0].sampler, plan.stages[0], c).integer("batch-size"),
             std::int64_t(8));

    // The preset sets what the optimizer declares: SGD has no betas or eps, which the user
    // never typed and must not be told about.
    c.optimizer = "sgd";
    c.optimizerOptions = {};
    const QString e = errorOf([&] { plan = train::planRun(c, m_registry); });
    QVERIFY2(e.isEmpty(), qPrintable(e));
    QCOMPARE(plan.optimizerOptions.real("lr"), 1e-5);
    // An option the optimizer does not declare, given by the user, is still refused.
    c.optimizerOptions = {{"eps", "1e-8"}};
    const QString e2 = errorOf([&] { train::planRun(c, m_registry); });
    QVERIFY2(e2.contains("optimizer sgd has no option 'eps'"), qPrintable(e2));
}

void TestRunPlan::cpuPresetAndDatasetDefaults()
{
    // The cpu preset: the authors' lr and batch (run.sh: 1e-4, 32), the paper's betas and eps,
    // and the small self-attention encoder, below anything given.
    train::TrainerConfig c = recipeConfig("ours");
    c.model = "selfattn";
    c.preset = "cpu";
    train::RunPlan plan = train::planRun(c, m_registry);
    QCOMPARE(plan.optimizerOptions.real("lr"), 1e-4);
    QCOMPARE(plan.optimizerOptions.real("eps"), 1e-7);
    QCOMPARE(train::resolveSamplerOptions(*plan.stages[0].sampler, plan.stages[0], c).integer("batch-size"),
             std::int64_t(32));
    QCOMPARE(plan.modelOptions.integer("layers"), std::int64_t(2));
    QCOMPARE(plan.modelOptions.integer("heads"), std::int64_t(4));
    QCOMPARE(plan.modelOptions.integer("ff"), std::int64_t(256));
    QCOMPARE(plan.modelOptions.integers("rho"), (std::vector<std::int64_t>{256}));
    // The recipe ours runs WSSET in the authors' form (docs/LOSSES.md); --form paper overrides.
    QCOMPARE(plan.stages[0].lossOptions.text("form"), std::string("authors"));
    c.lossOptions = {{"form", "paper"}};
    QCOMPARE(train::planRun(c, m_registry).stages[0].lossOptions.text("form"), std::string("paper"));
    c.lossOptions.clear();
    // Given model options stay; applyPreset writes the rest, once.
    c.modelOptions = {{"layers", "3"}};
    const train::TrainerConfig applied = train::applyPreset(c, m_registry);
    QCOMPARE(applied.modelOptions.at("layers"), std::string("3"));
    QCOMPARE(applied.modelOptions.at("heads"), std::string("4"));
    QCOMPARE(train::applyPreset(applied, m_registry).modelOptions, applied.modelOptions);
    QCOMPARE(train::planRun(c, m_registry).modelOptions.integer("layers"), std::int64_t(3));
    // Other encoders and presets: nothing.
    c.model = "deepsets";
    QVERIFY(train::applyPreset(c, m_registry).modelOptions == c.modelOptions);
    c.model = "selfattn";
    c.preset = "paper";
    c.modelOptions.clear();
    QVERIFY(train::applyPreset(c, m_registry).modelOptions.empty());
    c.preset = "laptop";
    QVERIFY(!errorOf([&] { train::planRun(c, m_registry); }).isEmpty());

    // What a dataset's kind opens with.
    const train::DatasetDefaults sets = train::datasetDefaults(true, "", false);
    QCOMPARE(sets.recipe, std::string("ours"));
    QCOMPARE(sets.model, std::string("selfattn"));
    QCOMPARE(sets.preset, std::string("cpu"));
    QCOMPARE(sets.epochs, 30); // a first run that learns (docs/RESULTS.md "What a user meets first")
    QCOMPARE(train::datasetDefaults(true, "exemplar", false).model, std::string("deepsets")); // seed 001 §7.1
    QCOMPARE(train::datasetDefaults(true, "ours", true).preset, std::string("paper"));
    const train::DatasetDefaults vectors = train::datasetDefaults(false, "", false);
    QVERIFY(vectors.recipe.empty() && vectors.preset.empty());
    QCOMPARE(vectors.model, std::string("mlp"));
    QCOMPARE(vectors.epochs, 0); // the trainer's
}

void TestRunPlan::errors_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QStringList>("expect");
    QTest::newRow("unknown recipe") << 0 << QStringList{"unknown recipe 'oursx'", "available:", "ours+ps", "int"};
    QTest::newRow("unknown loss") << 1 << QStringList{"unknown loss 'nope'", "triplet", "wsset"};
    QTest::newRow("unknown recipe option") << 2 << QStringList{"recipe int has no option 'pre-train'", "pretrain-epochs"};
    QTest::newRow("recipe without options") << 3 << QStringList{"recipe ours has no option 'view'", "it has none"};
    QTest::newRow("bad recipe choice") << 4 << QStringList{"recipe int", "pretrain=tl", "not one of", "ours+ps"};
    QTest::newRow("loss option nobody declares") << 5 << QStringList{"loss option 'temperature'", "loss wsset"};
    QTest::newRow("loss option of both stages") << 6 << QStringList{"loss option 'emd-scale'", "loss wsset", "loss triplet"};
    QTest::newRow("augmentation option, no augmentation") << 7 << QStringList{"augmentation option 'p'", "augmentation"};
    QTest::newRow("augmentation option of another") << 8 << QStringList{"augmentation option 'p'", "augmentation pointswap"};
    QTest::newRow("model option") << 9 << QStringList{"model mlp has no option 'heads'", "hidden"};
    QTest::newRow("optimizer option") << 10 << QStringList{"optimizer adam has no option 'momentum'"};
    QTest::newRow("recipe and loss") << 11 << QStringList{"recipe 'ours' names its own loss"};
    QTest::newRow("recipe and sampler") << 12 << QStringList{"recipe 'tl' names its own loss, augmentation and sampler"};
    QTest::newRow("ext without external") << 13 << QStringList{"recipe ext", "--external DATASET"};
    QTest::newRow("external without ext") << 14 << QStringList{"external dataset was given", "no stage", "recipe ext"};
    QTest::newRow("recipe options without recipe") << 15 << QStringList{"recipe options given without a recipe"};
    QTest::newRow("unknown augmentation") << 16 << QStringList{"unknown augmentation 'pointflip'", "pointswap"};
    QTest::newRow("unknown sampler") << 17 << QStringList{"unknown sampler 'balanced'", "class-balanced"};
    QTest::newRow("item of two stages named once") << 19 << QStringList{"sampler option 'classes' is not an option of sampler random"};
    QTest::newRow("fixed sampler option") << 18 << QStringList{"'classes'", "sampler random"};
}

void TestRunPlan::errors()
{
    QFETCH(int, kind);
    QFETCH(QStringList, expect);
    train::TrainerConfig c = recipeConfig("ours");
    switch (kind) {
    case 0: c.recipe = "oursx"; break;
    case 1: c.recipe.clear(); c.loss = "nope"; break;
    case 2: c.recipe = "int"; c.recipeOptions = {{"pre-train", "ours"}}; break;
    case 3: c.recipeOptions = {{"view", "pointdrop"}}; break;
    case 4: c.recipe = "int"; c.recipeOptions = {{"pretrain", "tl"}}; break;
    case 5: c.lossOptions = {{"temperature", "0.5"}}; break;
    case 6: c.recipe = "int"; c.lossOptions = {{"emd-scale", "2"}}; break;
    case 7: c.augmentationOptions = {{"p", "0.5"}}; break;
    case 8: c.recipe = "ours+ps"; c.augmentationOptions = {{"p", "0.5"}}; break;
    case 9: c.modelOptions = {{"heads", "2"}}; break;
    case 10: c.optimizerOptions = {{"momentum", "0.5"}}; break;
    case 11: c.loss = "triplet"; break;
    case 12: c.recipe = "tl"; c.sampler = "random"; break;
    case 13: c.recipe = "ext"; break;
    case 14: c.externalDataset = "other.csv"; break;
    case 15: c.recipe.clear(); c.recipeOptions = {{"pretrain", "ours"}}; break;
    case 16: c.recipe.clear(); c.augmentation = "pointflip"; break;
    case 17: c.recipe.clear(); c.sampler = "balanced"; break;
    case 19: c.recipe = "int"; c.recipeOptions = {{"finetune", "cross-entropy"}}; c.samplerOptions = {{"classes", "4"}}; break;
    case 18: c.recipe.clear(); c.loss = "wsset"; c.sampler = "random"; c.samplerOptions = {{"classes", "4"}}; break;
    }
    const QString e = errorOf([&] { train::planRun(c, m_registry); });
    QVERIFY2(!e.isEmpty(), "planRun accepted it");
    for (const QString& part : expect)
        QVERIFY2(e.contains(part), qPrintable(QStringLiteral("'%1' not in: %2").arg(part, e)));
    if (kind == 19) // both stages sample at random: the sampler is named once
        QVERIFY2(e.endsWith("of sampler random"), qPrintable(e));
}

// A flat map of command-line options goes to each selected item whose schema declares it.
void TestRunPlan::applyItemOptionsDistributes()
{
    train::TrainerConfig c = recipeConfig("int");
    c.model = "selfattn";
    train::applyItemOptions(c,
                            {{"lr", "0.01"},
                             {"margin", "0.3"},
                             {"batch-size", "8"},
                             {"classes", "3"},
                             {"layers", "2"},
                             {"pretrain-epochs", "3"},
                             {"weighted", "false"}},
                            m_registry);
    using M = std::map<std::string, std::string>;
    QCOMPARE(c.optimizerOptions, (M{{"lr", "0.01"}}));
    QCOMPARE(c.lossOptions, (M{{"margin", "0.3"}, {"weighted", "false"}}));
    QCOMPARE(c.samplerOptions, (M{{"batch-size", "8"}, {"classes", "3"}}));
    QCOMPARE(c.modelOptions, (M{{"layers", "2"}}));
    QCOMPARE(c.recipeOptions, (M{{"pretrain-epochs", "3"}}));
    QVERIFY(c.augmentationOptions.empty());
    // ... and the result plans.
    const QString e = errorOf([&] { train::planRun(c, m_registry); });
    QVERIFY2(e.isEmpty(), qPrintable(e));

    // Without a recipe and sampler, the sampler is chosen at the stage start: any registered
    // sampler's option is accepted.
    train::TrainerConfig d;
    d.loss = "nt-xent";
    d.augmentation = "pointdrop";
    train::applyItemOptions(d, {{"temperature", "0.2"}, {"p", "0.3"}, {"chunk-batches", "2"}, {"per-class", "4"}},
                            m_registry);
    QCOMPARE(d.lossOptions, (M{{"temperature", "0.2"}}));
    QCOMPARE(d.augmentationOptions, (M{{"p", "0.3"}}));
    QCOMPARE(d.samplerOptions, (M{{"chunk-batches", "2"}, {"per-class", "4"}}));
}

// The stages of a recipe depend on its options: an option of the pre-training method that a
// recipe option selects in the same command line is accepted.
void TestRunPlan::applyItemOptionsFollowsRecipeOptions()
{
    train::TrainerConfig c = recipeConfig("int");
    train::applyItemOptions(c, {{"pretrain", "cont"}, {"temperature", "0.1"}, {"omega", "0.4"}}, m_registry);
    QCOMPARE(c.recipeOptions.at("pretrain"), std::string("cont"));
    QCOMPARE(c.lossOptions.at("temperature"), std::string("0.1"));
    QCOMPARE(c.augmentationOptions.at("omega"), std::string("0.4"));
    const train::RunPlan plan = train::planRun(c, m_registry);
    QCOMPARE(plan.stages[0].lossOptions.real("temperature"), 0.1);
    QCOMPARE(plan.stages[0].augmentationOptions.real("omega"), 0.4);
}

void TestRunPlan::applyItemOptionsRejects_data()
{
    QTest::addColumn<QString>("recipe");
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("expect");
    QTest::newRow("loss of another recipe") << "ours" << "temperature"
                                            << "--temperature: no item of this run has that option (loss moco, loss nt-xent does)";
    QTest::newRow("model option") << "ours" << "heads" << "--heads: no item of this run has that option (model selfattn does)";
    QTest::newRow("recipe option") << "ours" << "view" << "--view: no item of this run has that option (recipe cont does)";
    QTest::newRow("several owners") << "tl" << "pretrain-epochs"
                                    << "--pretrain-epochs: no item of this run has that option (recipe ext, recipe int does)";
    QTest::newRow("augmentation") << "ours+pd" << "omega"
                                  << "--omega: no item of this run has that option (augmentation pointswap does)";
    QTest::newRow("sampler") << "tl" << "chunk-batches"
                             << "--chunk-batches: no item of this run has that option (sampler size-bucketed does)";
    QTest::newRow("nobody") << "ours" << "frobnicate" << "--frobnicate: no item of this run has that option";
}

void TestRunPlan::applyItemOptionsRejects()
{
    QFETCH(QString, recipe);
    QFETCH(QString, option);
    QFETCH(QString, expect);
    train::TrainerConfig c = recipeConfig(recipe.toStdString());
    const QString e = errorOf([&] { train::applyItemOptions(c, {{option.toStdString(), "1"}}, m_registry); });
    QCOMPARE(e, expect);
}

QTEST_GUILESS_MAIN(TestRunPlan)
#include "tst_RunPlan.moc"
