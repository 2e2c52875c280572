// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/TrainingPanel.h"

#include "core/data/Dataset.h"
#include "core/plugin/Registry.h"
#include "core/train/RunPlan.h"
#include "core/train/TrainingJob.h"
#include "gui/views/LossCurveWidget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <cmath>

namespace setscope::gui {

namespace {

const char* const kCustom = ""; // the Method choice's data for "custom"

QSpinBox* spin(const char* name, int lo, int hi, int value, const QString& tip)
{
    auto* s = new QSpinBox;
    s->setObjectName(QString::fromLatin1(name));
    s->setRange(lo, hi);
    s->setValue(value);
    s->setToolTip(tip);
    return s;
}

QComboBox* combo(const char* name, const QString& tip)
{
    auto* c = new QComboBox;
    c->setObjectName(QString::fromLatin1(name));
    c->setToolTip(tip);
    return c;
}

/// One entry per registered item, its description as the entry's tooltip.
template <typename Infos>
void addItems(QComboBox* c, const Infos& infos)
{
    for (const auto& info : infos) {
        c->addItem(QString::fromStdString(info.name), QString::fromStdString(info.name));
        c->setItemData(c->count() - 1, QString::fromStdString(info.description), Qt::ToolTipRole);
    }
}

int clampToInt(double v)
{
    if (std::isnan(v))
        return 0;
    return static_cast<int>(std::clamp(v, static_cast<double>(INT_MIN), static_cast<double>(INT_MAX)));
}

std::string str(const QString& s) { return s.toStdString(); }
QString qstr(const std::string& s) { return QString::fromStdString(s); }

const QString kErrorStyle = QStringLiteral("QLineEdit { border: 1px solid #d0302f; }");

} // namespace

TrainingPanel::TrainingPanel(const plugin::Registry& registry, QWidget* parent)
    : QWidget(parent)
    , m_registry(registry)
{
    const train::TrainerConfig defaults;
    createFields(defaults);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildPanes(buildForm()));
    connectFields();
    setConfig(defaults);
    setCudaAvailable(train::cudaAvailable());
    updateEnabled();
}

