// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/TrainingPanel.h"

#include "core/data/Dataset.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"
#include "gui/views/LossCurveWidget.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace setscope::gui {

namespace {

QSpinBox* spin(const char* name, int lo, int hi, int value, const QString& tip)
{
    auto* s = new QSpinBox;
    s->setObjectName(QString::fromLatin1(name));
    s->setRange(lo, hi);
    s->setValue(value);
    s->setToolTip(tip);
    return s;
}

} // namespace

TrainingPanel::TrainingPanel(const plugin::Registry& registry, QWidget* parent)
    : QWidget(parent)
    , m_registry(registry)
{
    const train::TrainerConfig defaults;
    auto* layout = new QVBoxLayout(this);

    auto* setup = new QGroupBox(tr("Run"));
    m_form = setup;
    auto* form = new QFormLayout(setup);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_model = new QComboBox;
    m_model->setObjectName(QStringLiteral("modelCombo"));
    for (const sdk::EncoderInfo& e : registry.encoders()) {
        m_model->addItem(QString::fromStdString(e.name));
        m_model->setItemData(m_model->count() - 1, QString::fromStdString(e.description), Qt::ToolTipRole);
    }
    m_loss = new QComboBox;
    m_loss->setObjectName(QStringLiteral("lossCombo"));
    for (const sdk::LossInfo& l : registry.losses()) {
        m_loss->addItem(QString::fromStdString(l.name));
        m_loss->setItemData(m_loss->count() - 1, QString::fromStdString(l.description), Qt::ToolTipRole);
    }
    m_labelSet = new QComboBox;
    m_labelSet->setObjectName(QStringLiteral("labelSetCombo"));
    m_labelSet->setToolTip(tr("The labels that decide which items are positives for the loss"));
    m_device = new QComboBox;
    m_device->setObjectName(QStringLiteral("deviceCombo"));
    m_device->addItems({QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")});
    m_device->setToolTip(tr("auto: CUDA when this LibTorch has it and a GPU is visible, else CPU"));

    m_epochs = spin("epochsSpin", 1, 100000, defaults.epochs, tr("Passes over the train split"));
    m_learningRate = new QDoubleSpinBox;
    m_learningRate->setObjectName(QStringLiteral("learningRateSpin"));
    m_learningRate->setDecimals(6);
    m_learningRate->setRange(1e-6, 1.0);
    m_learningRate->setSingleStep(1e-4);
    m_learningRate->setValue(1e-3);
    m_learningRate->setToolTip(tr("Adam learning rate"));
    m_margin = new QDoubleSpinBox;
    m_margin->setObjectName(QStringLiteral("marginSpin"));
    m_margin->setDecimals(3);
    m_margin->setRange(0.0, 100.0);
    m_margin->setSingleStep(0.05);
    m_margin->setToolTip(tr("Margin of the loss (set to the loss's default when the loss changes)"));
    m_batchClasses = spin("batchClassesSpin", 1, 1000, 8, tr("Classes per batch"));
    m_batchPerClass = spin("batchPerClassSpin", 2, 1000, 16, tr("Items per class in a batch"));
    m_batchSize = new QLabel;
    m_embeddingDim = spin("embeddingDimSpin", 2, 4096, defaults.embeddingDim, tr("Output dimension of the encoder"));
    m_maxSteps = spin("maxStepsSpin", 0, 100000000, 0, tr("Stop after this many steps in total (0 = run all epochs)"));
    m_maxSteps->setSpecialValueText(tr("no limit"));
    m_snapshotEvery = spin("snapshotEverySpin", 0, 1000000, static_cast<int>(defaults.snapshotEvery),
                           tr("Training steps between map updates (0 = no map updates)"));
    m_snapshotEvery->setSpecialValueText(tr("never"));

    auto* batchRow = new QHBoxLayout;
    batchRow->addWidget(m_batchClasses);
    batchRow->addWidget(new QLabel(QStringLiteral("×")));
    batchRow->addWidget(m_batchPerClass);
    batchRow->addWidget(m_batchSize);

    form->addRow(tr("Model"), m_model);
    form->addRow(tr("Loss"), m_loss);
    form->addRow(tr("Labels"), m_labelSet);
    form->addRow(tr("Epochs"), m_epochs);
    form->addRow(tr("Learning rate"), m_learningRate);
    form->addRow(tr("Margin"), m_margin);
    form->addRow(tr("Batch"), batchRow);
    form->addRow(tr("Embedding dim"), m_embeddingDim);
    form->addRow(tr("Device"), m_device);
    form->addRow(tr("Stop after steps"), m_maxSteps);
    form->addRow(tr("Map every (steps)"), m_snapshotEvery);
    layout->addWidget(setup);

    auto* buttons = new QHBoxLayout;
    m_start = new QPushButton(tr("Start"));
    m_start->setObjectName(QStringLiteral("startButton"));
    m_pause = new QPushButton(tr("Pause"));
    m_pause->setObjectName(QStringLiteral("pauseButton"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    buttons->addWidget(m_start);
    buttons->addWidget(m_pause);
    buttons->addWidget(m_cancel);
    layout->addLayout(buttons);

    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("progressBar"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(tr("idle"));
    layout->addWidget(m_progress);

    m_curve = new LossCurveWidget;
    m_curve->setObjectName(QStringLiteral("lossCurve"));
    layout->addWidget(m_curve, 1);

    connect(m_loss, &QComboBox::currentTextChanged, this, &TrainingPanel::lossChanged);
    auto batch = [this] {
        m_batchSize->setText(tr("= %1").arg(m_batchClasses->value() * m_batchPerClass->value()));
    };
    connect(m_batchClasses, &QSpinBox::valueChanged, this, batch);
    connect(m_batchPerClass, &QSpinBox::valueChanged, this, batch);
    batch();
    connect(m_start, &QPushButton::clicked, this, &TrainingPanel::startRequested);
    connect(m_pause, &QPushButton::clicked, this, [this] {
        if (m_state == Session::TrainingState::Paused)
            Q_EMIT resumeRequested();
        else if (m_state == Session::TrainingState::Running)
            Q_EMIT pauseRequested();
    });
    connect(m_cancel, &QPushButton::clicked, this, &TrainingPanel::cancelRequested);

    setConfig(defaults);
    setCudaAvailable(train::cudaAvailable());
    updateEnabled();
}

namespace {
/// The loss's declared default margin (0 when it has no margin option).
double defaultMargin(const sdk::LossInfo& l)
{
    const sdk::OptionSpec* o = sdk::findOption(l.options, "margin");
    return o ? std::strtod(o->defaultValue.c_str(), nullptr) : 0.0;
}
} // namespace

void TrainingPanel::lossChanged()
{
    if (const sdk::LossInfo* l = m_registry.loss(m_loss->currentText().toStdString()))
        m_margin->setValue(defaultMargin(*l));
}

void TrainingPanel::setCudaAvailable(bool available)
{
    auto* model = qobject_cast<QStandardItemModel*>(m_device->model());
    const int i = m_device->findText(QStringLiteral("cuda"));
    if (model && i >= 0) {
        QStandardItem* item = model->item(i);
        item->setEnabled(available);
        item->setToolTip(available ? QString() : tr("CUDA is not available (no CUDA in this LibTorch build or no GPU)"));
        if (!available && m_device->currentIndex() == i)
            m_device->setCurrentIndex(0);
    }
}

train::TrainerConfig TrainingPanel::config() const
{
    train::TrainerConfig c;
    c.model = m_model->currentText().toStdString();
    c.loss = m_loss->currentText().toStdString();
    if (!m_labelSet->currentText().isEmpty())
        c.labelSet = m_labelSet->currentText().toStdString();
    c.epochs = m_epochs->value();
    c.optimizerOptions["lr"] = sdk::detail::formatReal(m_learningRate->value());
    const sdk::LossInfo* l = m_registry.loss(c.loss);
    // The loss's own default stays unset so a changed default in a newer loss applies.
    if (l && sdk::findOption(l->options, "margin") && std::abs(m_margin->value() - defaultMargin(*l)) >= 1e-9)
        c.lossOptions["margin"] = sdk::detail::formatReal(m_margin->value());
    c.samplerOptions["classes"] = std::to_string(m_batchClasses->value());
    c.samplerOptions["per-class"] = std::to_string(m_batchPerClass->value());
    c.embeddingDim = m_embeddingDim->value();
    c.device = m_device->currentText().toStdString();
    c.maxSteps = m_maxSteps->value();
    c.snapshotEvery = m_snapshotEvery->value();
    c.snapshotItems = Session::kMapItems;
    return c;
}

void TrainingPanel::setConfig(const train::TrainerConfig& c)
{
    if (const int i = m_model->findText(QString::fromStdString(c.model)); i >= 0)
        m_model->setCurrentIndex(i);
    if (const int i = m_loss->findText(QString::fromStdString(c.loss)); i >= 0)
        m_loss->setCurrentIndex(i);
    lossChanged();
    if (const auto it = c.lossOptions.find("margin"); it != c.lossOptions.end())
        m_margin->setValue(std::strtod(it->second.c_str(), nullptr));
    if (const int i = m_labelSet->findText(QString::fromStdString(c.labelSet)); i >= 0)
        m_labelSet->setCurrentIndex(i);
    m_epochs->setValue(c.epochs);
    auto number = [](const std::map<std::string, std::string>& m, const char* key, double def) {
        const auto it = m.find(key);
        return it == m.end() ? def : std::strtod(it->second.c_str(), nullptr);
    };
    m_learningRate->setValue(number(c.optimizerOptions, "lr", 1e-3));
    m_batchClasses->setValue(static_cast<int>(number(c.samplerOptions, "classes", 8)));
    m_batchPerClass->setValue(static_cast<int>(number(c.samplerOptions, "per-class", 16)));
    m_embeddingDim->setValue(c.embeddingDim);
    const QString device = QString::fromStdString(c.device).section(QLatin1Char(':'), 0, 0);
    if (const int i = m_device->findText(device); i >= 0)
        m_device->setCurrentIndex(i);
    m_maxSteps->setValue(static_cast<int>(std::min<std::int64_t>(c.maxSteps, m_maxSteps->maximum())));
    m_snapshotEvery->setValue(static_cast<int>(std::min<std::int64_t>(c.snapshotEvery, m_snapshotEvery->maximum())));
}

void TrainingPanel::setDataset(const data::Dataset* dataset)
{
    m_hasDataset = dataset != nullptr;
    const QString previous = m_labelSet->currentText();
    m_labelSet->clear();
    if (dataset)
        for (const data::LabelSet& ls : dataset->labelSets())
            m_labelSet->addItem(QString::fromStdString(ls.name));
    int i = m_labelSet->findText(previous);
    if (i < 0)
        i = m_labelSet->findText(QStringLiteral("fine"));
    m_labelSet->setCurrentIndex(std::max(0, i));
    resetRun();
    updateEnabled();
}

void TrainingPanel::setTrainingState(Session::TrainingState state)
{
    m_state = state;
    updateEnabled();
    updateProgressText();
}

void TrainingPanel::updateEnabled()
{
    using S = Session::TrainingState;
    const bool idle = m_state == S::Idle;
    m_start->setEnabled(idle && m_hasDataset && m_model->count() > 0 && m_loss->count() > 0);
    m_pause->setEnabled(m_state == S::Running || m_state == S::Paused);
    m_pause->setText(m_state == S::Paused ? tr("Resume") : tr("Pause"));
    m_cancel->setEnabled(m_state == S::Running || m_state == S::Paused);
    m_form->setEnabled(idle);
}

void TrainingPanel::showProgress(qint64 done, qint64 total, const QString& what)
{
    m_done = done;
    m_total = total;
    m_what = what;
    m_curve->setTotalSteps(total);
    updateProgressText();
}

void TrainingPanel::addStepLoss(qint64 step, double loss)
{
    m_lastLoss = loss;
    m_curve->addLoss(step, loss);
}

void TrainingPanel::addEpochMetrics(const train::EpochMetrics& m) { m_curve->addEpochMarker(m.step, m.epoch); }

void TrainingPanel::showFinished(int status, const QString& detail)
{
    switch (static_cast<job::JobStatus>(status)) {
    case job::JobStatus::Finished: m_outcome = tr("finished"); break;
    case job::JobStatus::Cancelled: m_outcome = tr("cancelled"); break;
    case job::JobStatus::Failed: m_outcome = tr("failed: %1").arg(detail); break;
    default: m_outcome.clear(); break;
    }
    m_what.clear();
    updateProgressText();
}

void TrainingPanel::resetRun()
{
    m_done = m_total = 0;
    m_what.clear();
    m_outcome.clear();
    m_lastLoss = -1.0;
    m_curve->clear();
    updateProgressText();
}

void TrainingPanel::updateProgressText()
{
    // Percentages of large step counts overflow QProgressBar's int range: scale to 10 000.
    m_progress->setRange(0, 10000);
    m_progress->setValue(m_total > 0 ? static_cast<int>(10000.0 * static_cast<double>(m_done) / static_cast<double>(m_total)) : 0);
    QStringList parts;
    switch (m_state) {
    case Session::TrainingState::Paused: parts << tr("paused"); break;
    case Session::TrainingState::Stopping: parts << tr("cancelling"); break;
    default: break;
    }
    if (m_state == Session::TrainingState::Idle && !m_outcome.isEmpty())
        parts << m_outcome;
    if (!m_what.isEmpty())
        parts << m_what;
    if (m_total > 0)
        parts << tr("step %1/%2").arg(m_done).arg(m_total);
    if (m_lastLoss >= 0)
        parts << tr("loss %1").arg(m_lastLoss, 0, 'f', 4);
    if (parts.isEmpty())
        parts << (m_hasDataset ? tr("ready") : tr("open a dataset to train"));
    m_progress->setFormat(parts.join(QStringLiteral(" · ")));
}

} // namespace setscope::gui
