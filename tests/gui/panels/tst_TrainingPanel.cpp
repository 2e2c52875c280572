// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/TrainingPanel.h"

#include "Builtin.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingSink.h"
#include "gui/views/LossCurveWidget.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>

using namespace setscope;
using gui::Session;
using gui::TrainingPanel;

class TestTrainingPanel : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;
    std::shared_ptr<const data::Dataset> m_ds;

    template <typename T>
    static T* child(const TrainingPanel& p, const char* name)
    {
        T* w = p.findChild<T*>(QString::fromLatin1(name));
        if (!w)
            qFatal("no child %s", name);
        return w;
    }

private Q_SLOTS:
    void initTestCase()
    {
        builtin::registerBuiltins(m_registry);
        m_ds = std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse("")));
    }

    void combosComeFromTheRegistry()
    {
        TrainingPanel p(m_registry);
        auto* model = child<QComboBox>(p, "modelCombo");
        auto* loss = child<QComboBox>(p, "lossCombo");
        QCOMPARE(model->count(), static_cast<int>(m_registry.encoders().size()));
        QCOMPARE(loss->count(), static_cast<int>(m_registry.losses().size()));
        QVERIFY(loss->findText(QStringLiteral("triplet")) >= 0);
        QVERIFY(loss->findText(QStringLiteral("contrastive")) >= 0);
        p.setDataset(m_ds.get());
        auto* labels = child<QComboBox>(p, "labelSetCombo");
        QCOMPARE(labels->count(), 2);
        QCOMPARE(labels->currentText(), QStringLiteral("fine"));
    }

    void defaultsAreTheTrainerDefaults()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        const train::TrainerConfig d;
        const train::TrainerConfig c = p.config();
        QCOMPARE(c.model, d.model);
        QCOMPARE(c.loss, std::string("triplet")); // the first registered loss, the default without a recipe
        QCOMPARE(c.labelSet, d.labelSet);
        QCOMPARE(c.epochs, d.epochs);
        QCOMPARE(c.optimizerOptions.at("lr"), std::string("0.001")); // adam's default
        QVERIFY(!c.lossOptions.count("margin"));                      // "the loss's default"
        QCOMPARE(c.samplerOptions.at("classes"), std::string("8"));
        QCOMPARE(c.samplerOptions.at("per-class"), std::string("16"));
        QCOMPARE(c.embeddingDim, d.embeddingDim);
        QCOMPARE(c.device, d.device);
        QCOMPARE(c.maxSteps, d.maxSteps);
        QCOMPARE(c.snapshotEvery, d.snapshotEvery);
        QCOMPARE(c.snapshotItems, Session::kMapItems);
        // The margin box shows the loss's documented default.
        QCOMPARE(child<QDoubleSpinBox>(p, "marginSpin")->value(), 0.1); // seed 000 §VI-A
        c.validate();
    }

    void configComesFromTheWidgets()
    {
        TrainingPanel p(m_registry);
        p.setDataset(m_ds.get());
        child<QComboBox>(p, "lossCombo")->setCurrentText(QStringLiteral("contrastive"));
        // Changing the loss shows its default margin, still reported as "default".
        QCOMPARE(child<QDoubleSpinBox>(p, "marginSpin")->value(), 1.0); // ContrastiveLoss::kDefaultMargin on unit-norm embeddings
        QVERIFY(!p.config().lossOptions.count("margin"));

        child<QComboBox>(p, "labelSetCombo")->setCurrentText(QStringLiteral("coarse"));
        child<QSpinBox>(p, "epochsSpin")->setValue(7);
        child<QDoubleSpinBox>(p, "learningRateSpin")->setValue(0.005);
        child<QDoubleSpinBox>(p, "marginSpin")->setValue(0.3);
        child<QSpinBox>(p, "batchClassesSpin")->setValue(4);
        child<QSpinBox>(p, "batchPerClassSpin")->setValue(8);
        child<QSpinBox>(p, "embeddingDimSpin")->setValue(32);
        child<QComboBox>(p, "deviceCombo")->setCurrentText(QStringLiteral("cpu"));
        child<QSpinBox>(p, "maxStepsSpin")->setValue(150);
        child<QSpinBox>(p, "snapshotEverySpin")->setValue(25);

        const train::TrainerConfig c = p.config();
        QCOMPARE(c.model, std::string("mlp"));
        QCOMPARE(c.loss, std::string("contrastive"));
        QCOMPARE(c.labelSet, std::string("coarse"));
        QCOMPARE(c.epochs, 7);
        QCOMPARE(c.optimizerOptions.at("lr"), std::string("0.005"));
        QCOMPARE(c.lossOptions.at("margin"), std::string("0.3"));
        QCOMPARE(c.samplerOptions.at("classes"), std::string("4"));
        QCOMPARE(c.samplerOptions.at("per-class"), std::string("8"));
        QCOMPARE(c.embeddingDim, 32);
        QCOMPARE(c.device, std::string("cpu"));
        QCOMPARE(c.maxSteps, 150);
        QCOMPARE(c.snapshotEvery, 25);
        c.validate();

        // setConfig round-trips.
        TrainingPanel q(m_registry);
        q.setDataset(m_ds.get());
        q.setConfig(c);
        const train::TrainerConfig back = q.config();
        QCOMPARE(back.toJson(), c.toJson());
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