// The run's fields, one per TrainerConfig setting the panel offers, filled from the registry.
void TrainingPanel::createFields(const train::TrainerConfig& defaults)
{
    const plugin::Registry& registry = m_registry;
    m_method = combo("methodCombo", tr("A training method of the papers (registered recipe), or custom: choose the "
                                       "loss, augmentation and sampler yourself"));
    m_method->addItem(tr("custom"), QString::fromLatin1(kCustom));
    m_method->setItemData(0, tr("one stage with the loss, augmentation and sampler chosen below"), Qt::ToolTipRole);
    addItems(m_method, registry.recipes());
    m_model = combo("modelCombo", tr("The set encoder"));
    addItems(m_model, registry.encoders());
    m_loss = combo("lossCombo", tr("The loss of the custom stage"));
    addItems(m_loss, registry.losses());
    m_augmentation = combo("augmentationCombo", tr("The augmentation of the custom stage"));
    m_augmentation->addItem(tr("none"), QString());
    addItems(m_augmentation, registry.augmentations());
    m_sampler = combo("samplerCombo", tr("How batches are drawn in the custom stage"));
    m_sampler->addItem(tr("auto"), QString());
    m_sampler->setItemData(0, tr("class-balanced when the loss reads labels, else random (with their default options)"),
                           Qt::ToolTipRole);
    addItems(m_sampler, registry.samplers());
    m_optimizer = combo("optimizerCombo", tr("The optimizer"));
    addItems(m_optimizer, registry.optimizers());
    m_schedule = combo("scheduleCombo", tr("Learning rate within each stage: constant, or cosine down to 0 at the "
                                           "stage's end"));
    m_schedule->addItems({QStringLiteral("constant"), QStringLiteral("cosine")});
    m_preset = combo("presetCombo", tr("Defaults below anything set here. paper: the papers' (Adam lr 1e-5, β "
                                       "0.9/0.999, ε 1e-7, batches of 64); cpu: what trains on a few CPU cores (Adam "
                                       "lr 1e-4, batches of 32, the set encoder at 2 layers, 4 heads, feed-forward 256)"));
    m_preset->addItem(tr("none"), QString());
    m_preset->addItem(QStringLiteral("paper"), QStringLiteral("paper"));
    m_preset->addItem(QStringLiteral("cpu"), QStringLiteral("cpu"));
    m_labelSet = combo("labelSetCombo", tr("The labels that supervise the supervised stages and score the run"));
    m_labelFraction = new QDoubleSpinBox;
    m_labelFraction->setObjectName(QStringLiteral("labelFractionSpin"));
    m_labelFraction->setDecimals(3);
    m_labelFraction->setRange(0.001, 1.0);
    m_labelFraction->setSingleStep(0.01);
    m_labelFraction->setToolTip(tr("Share of the training labels the supervised stages may use (stratified by class; "
                                   "1 = all)"));
    m_validationFraction = new QDoubleSpinBox;
    m_validationFraction->setObjectName(QStringLiteral("validationFractionSpin"));
    m_validationFraction->setDecimals(3);
    m_validationFraction->setRange(-0.05, 0.85);
    m_validationFraction->setSingleStep(0.05);
    m_validationFraction->setSpecialValueText(tr("auto"));
    m_validationFraction->setToolTip(tr("Share of the train split held out to pick the best weights by validation kNN "
                                        "accuracy (auto: 0.1 with a method, 0 for custom)"));
    m_external = new QLineEdit;
    m_external->setObjectName(QStringLiteral("externalEdit"));
    m_external->setPlaceholderText(tr("dataset name or path"));
    m_external->setToolTip(tr("The dataset the external stages pre-train on (methods with an external stage, "
                              "e.g. ext); a name such as fashion-mnist or a path"));
    m_device = combo("deviceCombo", tr("auto: CUDA when this LibTorch has it and a GPU is visible, else CPU"));
    m_device->addItems({QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")});
    m_epochs = spin("epochsSpin", 1, 1000000, defaults.epochs, tr("Passes over the train split (per stage, unless "
                                                                  "the method sets a stage's epochs)"));
    m_embeddingDim = spin("embeddingDimSpin", 1, 65536, defaults.embeddingDim, tr("Output dimension of the encoder"));
    m_maxSteps = spin("maxStepsSpin", 0, INT_MAX, 0, tr("Stop after this many steps in total (0 = run all epochs)"));
    m_maxSteps->setSpecialValueText(tr("no limit"));
    m_snapshotEvery = spin("snapshotEverySpin", 0, 1000000, static_cast<int>(defaults.snapshotEvery),
                           tr("Training steps between map updates (0 = no map updates)"));
    m_snapshotEvery->setSpecialValueText(tr("never"));
    m_processes = spin("processesSpin", 1, 1024, 1,
                       tr("Train data-parallel in this many processes on this machine (setscope-cli --nproc; each gets "
                          "its share of the cores and of every batch; docs/DISTRIBUTED.md). More than one: the map "
                          "follows the run's checkpoints, written every 'Map every' steps; no pause."));
}

// The "Run" group of the fields above the generated option groups, in a scroll area.
QScrollArea* TrainingPanel::buildForm()
{
    // Everything that sets up a run scrolls; the plan, the buttons and the curve stay visible.
    m_form = new QWidget;
    auto* formColumn = new QVBoxLayout(m_form);
    formColumn->setContentsMargins(0, 0, 0, 0);
    auto* run = new QGroupBox(tr("Run"));
    m_formLayout = new QFormLayout(run);
    m_formLayout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_formLayout->addRow(tr("Method"), m_method);
    // What the chosen method is, with its paper and equation (the recipe's description).
    m_methodAbout = new QLabel;
    m_methodAbout->setObjectName(QStringLiteral("methodAbout"));
    m_methodAbout->setWordWrap(true);
    m_formLayout->addRow(QString(), m_methodAbout);
    m_formLayout->addRow(tr("Loss"), m_loss);
    m_formLayout->addRow(tr("Augmentation"), m_augmentation);
    m_formLayout->addRow(tr("Sampler"), m_sampler);
    m_formLayout->addRow(tr("Model"), m_model);
    m_formLayout->addRow(tr("Optimizer"), m_optimizer);
    m_formLayout->addRow(tr("Schedule"), m_schedule);
    m_formLayout->addRow(tr("Preset"), m_preset);
    m_formLayout->addRow(tr("Labels"), m_labelSet);
    m_formLayout->addRow(tr("Label fraction"), m_labelFraction);
    m_formLayout->addRow(tr("Validation share"), m_validationFraction);
    m_formLayout->addRow(tr("External dataset"), m_external);
    m_formLayout->addRow(tr("Epochs"), m_epochs);
    m_formLayout->addRow(tr("Stop after steps"), m_maxSteps);
    m_formLayout->addRow(tr("Embedding dim"), m_embeddingDim);
    m_formLayout->addRow(tr("Device"), m_device);
    m_formLayout->addRow(tr("Map every (steps)"), m_snapshotEvery);
    m_formLayout->addRow(tr("Processes"), m_processes);
    formColumn->addWidget(run);
    m_groupsLayout = new QVBoxLayout;
    formColumn->addLayout(m_groupsLayout);
    formColumn->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("formScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(m_form);
    return scroll;
}

// The form, the plan line, the buttons and the progress above; the loss curve below.
QSplitter* TrainingPanel::buildPanes(QScrollArea* scroll)
{
    // The set-up (with its plan line and buttons) above, the loss curve below: a splitter,
    // so either can be given the room.
    auto* top = new QWidget;
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(scroll, 1);

    m_plan = new QLabel;
    m_plan->setObjectName(QStringLiteral("planLabel"));
    m_plan->setWordWrap(true);
    m_plan->setTextInteractionFlags(Qt::TextSelectableByMouse);
    topLayout->addWidget(m_plan);

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
    topLayout->addLayout(buttons);

    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("progressBar"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(tr("idle"));
    topLayout->addWidget(m_progress);

    m_curve = new LossCurveWidget;
    m_curve->setObjectName(QStringLiteral("lossCurve"));
    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("trainingSplitter"));
    split->setChildrenCollapsible(false);
    split->addWidget(top);
    split->addWidget(m_curve);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    return split;
}

void TrainingPanel::connectFields()
{
    // A new selection brings other option groups; the preset changes the optimizer's and the
    // sampler's defaults.
    for (QComboBox* c : {m_method, m_model, m_loss, m_augmentation, m_sampler, m_optimizer, m_preset})
        connect(c, &QComboBox::currentIndexChanged, this, &TrainingPanel::selectionChanged);
    connect(m_schedule, &QComboBox::currentIndexChanged, this, &TrainingPanel::updatePlan);
    for (QSpinBox* s : {m_epochs, m_maxSteps, m_embeddingDim, m_snapshotEvery})
        connect(s, &QSpinBox::valueChanged, this, &TrainingPanel::updatePlan);
    for (QDoubleSpinBox* s : {m_labelFraction, m_validationFraction})
        connect(s, &QDoubleSpinBox::valueChanged, this, &TrainingPanel::updatePlan);
    connect(m_external, &QLineEdit::textChanged, this, &TrainingPanel::updatePlan);

    connect(m_start, &QPushButton::clicked, this, &TrainingPanel::startRequested);
    connect(m_pause, &QPushButton::clicked, this, [this] {
        if (m_state == Session::TrainingState::Paused)
            Q_EMIT resumeRequested();
        else if (m_state == Session::TrainingState::Running)
            Q_EMIT pauseRequested();
    });
    connect(m_cancel, &QPushButton::clicked, this, &TrainingPanel::cancelRequested);
}

// --- the generated option groups ---------------------------------------------------------

std::string TrainingPanel::recipeName() const { return str(m_method->currentData().toString()); }

std::vector<std::pair<std::string, std::string>> TrainingPanel::selectedItems() const
{
    std::vector<std::pair<std::string, std::string>> out;
    if (!isCustom())
        out.emplace_back("recipe", recipeName());
    out.emplace_back("model", str(m_model->currentText()));
    if (isCustom()) {
        out.emplace_back("loss", str(m_loss->currentText()));
        out.emplace_back("augmentation", str(m_augmentation->currentData().toString()));
        out.emplace_back("sampler", str(m_sampler->currentData().toString()));
    }
    out.emplace_back("optimizer", str(m_optimizer->currentText()));
    std::erase_if(out, [](const auto& kv) { return kv.second.empty(); });
    return out;
}

const sdk::OptionSchema* TrainingPanel::schemaOf(const std::string& kind, const std::string& item) const
{
    auto options = [](const auto* info) { return info ? &info->options : nullptr; };
    if (kind == "recipe")
        return options(m_registry.recipe(item));
    if (kind == "model")
        return options(m_registry.encoder(item));
    if (kind == "loss")
        return options(m_registry.loss(item));
    if (kind == "augmentation")
        return options(m_registry.augmentation(item));
    if (kind == "sampler")
        return options(m_registry.sampler(item));
    if (kind == "optimizer")
        return options(m_registry.optimizer(item));
    return nullptr;
}

QString TrainingPanel::descriptionOf(const std::string& kind, const std::string& item) const
{
    auto description = [](const auto* info) { return info ? qstr(info->description) : QString(); };
    if (kind == "recipe")
        return description(m_registry.recipe(item));
    if (kind == "model")
        return description(m_registry.encoder(item));
    if (kind == "loss")
        return description(m_registry.loss(item));
    if (kind == "augmentation")
        return description(m_registry.augmentation(item));
    if (kind == "sampler")
        return description(m_registry.sampler(item));
    if (kind == "optimizer")
        return description(m_registry.optimizer(item));
    return {};
}

TrainingPanel::OptionMap TrainingPanel::baselineOf(const std::string& kind, const std::string& item) const
{
    const sdk::OptionSchema* schema = schemaOf(kind, item);
    if (!schema)
        return {};
    OptionMap out;
    try {
        out = sdk::OptionValues::resolve(*schema, {}, kind + " " + item).values();
    } catch (const std::exception&) {
        return {}; // a broken schema: planRun says so in the plan line
    }
    const std::string preset = str(m_preset->currentData().toString());
    if (kind == "model" && !preset.empty()) {
        if (const sdk::EncoderInfo* model = m_registry.encoder(item))
            for (const auto& [k, v] : train::presetModelOptions(preset, *model))
                out[k] = v;
        return out;
    }
    if (preset.empty() || (kind != "optimizer" && kind != "sampler"))
        return out;
    // The preset's values come from the planner itself, so the form shows what a run uses.
    train::TrainerConfig t;
    t.preset = preset;
    try {
        if (kind == "optimizer") {
            t.optimizer = item;
            t.model = str(m_model->currentText());
            t.loss = m_registry.losses().empty() ? std::string() : m_registry.losses().front().name;
            out = train::planRun(t, m_registry).optimizerOptions.values();
        } else {
            train::PlannedStage stage;
            stage.stage.sampler = item;
            out = train::resolveSamplerOptions(*m_registry.sampler(item), stage, t).values();
        }
    } catch (const std::exception&) {
        // keep the schema's defaults
    }
    return out;
}

bool TrainingPanel::canonical(const sdk::OptionSpec& spec, const std::string& text, std::string& out, std::string& error)
{
    try {
        out = sdk::OptionValues::resolve({spec}, {{spec.name, text}}, "").values().at(spec.name);
        return true;
    } catch (const std::exception& e) {
        error = e.what();
        if (error.rfind(": ", 0) == 0) // no owner given
            error.erase(0, 2);
        return false;
    }
}

std::string TrainingPanel::editorText(const OptionEditor& e)
{
    switch (e.spec.type) {
    case sdk::OptionType::Integer: {
        const int v = static_cast<QSpinBox*>(e.widget)->value();
        // A baseline beyond int's range shows clamped; it still counts as the baseline.
        std::int64_t base = 0;
        if (sdk::detail::parseInteger(e.baseline, base) && clampToInt(static_cast<double>(base)) == v)
            return e.baseline;
        return std::to_string(v);
    }
    case sdk::OptionType::Flag: return static_cast<QCheckBox*>(e.widget)->isChecked() ? "true" : "false";
    case sdk::OptionType::Choice: return str(static_cast<QComboBox*>(e.widget)->currentText());
    case sdk::OptionType::Real:
    case sdk::OptionType::Text:
    case sdk::OptionType::IntegerList: {
        QString t = static_cast<QLineEdit*>(e.widget)->text();
        if (e.spec.type == sdk::OptionType::IntegerList)
            t.remove(QLatin1Char(' ')); // "512, 256" as typed
        return str(e.spec.type == sdk::OptionType::Text ? t : t.trimmed());
    }
    }
    return {};
}

void TrainingPanel::setEditorText(const OptionEditor& e, const std::string& text)
{
    switch (e.spec.type) {
    case sdk::OptionType::Integer: {
        std::int64_t v = 0;
        if (sdk::detail::parseInteger(text, v))
            static_cast<QSpinBox*>(e.widget)->setValue(clampToInt(static_cast<double>(v)));
        return;
    }
    case sdk::OptionType::Flag: {
        bool v = false;
        if (sdk::detail::parseFlag(text, v))
            static_cast<QCheckBox*>(e.widget)->setChecked(v);
        return;
    }
    case sdk::OptionType::Choice: {
        auto* c = static_cast<QComboBox*>(e.widget);
        if (const int i = c->findText(qstr(text)); i >= 0)
            c->setCurrentIndex(i);
        return;
    }
    case sdk::OptionType::Real:
    case sdk::OptionType::Text:
    case sdk::OptionType::IntegerList: static_cast<QLineEdit*>(e.widget)->setText(qstr(text)); return;
    }
}

QWidget* TrainingPanel::makeEditor(OptionEditor& e)
{
    const sdk::OptionSpec& o = e.spec;
    QWidget* w = nullptr;
    switch (o.type) {
    case sdk::OptionType::Integer: {
        auto* s = new QSpinBox;
        s->setRange(clampToInt(std::ceil(o.min)), clampToInt(std::floor(o.max)));
        connect(s, &QSpinBox::valueChanged, this, &TrainingPanel::updatePlan);
        w = s;
        break;
    }
    case sdk::OptionType::Flag: {
        auto* c = new QCheckBox;
        connect(c, &QCheckBox::toggled, this, &TrainingPanel::updatePlan);
        w = c;
        break;
    }
    case sdk::OptionType::Choice: {
        auto* c = new QComboBox;
        for (const std::string& choice : o.choices)
            c->addItem(qstr(choice));
        connect(c, &QComboBox::currentIndexChanged, this, &TrainingPanel::updatePlan);
        w = c;
        break;
    }
    case sdk::OptionType::Real:
    case sdk::OptionType::Text:
    case sdk::OptionType::IntegerList: {
        // Real numbers are typed, not spun: 1e-5 and 1e6 in one field, and a value outside the
        // range stays visible with the planner's message instead of being clamped away.
        auto* l = new QLineEdit;
        if (o.type == sdk::OptionType::IntegerList)
            l->setPlaceholderText(tr("comma-separated, e.g. 512,256"));
        if (o.type == sdk::OptionType::Real)
            l->setPlaceholderText(qstr(o.defaultValue));
        connect(l, &QLineEdit::textChanged, this, &TrainingPanel::updatePlan);
        w = l;
        break;
    }
    }
    w->setObjectName(qstr("opt." + e.kind + "." + e.item + "." + o.name));
    w->setToolTip(qstr(sdk::describeOption(o)));
    e.widget = w;
    return w;
}

void TrainingPanel::markEditor(const OptionEditor& e)
{
    auto* line = qobject_cast<QLineEdit*>(e.widget);
    if (!line)
        return; // spin boxes, check boxes and choices cannot hold an invalid value
    std::string value, error;
    const bool ok = canonical(e.spec, editorText(e), value, error);
    line->setStyleSheet(ok ? QString() : kErrorStyle);
    const QString tip = qstr(sdk::describeOption(e.spec));
    line->setToolTip(ok ? tip : tip + QStringLiteral("\n\n") + qstr(error));
}

TrainingPanel::OptionMap TrainingPanel::givenOptions(const std::string& kind) const
{
    if (!isCustom() && recipeName() == m_keptRecipe) {
        if (kind == "loss")
            return m_keptLoss;
        if (kind == "augmentation")
            return m_keptAugmentation;
        if (kind == "sampler")
            return m_keptSampler;
    }
    OptionMap out;
    for (const OptionEditor& e : m_editors)
        if (std::string value; e.kind == kind && givenValue(e, value))
            out[e.spec.name] = value;
    return out;
}

bool TrainingPanel::givenValue(const OptionEditor& e, std::string& out)
{
    const std::string text = editorText(e);
    std::string error;
    if (!canonical(e.spec, text, out, error)) {
        out = text; // as typed: planRun names the problem
        return true;
    }
    return out != e.baseline;
}

void TrainingPanel::rebuildOptionGroups()
{
    for (QWidget* g : m_groups)
        delete g;
    m_groups.clear();
    m_editors.clear();

    for (const auto& [kind, item] : selectedItems()) {
        const sdk::OptionSchema* schema = schemaOf(kind, item);
        if (!schema)
            continue;
        const OptionMap baseline = baselineOf(kind, item);
        const OptionMap& remembered = m_remembered[kind + "." + item];
        QString title = qstr(kind) + QStringLiteral(": ") + qstr(item);
        title[0] = title[0].toUpper();
        auto* group = new QGroupBox(title);
        group->setObjectName(qstr("group." + kind));
        auto* form = new QFormLayout(group);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        auto* about = new QLabel(descriptionOf(kind, item));
        about->setWordWrap(true);
        about->setForegroundRole(QPalette::PlaceholderText);
        form->addRow(about);
        if (schema->empty())
            form->addRow(new QLabel(tr("(no options)")));
        for (const sdk::OptionSpec& o : *schema) {
            OptionEditor e{kind, item, o, {}, nullptr};
            const auto b = baseline.find(o.name);
            e.baseline = b != baseline.end() ? b->second : o.defaultValue;
            QWidget* w = makeEditor(e);
            const auto r = remembered.find(o.name);
            {
                const QSignalBlocker block(w);
                setEditorText(e, r != remembered.end() ? r->second : e.baseline);
            }
            auto* label = new QLabel(qstr(o.name));
            label->setToolTip(w->toolTip());
            label->setBuddy(w);
            form->addRow(label, w);
            m_editors.push_back(e);
        }
        m_groupsLayout->addWidget(group);
        m_groups.push_back(group);
    }
    for (const OptionEditor& e : m_editors)
        markEditor(e);
}

void TrainingPanel::selectionChanged()
{
    if (m_building)
        return;
    // Remember what was set for the items shown so far: choosing one again brings it back.
    std::map<std::string, OptionMap> current;
    for (const OptionEditor& e : m_editors)
        current[e.kind + "." + e.item]; // an item left at its defaults forgets older values
    for (const OptionEditor& e : m_editors)
        if (std::string value; givenValue(e, value))
            current[e.kind + "." + e.item][e.spec.name] = value;
    for (auto& [key, values] : current)
        m_remembered[key] = std::move(values);
    if (recipeName() != m_keptRecipe) {
        m_keptRecipe.clear();
        m_keptLoss.clear();
        m_keptAugmentation.clear();
        m_keptSampler.clear();
    }
    updateCustomRows();
    rebuildOptionGroups();
    updatePlan();
}

void TrainingPanel::updateCustomRows()
{
    const bool custom = isCustom();
    m_methodAbout->setText(custom ? tr("custom: the loss, augmentation and sampler chosen below")
                                  : descriptionOf("recipe", recipeName()));
    m_formLayout->setRowVisible(m_loss, custom);
    m_formLayout->setRowVisible(m_augmentation, custom);
    m_formLayout->setRowVisible(m_sampler, custom);
}

bool TrainingPanel::recipeNeedsExternal() const
{
    const sdk::RecipeInfo* r = m_registry.recipe(recipeName());
    if (isCustom() || !r || !r->stages)
        return false;
    try {
        for (const sdk::RecipeStage& s : r->stages(sdk::OptionValues::resolve(r->options, givenOptions("recipe"),
                                                                              "recipe " + r->name)))
            if (s.external)
                return true;
    } catch (const std::exception&) {
        // invalid recipe options: the plan line shows why
    }
    return false;
}

void TrainingPanel::updatePlan()
{
    if (m_building)
        return;
    for (const OptionEditor& e : m_editors)
        markEditor(e);
    const bool external = recipeNeedsExternal();
    m_external->setEnabled(external);
    train::TrainerConfig c = config();
    const bool missingExternal = external && c.externalDataset.empty();
    if (missingExternal)
        c.externalDataset = "?"; // report every other problem first
    try {
        const train::RunPlan plan = train::planRun(c, m_registry);
        m_planOk = !missingExternal;
        m_planText = missingExternal ? tr("%1 pre-trains on an external dataset: enter its name or path under "
                                          "External dataset")
                                           .arg(m_method->currentText())
                                     : qstr(plan.describe());
    } catch (const std::exception& e) {
        m_planOk = false;
        m_planText = QString::fromUtf8(e.what());
    }
    m_plan->setText(m_planOk ? tr("Plan: %1").arg(m_planText) : m_planText);
    m_plan->setStyleSheet(m_planOk ? QString() : QStringLiteral("color: #d0302f;"));
    m_plan->setToolTip(m_planOk ? QString() : tr("Start is disabled until this is fixed"));
    updateEnabled();
}

QString TrainingPanel::planText() const { return m_planText; }

// --- config --------------------------------------------------------------------------------

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

int TrainingPanel::processes() const { return m_processes->value(); }

train::TrainerConfig TrainingPanel::config() const
{
    train::TrainerConfig c = m_base;
    c.recipe = recipeName();
    c.recipeOptions = givenOptions("recipe");
    c.model = str(m_model->currentText());
    c.modelOptions = givenOptions("model");
    c.loss = isCustom() ? str(m_loss->currentText()) : std::string();
    c.augmentation = isCustom() ? str(m_augmentation->currentData().toString()) : std::string();
    c.sampler = isCustom() ? str(m_sampler->currentData().toString()) : std::string();
    c.lossOptions = givenOptions("loss");
    c.augmentationOptions = givenOptions("augmentation");
    c.samplerOptions = givenOptions("sampler");
    c.optimizer = str(m_optimizer->currentText());
    c.optimizerOptions = givenOptions("optimizer");
    c.schedule = str(m_schedule->currentText());
    c.preset = str(m_preset->currentData().toString());
    if (!m_labelSet->currentText().isEmpty())
        c.labelSet = str(m_labelSet->currentText());
    c.labelFraction = m_labelFraction->value();
    c.validationFraction = m_validationFraction->value() < 0 ? -1.0 : m_validationFraction->value();
    c.externalDataset = recipeNeedsExternal() ? str(m_external->text().trimmed()) : std::string();
    c.epochs = m_epochs->value();
    c.maxSteps = m_maxSteps->value();
    c.embeddingDim = m_embeddingDim->value();
    // "cuda:1" from setConfig() stays while the choice is still cuda.
    const QString device = m_device->currentText();
    if (QString::fromStdString(m_base.device).section(QLatin1Char(':'), 0, 0) != device)
        c.device = str(device);
    c.snapshotEvery = m_snapshotEvery->value();
    return c;
}

void TrainingPanel::setConfig(const train::TrainerConfig& c)
{
    m_building = true;
    m_base = c;
    auto selectData = [](QComboBox* box, const std::string& value) {
        if (const int i = box->findData(qstr(value)); i >= 0)
            box->setCurrentIndex(i);
    };
    auto selectText = [](QComboBox* box, const std::string& value) {
        if (const int i = box->findText(qstr(value)); i >= 0)
            box->setCurrentIndex(i);
    };
    selectData(m_method, c.recipe);
    selectText(m_model, c.model);
    selectText(m_loss, c.loss.empty() ? std::string("triplet") : c.loss); // "" is triplet (TrainerConfig)
    selectData(m_augmentation, c.augmentation);
    selectData(m_sampler, c.sampler);
    selectText(m_optimizer, c.optimizer);
    selectText(m_schedule, c.schedule);
    selectData(m_preset, c.preset);
    selectText(m_labelSet, c.labelSet);
    m_labelFraction->setValue(c.labelFraction);
    m_validationFraction->setValue(c.validationFraction < 0 ? m_validationFraction->minimum() : c.validationFraction);
    if (!c.externalDataset.empty())
        m_external->setText(qstr(c.externalDataset));
    m_epochs->setValue(c.epochs);
    m_maxSteps->setValue(static_cast<int>(std::clamp<std::int64_t>(c.maxSteps, 0, m_maxSteps->maximum())));
    m_embeddingDim->setValue(c.embeddingDim);
    selectText(m_device, str(QString::fromStdString(c.device).section(QLatin1Char(':'), 0, 0)));
    m_snapshotEvery->setValue(static_cast<int>(std::clamp<std::int64_t>(c.snapshotEvery, 0, m_snapshotEvery->maximum())));

    m_remembered.clear();
    m_keptRecipe.clear();
    m_keptLoss.clear();
    m_keptAugmentation.clear();
    m_keptSampler.clear();
    m_remembered["model." + str(m_model->currentText())] = c.modelOptions;
    m_remembered["optimizer." + str(m_optimizer->currentText())] = c.optimizerOptions;
    if (isCustom()) {
        m_remembered["loss." + str(m_loss->currentText())] = c.lossOptions;
        m_remembered["augmentation." + str(m_augmentation->currentData().toString())] = c.augmentationOptions;
        m_remembered["sampler." + str(m_sampler->currentData().toString())] = c.samplerOptions;
    } else {
        m_remembered["recipe." + recipeName()] = c.recipeOptions;
        m_keptRecipe = recipeName();
        m_keptLoss = c.lossOptions;
        m_keptAugmentation = c.augmentationOptions;
        m_keptSampler = c.samplerOptions;
    }
    updateCustomRows();
    rebuildOptionGroups();
    m_building = false;
    updatePlan();
}

void TrainingPanel::setDataset(const data::Dataset* dataset)
{
    refreshLabelSets(dataset);
    if (dataset && dataset->size() > 0) {
        const int kind = dataset->isVectorDataset() ? 0 : 1;
        if (kind != m_defaultsKind) {
            m_defaultsKind = kind;
            const bool cuda = m_device->currentText() == QStringLiteral("cuda");
            const train::DatasetDefaults d = train::datasetDefaults(kind == 1, std::string(), cuda);
            train::TrainerConfig c = config();
            c.recipe = d.recipe;
            c.recipeOptions.clear();
            c.model = d.model;
            c.modelOptions.clear();
            c.preset = d.preset;
            c.epochs = d.epochs > 0 ? d.epochs : train::TrainerConfig{}.epochs;
            c.loss = d.recipe.empty() ? std::string("triplet") : std::string();
            c.augmentation.clear();
            c.sampler.clear();
            c.lossOptions.clear();
            c.augmentationOptions.clear();
            c.samplerOptions.clear();
            setConfig(c);
        }
    }
    resetRun();
    updatePlan();
}

bool TrainingPanel::selectLabelSet(const QString& name)
{
    const int i = m_labelSet->findText(name);
    if (i >= 0)
        m_labelSet->setCurrentIndex(i);
    return i >= 0;
}

void TrainingPanel::refreshLabelSets(const data::Dataset* dataset)
{
    m_hasDataset = dataset != nullptr;
    const QString previous = m_labelSet->currentText();
    {
        const QSignalBlocker block(m_labelSet);
        m_labelSet->clear();
        if (dataset)
            for (const data::LabelSet& ls : dataset->labelSets())
                m_labelSet->addItem(QString::fromStdString(ls.name));
        int i = m_labelSet->findText(previous.isEmpty() ? qstr(m_base.labelSet) : previous);
        if (i < 0)
            i = m_labelSet->findText(QStringLiteral("fine"));
        m_labelSet->setCurrentIndex(std::max(0, i));
    }
}

// --- run state -------------------------------------------------------------------------------

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
    m_start->setEnabled(idle && m_hasDataset && m_planOk);
    m_start->setToolTip(m_planOk ? QString() : m_planText);
    // A multi-process run cannot pause (Session::pauseTraining); the field is locked while it runs.
    const bool processes = m_processes->value() > 1;
    m_pause->setEnabled((m_state == S::Running || m_state == S::Paused) && !processes);
    m_pause->setToolTip(processes ? tr("A multi-process run cannot pause: the other processes would wait on it "
                                       "until their timeout. Cancel it and resume from its last checkpoint.")
                                  : QString());
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
