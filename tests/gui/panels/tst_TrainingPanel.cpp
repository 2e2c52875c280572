// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/TrainingPanel.h"

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "core/train/RunPlan.h"
#include "core/train/TrainingSink.h"
#include "gui/views/LossCurveWidget.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStandardItemModel>

using namespace setscope;
using gui::Session;
using gui::TrainingPanel;

namespace {

/// A loss as a plugin would register it: only its declaration matters here (the factory is
/// never called), one option of every type.
sdk::LossInfo fakeLoss()
{
    sdk::LossInfo l;
    l.name = "fake-loss";
    l.description = "a loss registered by the test, as a plugin would";
    l.options = {sdk::OptionSpec::integer("k", 3, 1, 10, "neighbours"),
                 sdk::OptionSpec::real("tau", 0.5, 1e-5, 2, "temperature"),
                 sdk::OptionSpec::flag("hard", false, "hard negatives only"),
                 sdk::OptionSpec::choice("mode", "a", {"a", "b"}, "the mode"),
                 sdk::OptionSpec::text("note", "", "free text"),
                 sdk::OptionSpec::integers("widths", {16, 8}, 1, 1024, "layer widths")};
    l.create = [](const sdk::LossSpec&) -> std::shared_ptr<sdk::MetricLoss> {
        qFatal("the fake loss's factory must not be called");
        return nullptr;
    };
    return l;
}

} // namespace

class TestTrainingPanel : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;
    std::shared_ptr<const data::Dataset> m_ds;

    template <typename T>
    static T* child(const TrainingPanel& p, const QString& name)
    {
        T* w = p.findChild<T*>(name);
        if (!w)
            qFatal("no %s called %s", T::staticMetaObject.className(), qPrintable(name));
        return w;
    }
    template <typename T>
    static T* child(const TrainingPanel& p, const char* name)
    {
        return child<T>(p, QString::fromLatin1(name));
    }
    static void choose(const TrainingPanel& p, const char* combo, const char* text)
    {
        auto* c = child<QComboBox>(p, combo);
        const int i = c->findText(QString::fromLatin1(text));
        if (i < 0)
            qFatal("%s has no %s", combo, text);
        c->setCurrentIndex(i);
    }
    static QStringList optionEditors(const TrainingPanel& p, const QString& prefix)
    {
        QStringList names;
        for (const QWidget* w : p.findChildren<QWidget*>())
            if (w->objectName().startsWith(prefix))
                names << w->objectName();
        names.sort();
        return names;
    }

private Q_SLOTS:
    void initTestCase()
    {
        builtins::registerBuiltins(m_registry);
        m_registry.addLoss(fakeLoss());
        m_ds = std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse("")));
    }

    void choicesComeFromTheRegistry()
    {
        TrainingPanel p(m_registry);
        QCOMPARE(child<QComboBox>(p, "methodCombo")->count(), static_cast<int>(m_registry.recipes().size()) + 1);
        QCOMPARE(child<QComboBox>(p, "methodCombo")->itemText(0), QStringLiteral("custom"));
        QCOMPARE(child<QComboBox>(p, "modelCombo")->count(), static_cast<int>(m_registry.encoders().size()));
        QCOMPARE(child<QComboBox>(p, "lossCombo")->count(), static_cast<int>(m_registry.losses().size()));
        QCOMPARE(child<QComboBox>(p, "augmentationCombo")->count(), static_cast<int>(m_registry.augmentations().size()) + 1);
        QCOMPARE(child<QComboBox>(p, "samplerCombo")->count(), static_cast<int>(m_registry.samplers().size()) + 1);
        QCOMPARE(child<QComboBox>(p, "optimizerCombo")->count(), static_cast<int>(m_registry.optimizers().size()));
        for (const sdk::RecipeInfo& r : m_registry.recipes())
            QVERIFY(child<QComboBox>(p, "methodCombo")->findText(QString::fromStdString(r.name)) > 0);
        p.setDataset(m_ds.get());
        auto* labels = child<QComboBox>(p, "labelSetCombo");
        QCOMPARE(labels->count(), 2);
        QCOMPARE(labels->currentText(), QStringLiteral("fine"));
    }

    void defaultsFollowTheDatasetKind()
    {
        // A dataset of sets (documents, graphs, point clouds) opens with the papers' method:
        // recipe ours, the self-attention set encoder, the cpu preset; vectors and images keep
        // the MLP with the triplet loss (issue 28 §5). A second dataset of the same kind keeps
        // what the user chose.
        data::DatasetBuilder b("sets under test");
        b.setDimension(2);
        b.defineLabelSet("fine", {"a", "b"});
        const float v[6] = {0, 0, 1, 0, 0, 1};
        const float w[3] = {1, 1, 1};
        for (std::size_t i = 0; i < 8; ++i) {
            const std::size_t item = b.addItem(v, w, 2 + i % 2, i < 6 ? sdk::Split::Train : sdk::Split::Test);
            b.setLabel("fine", item, static_cast<std::int32_t>(i % 2));
        }
        const data::Dataset sets = b.finish();
        QVERIFY(!sets.isVectorDataset());

        TrainingPanel p(m_registry);
        p.setDataset(&sets);
        train::TrainerConfig c = p.config();
        QCOMPARE(c.recipe, std::string("ours"));
        QCOMPARE(c.model, std::string("selfattn"));
        QCOMPARE(c.preset, std::string("cpu"));
        QCOMPARE(c.epochs, 30); // a first run that learns something, not the trainer's 3
        QVERIFY(c.loss.empty());
        QCOMPARE(child<QComboBox>(p, "methodCombo")->currentData().toString(), QStringLiteral("ours"));
        // The method's paper and equation are on the panel, and the encoder's editors show the preset.
        QVERIFY2(child<QLabel>(p, "methodAbout")->text().contains(QStringLiteral("Eq.")),
                 qPrintable(child<QLabel>(p, "methodAbout")->text()));
        QCOMPARE(child<QSpinBox>(p, "opt.model.selfattn.layers")->value(), 2);
        QCOMPARE(child<QSpinBox>(p, "opt.model.selfattn.heads")->value(), 4);
        QVERIFY(c.modelOptions.empty()); // the preset's, not written out
        QVERIFY2(p.configValid(), qPrintable(p.planText()));
        QVERIFY2(p.planText().startsWith(QStringLiteral("self-supervised (wsset")), qPrintable(p.planText()));
        // What the run builds: the preset's encoder, recorded explicitly.
        const train::TrainerConfig applied = train::applyPreset(c, m_registry);
        QCOMPARE(applied.modelOptions.at("layers"), std::string("2"));
        QCOMPARE(applied.modelOptions.at("ff"), std::string("256"));

        // The user's choice survives another dataset of sets.
        choose(p, "modelCombo", "deepsets");
        p.setDataset(&sets);
        QCOMPARE(p.config().model, std::string("deepsets"));

        // Vectors: back to the MLP and the supervised triplet loss, no preset.
        p.setDataset(m_ds.get());
        c = p.config();
        QVERIFY(c.recipe.empty());
        QCOMPARE(c.loss, std::string("triplet"));
        QCOMPARE(c.model, std::string("mlp"));
        QVERIFY(c.preset.empty());
        QCOMPARE(c.epochs, train::TrainerConfig{}.epochs);
        QVERIFY(p.configValid());
    }

    void defaultsAreTheTrainerDefaults()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        const train::TrainerConfig d;
        train::TrainerConfig c = p.config();
        QCOMPARE(c.recipe, d.recipe);
        QCOMPARE(c.loss, std::string("triplet")); // what "" means without a recipe, made explicit
        QCOMPARE(c.augmentation, d.augmentation);
        QCOMPARE(c.sampler, d.sampler);
        QCOMPARE(c.model, d.model);
        QCOMPARE(c.optimizer, d.optimizer);
        QCOMPARE(c.schedule, d.schedule);
        QCOMPARE(c.preset, d.preset);
        QCOMPARE(c.labelSet, d.labelSet);
        QCOMPARE(c.labelFraction, d.labelFraction);
        QCOMPARE(c.validationFraction, d.validationFraction);
        QCOMPARE(c.externalDataset, d.externalDataset);
        QCOMPARE(c.epochs, d.epochs);
        QCOMPARE(c.embeddingDim, d.embeddingDim);
        QCOMPARE(c.device, d.device);
        QCOMPARE(c.maxSteps, d.maxSteps);
        QCOMPARE(c.snapshotEvery, d.snapshotEvery);
        QCOMPARE(c.snapshotItems, 0); // every item (the session sets its map limit when it starts the run)
        // Defaults are not written out: a newer item's changed default applies.
        QVERIFY(c.recipeOptions.empty() && c.modelOptions.empty() && c.lossOptions.empty() &&
                c.augmentationOptions.empty() && c.samplerOptions.empty() && c.optimizerOptions.empty());
        QVERIFY(p.configValid());
        QVERIFY(p.startButton()->isEnabled());
        QVERIFY2(p.planText().startsWith(QStringLiteral("train (triplet")), qPrintable(p.planText()));
        QVERIFY(child<QLabel>(p, "planLabel")->text().contains(p.planText()));

        // The editors show the schemas' defaults, with describeOption() as their tooltip.
        auto* margin = child<QLineEdit>(p, "opt.loss.triplet.margin");
        QCOMPARE(margin->text(), QStringLiteral("0.1")); // seed 000 §VI-A
        QCOMPARE(margin->toolTip().toStdString(),
                 sdk::describeOption(*sdk::findOption(m_registry.loss("triplet")->options, "margin")));
        QCOMPARE(child<QLineEdit>(p, "opt.optimizer.adam.lr")->text(), QStringLiteral("0.001"));
        QCOMPARE(child<QLineEdit>(p, "opt.model.mlp.hidden")->text(), QStringLiteral("128,128,64,64"));
        QVERIFY(child<QCheckBox>(p, "opt.model.mlp.normalize")->isChecked());

        // Defaults round-trip.
        p.setConfig(d);
        c = p.config();
        TrainingPanel q(m_registry);
        q.setDataset(m_ds.get());
        q.setConfig(c);
        QCOMPARE(q.config().toJson(), c.toJson());
    }

    // One group per selected item, one editor per declared option, rebuilt on a new choice.
    void groupsFollowTheSelection()
    {
        TrainingPanel p(m_registry);
        QCOMPARE(optionEditors(p, QStringLiteral("opt.sampler.")), QStringList()); // auto: no options to set
        choose(p, "samplerCombo", "class-balanced");
        auto* classes = child<QSpinBox>(p, "opt.sampler.class-balanced.classes");
        QCOMPARE(classes->value(), 8);
        QCOMPARE(classes->minimum(), 2);
        QCOMPARE(classes->maximum(), 1 << 20);
        classes->setValue(4);
        QCOMPARE(p.config().sampler, std::string("class-balanced"));
        QCOMPARE(p.config().samplerOptions, (std::map<std::string, std::string>{{"classes", "4"}}));

        choose(p, "augmentationCombo", "pointswap");
        QCOMPARE(optionEditors(p, QStringLiteral("opt.augmentation.")),
                 QStringList({QStringLiteral("opt.augmentation.pointswap.omega"), QStringLiteral("opt.augmentation.pointswap.pick"),
                              QStringLiteral("opt.augmentation.pointswap.variant")}));
        QVERIFY(child<QComboBox>(p, "opt.augmentation.pointswap.pick")->count() >= 2);

        choose(p, "modelCombo", "selfattn");
        QCOMPARE(optionEditors(p, QStringLiteral("opt.model.mlp.")), QStringList()); // gone with its group
        QCOMPARE(child<QSpinBox>(p, "opt.model.selfattn.layers")->value(), 5);

        // A value set for an item comes back when the item is chosen again.
        child<QLineEdit>(p, "opt.loss.triplet.margin")->setText(QStringLiteral("0.3"));
        choose(p, "lossCombo", "contrastive");
        QCOMPARE(child<QLineEdit>(p, "opt.loss.contrastive.margin")->text(), QStringLiteral("1")); // its own default
        QVERIFY(p.config().lossOptions.empty());
        choose(p, "lossCombo", "triplet");
        QCOMPARE(child<QLineEdit>(p, "opt.loss.triplet.margin")->text(), QStringLiteral("0.3"));
        QCOMPARE(p.config().lossOptions.at("margin"), std::string("0.3"));
    }

    void aRecipesOptionsReachTheConfig()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        choose(p, "methodCombo", "int");
        QVERIFY(!child<QComboBox>(p, "lossCombo")->isVisibleTo(&p)); // the recipe names its items
        QCOMPARE(optionEditors(p, QStringLiteral("opt.loss.")), QStringList());
        auto* pretrain = child<QComboBox>(p, "opt.recipe.int.pretrain");
        QCOMPARE(pretrain->currentText(), QStringLiteral("ours"));
        pretrain->setCurrentText(QStringLiteral("ours+ps"));
        child<QSpinBox>(p, "opt.recipe.int.finetune-epochs")->setValue(5);
        const train::TrainerConfig c = p.config();
        QCOMPARE(c.recipe, std::string("int"));
        QCOMPARE(c.recipeOptions, (std::map<std::string, std::string>{{"pretrain", "ours+ps"}, {"finetune-epochs", "5"}}));
        QVERIFY(c.loss.empty() && c.augmentation.empty() && c.sampler.empty());
        QVERIFY2(p.configValid(), qPrintable(p.planText()));
        QVERIFY2(p.planText().contains(QStringLiteral("pre-train (wsset + pointswap")), qPrintable(p.planText()));
        QVERIFY2(p.planText().contains(QStringLiteral("fine-tune (triplet, 5 epochs")), qPrintable(p.planText()));
        QVERIFY(p.startButton()->isEnabled());
        QCOMPARE(train::planRun(c, m_registry).describe(), p.planText().toStdString());

        choose(p, "methodCombo", "custom");
        QVERIFY(child<QComboBox>(p, "lossCombo")->isVisibleTo(&p));
        QVERIFY(p.config().recipeOptions.empty());
    }

    // A loss a plugin registers appears with an editor per option and no GUI code for it.
    void aPluginLossNeedsNoGuiCode()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        choose(p, "lossCombo", "fake-loss");
        QCOMPARE(optionEditors(p, QStringLiteral("opt.loss.")),
                 QStringList({QStringLiteral("opt.loss.fake-loss.hard"), QStringLiteral("opt.loss.fake-loss.k"),
                              QStringLiteral("opt.loss.fake-loss.mode"), QStringLiteral("opt.loss.fake-loss.note"),
                              QStringLiteral("opt.loss.fake-loss.tau"), QStringLiteral("opt.loss.fake-loss.widths")}));
        auto* k = child<QSpinBox>(p, "opt.loss.fake-loss.k");
        QCOMPARE(k->value(), 3);
        QCOMPARE(k->minimum(), 1);
        QCOMPARE(k->maximum(), 10);
        auto* tau = child<QLineEdit>(p, "opt.loss.fake-loss.tau");
        QCOMPARE(tau->text(), QStringLiteral("0.5"));
        auto* hard = child<QCheckBox>(p, "opt.loss.fake-loss.hard");
        QVERIFY(!hard->isChecked());
        auto* mode = child<QComboBox>(p, "opt.loss.fake-loss.mode");
        QCOMPARE(mode->count(), 2);
        QCOMPARE(mode->currentText(), QStringLiteral("a"));
        auto* note = child<QLineEdit>(p, "opt.loss.fake-loss.note");
        auto* widths = child<QLineEdit>(p, "opt.loss.fake-loss.widths");
        QCOMPARE(widths->text(), QStringLiteral("16,8"));
        QVERIFY(p.config().lossOptions.empty());
        QVERIFY2(p.configValid(), qPrintable(p.planText()));

        k->setValue(7);
        tau->setText(QStringLiteral("2.5e-5"));
        hard->setChecked(true);
        mode->setCurrentText(QStringLiteral("b"));
        note->setText(QStringLiteral("hi"));
        widths->setText(QStringLiteral("4, 5")); // read back in canonical form
        const train::TrainerConfig c = p.config();
        QCOMPARE(c.loss, std::string("fake-loss"));
        QCOMPARE(c.lossOptions, (std::map<std::string, std::string>{{"k", "7"}, {"tau", "2.5e-05"}, {"hard", "true"},
                                                                    {"mode", "b"}, {"note", "hi"}, {"widths", "4,5"}}));
        QVERIFY2(p.configValid(), qPrintable(p.planText()));
        QVERIFY(p.startButton()->isEnabled());
    }

    void invalidValuesDisableStart()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        QVERIFY(p.startButton()->isEnabled());
        auto* margin = child<QLineEdit>(p, "opt.loss.triplet.margin");
        margin->setText(QStringLiteral("-1")); // below the schema's 0
        QVERIFY(!p.configValid());
        QVERIFY(!p.startButton()->isEnabled());
        std::string expected;
        try {
            train::planRun(p.config(), m_registry);
        } catch (const std::invalid_argument& e) {
            expected = e.what();
        }
        QVERIFY(!expected.empty());
        QCOMPARE(p.planText().toStdString(), expected); // the planner's own message
        QVERIFY2(p.planText().contains(QStringLiteral("loss triplet")) && p.planText().contains(QStringLiteral("margin")),
                 qPrintable(p.planText()));
        QVERIFY(child<QLabel>(p, "planLabel")->text().contains(p.planText()));
        QVERIFY(!margin->styleSheet().isEmpty()); // the field is marked
        QVERIFY(margin->toolTip().contains(QStringLiteral("outside")));

        margin->setText(QStringLiteral("abc"));
        QVERIFY(!p.startButton()->isEnabled());
        QVERIFY2(p.planText().contains(QStringLiteral("not a finite number")), qPrintable(p.planText()));

        child<QLineEdit>(p, "opt.optimizer.adam.lr")->setText(QStringLiteral("1e-5"));
        margin->setText(QStringLiteral("0.3"));
        QVERIFY(p.startButton()->isEnabled());
        QVERIFY(margin->styleSheet().isEmpty());
        QCOMPARE(p.config().lossOptions.at("margin"), std::string("0.3"));
        QCOMPARE(p.config().optimizerOptions.at("lr"), std::string("1e-05"));

        child<QLineEdit>(p, "opt.model.mlp.hidden")->setText(QStringLiteral("64,0")); // a width below 1
        QVERIFY(!p.startButton()->isEnabled());
        QVERIFY2(p.planText().contains(QStringLiteral("model mlp")), qPrintable(p.planText()));
    }

    void setConfigRoundTrips()
    {
        train::TrainerConfig c;
        c.model = "selfattn";
        c.modelOptions = {{"layers", "2"}, {"dropout", "0.25"}};
        c.loss = "contrastive";
        c.lossOptions = {{"margin", "0.3"}};
        c.augmentation = "pointdrop";
        c.augmentationOptions = {{"p", "0.2"}};
        c.sampler = "class-balanced";
        c.samplerOptions = {{"classes", "4"}, {"per-class", "8"}};
        c.optimizer = "adamw";
        c.optimizerOptions = {{"lr", "0.002"}};
        c.schedule = "cosine";
        c.labelSet = "coarse";
        c.labelFraction = 0.05;
        c.validationFraction = 0.2;
        c.epochs = 7;
        c.maxSteps = 150;
        c.embeddingDim = 32;
        c.device = "cpu";
        c.snapshotEvery = 25;
        c.seed = 9; // not shown, kept
        train::planRun(c, m_registry);

        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        p.setConfig(c);
        QCOMPARE(child<QLineEdit>(p, "opt.loss.contrastive.margin")->text(), QStringLiteral("0.3"));
        QCOMPARE(child<QSpinBox>(p, "opt.model.selfattn.layers")->value(), 2);
        QCOMPARE(p.config().toJson(), c.toJson());
        QVERIFY2(p.configValid(), qPrintable(p.planText()));
        p.setConfig(p.config());
        QCOMPARE(p.config().toJson(), c.toJson());

        // A recipe: the options of the items its stages choose have no editor but are kept.
        train::TrainerConfig r;
        r.recipe = "ours+ps";
        r.lossOptions = {{"margin", "0.2"}};
        r.preset = "paper";
        r.validationFraction = 0; // none held out
        p.setConfig(r);
        QCOMPARE(p.config().toJson(), r.toJson());
        QVERIFY2(p.configValid(), qPrintable(p.planText()));
    }

    // The preset's values are what the optimizer's editors show, and they count as defaults.
    void thePaperPresetShowsItsDefaults()
    {
        TrainingPanel p(m_registry);
        auto* lr = child<QLineEdit>(p, "opt.optimizer.adam.lr");
        QCOMPARE(lr->text(), QStringLiteral("0.001"));
        choose(p, "presetCombo", "paper");
        lr = child<QLineEdit>(p, "opt.optimizer.adam.lr");
        QCOMPARE(lr->text(), QStringLiteral("1e-05"));
        QCOMPARE(child<QLineEdit>(p, "opt.optimizer.adam.eps")->text(), QStringLiteral("1e-07"));
        QVERIFY(p.config().optimizerOptions.empty());
        QCOMPARE(p.config().preset, std::string("paper"));
        choose(p, "samplerCombo", "random");
        QCOMPARE(child<QSpinBox>(p, "opt.sampler.random.batch-size")->value(), 64);
        lr = child<QLineEdit>(p, "opt.optimizer.adam.lr"); // the groups were rebuilt
        QCOMPARE(lr->text(), QStringLiteral("1e-05"));
        lr->setText(QStringLiteral("0.001"));
        QCOMPARE(p.config().optimizerOptions.at("lr"), std::string("0.001")); // now above the preset
    }

    void theExternalDatasetIsForExternalRecipes()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        auto* ext = child<QLineEdit>(p, "externalEdit");
        QVERIFY(!ext->isEnabled());
        choose(p, "methodCombo", "ext");
        QVERIFY(ext->isEnabled());
        QVERIFY(!p.startButton()->isEnabled()); // nothing to pre-train on yet
        QVERIFY2(p.planText().contains(QStringLiteral("External dataset")), qPrintable(p.planText()));
        ext->setText(QStringLiteral("synthetic:dim=3"));
        QVERIFY2(p.configValid(), qPrintable(p.planText()));
        QVERIFY(p.startButton()->isEnabled());
        QVERIFY2(p.planText().startsWith(QStringLiteral("external pre-train")), qPrintable(p.planText()));
        QCOMPARE(p.config().externalDataset, std::string("synthetic:dim=3"));
        QVERIFY(train::planRun(p.config(), m_registry).needsExternal);

        TrainingPanel q(m_registry);
        q.setConfig(p.config());
        QCOMPARE(child<QLineEdit>(q, "externalEdit")->text(), QStringLiteral("synthetic:dim=3"));
        QVERIFY(child<QLineEdit>(q, "externalEdit")->isEnabled());

        choose(p, "methodCombo", "int");
        QVERIFY(!ext->isEnabled());
        QVERIFY(p.config().externalDataset.empty()); // no stage would use it
        QVERIFY(p.configValid());
    }

    // A tall form scrolls instead of squeezing the loss curve away. With
    // SETSCOPE_PANEL_SCREENSHOT=file.png the panel is saved there for a look.
    void theFormScrolls()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        choose(p, "modelCombo", "selfattn");
        choose(p, "augmentationCombo", "pointswap");
        choose(p, "samplerCombo", "class-balanced");
        p.resize(380, 720);
        p.show();
        QVERIFY(QTest::qWaitForWindowExposed(&p));
        auto* scroll = child<QScrollArea>(p, "formScroll");
        QVERIFY(scroll->verticalScrollBar()->maximum() > 0);
        QVERIFY(p.lossCurve()->height() >= p.lossCurve()->minimumSizeHint().height());
        if (const QString file = qEnvironmentVariable("SETSCOPE_PANEL_SCREENSHOT"); !file.isEmpty()) {
            child<QLineEdit>(p, "opt.loss.triplet.margin")->setText(QStringLiteral("-1"));
            QVERIFY(p.grab().save(file));
            scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->maximum() / 2);
            QVERIFY(p.grab().save(QString(file).replace(QStringLiteral(".png"), QStringLiteral("-options.png"))));
        }
    }

    void pauseIsOffForAMultiProcessRun()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        auto* pause = child<QPushButton>(p, "pauseButton");
        p.setTrainingState(Session::TrainingState::Running);
        QVERIFY(pause->isEnabled());
        p.setTrainingState(Session::TrainingState::Idle);
        child<QSpinBox>(p, "processesSpin")->setValue(2);
        QCOMPARE(p.processes(), 2);
        p.setTrainingState(Session::TrainingState::Running);
        QVERIFY(!pause->isEnabled());
        QVERIFY(pause->toolTip().contains("cannot pause"));
        QVERIFY(child<QPushButton>(p, "cancelButton")->isEnabled());
    }

    void cudaIsDisabledWhenUnavailable()
    {
        TrainingPanel p(m_registry);
        auto* device = child<QComboBox>(p, "deviceCombo");
        device->setCurrentText(QStringLiteral("cuda"));
        p.setCudaAvailable(false);
        auto* model = qobject_cast<QStandardItemModel*>(device->model());
        QVERIFY(!model->item(device->findText(QStringLiteral("cuda")))->isEnabled());
        QCOMPARE(device->currentText(), QStringLiteral("auto")); // moved off the disabled choice
        p.setCudaAvailable(true);
        QVERIFY(model->item(device->findText(QStringLiteral("cuda")))->isEnabled());
    }

    void buttonStatesFollowTheRun()
    {
        using S = Session::TrainingState;
        TrainingPanel p(m_registry);
        QSignalSpy start(&p, &TrainingPanel::startRequested);
        QSignalSpy pause(&p, &TrainingPanel::pauseRequested);
        QSignalSpy resume(&p, &TrainingPanel::resumeRequested);
        QSignalSpy cancel(&p, &TrainingPanel::cancelRequested);
        auto states = [&] {
            return QString::fromLatin1("%1%2%3").arg(int(p.startButton()->isEnabled())).arg(int(p.pauseButton()->isEnabled()))
                .arg(int(p.cancelButton()->isEnabled()));
        };

        QCOMPARE(states(), QStringLiteral("000")); // no dataset: nothing to train
        p.setDataset(m_ds.get());
        QCOMPARE(states(), QStringLiteral("100"));
        p.startButton()->click();
        QCOMPARE(start.count(), 1);

        p.setTrainingState(S::Running);
        QCOMPARE(states(), QStringLiteral("011"));
        QCOMPARE(p.pauseButton()->text(), QStringLiteral("Pause"));
        QVERIFY(!child<QSpinBox>(p, "epochsSpin")->isEnabled()); // a running run's config is fixed
        QVERIFY(!child<QLineEdit>(p, "opt.loss.triplet.margin")->isEnabled());
        p.pauseButton()->click();
        QCOMPARE(pause.count(), 1);
        QCOMPARE(resume.count(), 0);

        p.setTrainingState(S::Paused);
        QCOMPARE(states(), QStringLiteral("011"));
        QCOMPARE(p.pauseButton()->text(), QStringLiteral("Resume"));
        QVERIFY(p.progressBar()->text().contains(QStringLiteral("paused")));
        p.pauseButton()->click();
        QCOMPARE(resume.count(), 1);
        QCOMPARE(pause.count(), 1);

        p.setTrainingState(S::Running);
        p.cancelButton()->click();
        QCOMPARE(cancel.count(), 1);
        p.setTrainingState(S::Stopping);
        QCOMPARE(states(), QStringLiteral("000"));
        QVERIFY(p.progressBar()->text().contains(QStringLiteral("cancelling")));

        p.setTrainingState(S::Idle);
        p.showFinished(static_cast<int>(job::JobStatus::Cancelled), QString());
        QCOMPARE(states(), QStringLiteral("100"));
        QVERIFY(child<QSpinBox>(p, "epochsSpin")->isEnabled());
        QVERIFY(p.progressBar()->text().contains(QStringLiteral("cancelled")));
    }

    void progressShowsEpochStepAndLoss()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        p.setTrainingState(Session::TrainingState::Running);
        p.addStepLoss(120, 0.21345);
        p.showProgress(120, 1400, QStringLiteral("epoch 1/3"));
        const QString text = p.progressBar()->text();
        QVERIFY2(text.contains(QStringLiteral("epoch 1/3")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("step 120/1400")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("loss 0.2135")), qPrintable(text));
        QCOMPARE(p.progressBar()->value(), 857); // 120 / 1400 of 10 000
        QCOMPARE(p.lossCurve()->pointCount(), std::size_t(1));
        p.resetRun();
        QCOMPARE(p.lossCurve()->pointCount(), std::size_t(0));
        QCOMPARE(p.progressBar()->value(), 0);
    }
};

QTEST_MAIN(TestTrainingPanel)
#include "tst_TrainingPanel.moc"
