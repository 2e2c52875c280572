// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainerConfig.h"
#include "gui/session/Session.h"

#include <setscope/sdk/Options.h>

#include <QWidget>

#include <map>
#include <string>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QSplitter;
class QVBoxLayout;

namespace setscope::data {
class Dataset;
}
namespace setscope::plugin {
class Registry;
}
namespace setscope::train {
struct EpochMetrics;
}

namespace setscope::gui {

class LossCurveWidget;

/// Sets up and controls a training run. The form is generated from the plugin registry:
/// a method (a registered recipe, or "custom" = loss, augmentation and sampler chosen here),
/// model, optimizer, schedule, preset, label set and fraction, validation share, external
/// dataset (only for recipes with an external stage), epochs, step limit, embedding
/// dimension, device and map interval; then one group of editors per selected item
/// (recipe, model, custom loss / augmentation / sampler, optimizer), one editor per declared
/// option, named "opt.<kind>.<item>.<option>". A line under the form shows the plan
/// (train::planRun) or why the configuration cannot run; Start is disabled while it cannot.
/// Start / Pause-Resume / Cancel emit requests; the Session runs the job and reports its
/// state back through setTrainingState(). Everything here runs on the GUI thread.
class TrainingPanel final : public QWidget {
    Q_OBJECT
public:
    /// `registry` must outlive the panel and stay unchanged while it exists.
    explicit TrainingPanel(const plugin::Registry& registry, QWidget* parent = nullptr);

    /// The configuration the widgets describe. Item option maps hold only the values that
    /// differ from the item's defaults (the preset's, where it sets them), so a changed
    /// default in a newer item applies to runs set up before.
    train::TrainerConfig config() const;
    /// Processes to train in (1: this one; more: a local multi-process run, Session::startTraining).
    int processes() const;
    /// Shows `c` in the widgets (values a widget cannot show are clamped to its range).
    /// Options of the items a recipe chooses for its stages have no editor; they are kept
    /// and returned by config() while that recipe stays selected.
    void setConfig(const train::TrainerConfig& c);
    /// Selects `name` in the Labels box when the dataset has that label set (a retrain with an
    /// edited set shows which labels supervise it). Returns whether it is there.
    bool selectLabelSet(const QString& name);
    /// Fills the label-set choice; Start needs a dataset. When the kind of dataset changes (or
    /// with the first one), the method, model, preset and epochs become that kind's defaults
    /// (train::datasetDefaults: the papers' `ours` with the set encoder and the cpu preset for
    /// 30 epochs for documents, graphs and point clouds; the MLP with the triplet loss for
    /// vectors and images); a dataset of the same kind keeps what the user chose.
    void setDataset(const data::Dataset* dataset);
    /// The label-set choice only (the same dataset with new label sets: a label edit); the
    /// run shown is kept.
    void refreshLabelSets(const data::Dataset* dataset);
    /// Enables "cuda" in the device choice (default: train::cudaAvailable()).
    void setCudaAvailable(bool available);

    /// True when config() passes train::planRun with this panel's registry.
    bool configValid() const { return m_planOk; }
    /// The plan ("self-supervised (wsset, 3 epochs)") or the reason config() cannot run.
    QString planText() const;

    Session::TrainingState trainingState() const { return m_state; }
    LossCurveWidget* lossCurve() const { return m_curve; }
    QPushButton* startButton() const { return m_start; }
    QPushButton* pauseButton() const { return m_pause; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }

public Q_SLOTS:
    void setTrainingState(setscope::gui::Session::TrainingState state);
    void showProgress(qint64 done, qint64 total, const QString& what);
    void addStepLoss(qint64 step, double loss);
    void addEpochMetrics(const setscope::train::EpochMetrics& m);
    /// The run ended (`status`: a job::JobStatus value; `detail`: why it failed).
    void showFinished(int status, const QString& detail);
    /// Clears the progress and the loss curve (a new run).
    void resetRun();

Q_SIGNALS:
    void startRequested();
    void pauseRequested();
    void resumeRequested();
    void cancelRequested();

private:
    // The constructor's parts.
    void createFields(const train::TrainerConfig& defaults);
    QScrollArea* buildForm();
    QSplitter* buildPanes(QScrollArea* scroll);
    void connectFields();
    using OptionMap = std::map<std::string, std::string>;

    /// One generated editor: a QSpinBox (Integer), QCheckBox (Flag), QComboBox (Choice) or
    /// QLineEdit (Real, Text, IntegerList).
    struct OptionEditor {
        std::string kind;     ///< recipe | model | loss | augmentation | sampler | optimizer
        std::string item;     ///< the registered name
        sdk::OptionSpec spec;
        std::string baseline; ///< canonical value used when the option is not given
        QWidget* widget = nullptr;
    };

    /// The selected item of each kind that gets a group ("" = none).
    std::vector<std::pair<std::string, std::string>> selectedItems() const;
    const sdk::OptionSchema* schemaOf(const std::string& kind, const std::string& item) const;
    QString descriptionOf(const std::string& kind, const std::string& item) const;
    /// The values an item's options take when not given: its defaults, with the preset's
    /// values for the optimizer and the sampler.
    OptionMap baselineOf(const std::string& kind, const std::string& item) const;
    std::string recipeName() const;
    bool isCustom() const { return recipeName().empty(); }
    /// The options of the selected `kind` item that differ from their baseline.
    OptionMap givenOptions(const std::string& kind) const;
    static std::string editorText(const OptionEditor& e);
    /// True when `e` holds a value other than its baseline: `out` is it (canonical, or as
    /// typed when invalid, so that planRun reports it).
    static bool givenValue(const OptionEditor& e, std::string& out);
    static void setEditorText(const OptionEditor& e, const std::string& text);
    /// The canonical form of `text` for `spec`, or false (and `error`) when it is invalid.
    static bool canonical(const sdk::OptionSpec& spec, const std::string& text, std::string& out, std::string& error);

    /// Replaces the option groups with those of the selected items, their editors filled
    /// from m_remembered or the baselines.
    void rebuildOptionGroups();
    QWidget* makeEditor(OptionEditor& e);
    void selectionChanged();
    void updateCustomRows();
    bool recipeNeedsExternal() const;
    void updatePlan();
    void markEditor(const OptionEditor& e);
    void updateEnabled();
    void updateProgressText();

    const plugin::Registry& m_registry;
    bool m_hasDataset = false;
    QLabel* m_methodAbout = nullptr; ///< the chosen recipe's description: its paper and equation
    int m_defaultsKind = -1; ///< the dataset kind whose defaults are shown: -1 none yet, 0 vectors, 1 sets
    bool m_planOk = false;
    QString m_planText;
    bool m_building = false;
    Session::TrainingState m_state = Session::TrainingState::Idle;
    qint64 m_done = 0;
    qint64 m_total = 0;
    QString m_what;
    QString m_outcome; ///< "finished", "cancelled", "failed" once the run ended
    double m_lastLoss = -1.0;

    /// The fields this panel does not show (seed, threads, checkpoints...), from setConfig().
    train::TrainerConfig m_base;
    /// Values given per item ("loss.wsset" -> option -> value), kept while other items are
    /// selected so that choosing an item again brings its values back.
    std::map<std::string, OptionMap> m_remembered;
    /// setConfig()'s loss / augmentation / sampler options for the stages of m_keptRecipe.
    std::string m_keptRecipe;
    OptionMap m_keptLoss, m_keptAugmentation, m_keptSampler;
    std::vector<OptionEditor> m_editors;
    std::vector<QWidget*> m_groups;

    QComboBox* m_method = nullptr;
    QComboBox* m_model = nullptr;
    QComboBox* m_loss = nullptr;
    QComboBox* m_augmentation = nullptr;
    QComboBox* m_sampler = nullptr;
    QComboBox* m_optimizer = nullptr;
    QComboBox* m_schedule = nullptr;
    QComboBox* m_preset = nullptr;
    QComboBox* m_labelSet = nullptr;
    QDoubleSpinBox* m_labelFraction = nullptr;
    QDoubleSpinBox* m_validationFraction = nullptr;
    QLineEdit* m_external = nullptr;
    QComboBox* m_device = nullptr;
    QSpinBox* m_epochs = nullptr;
    QSpinBox* m_embeddingDim = nullptr;
    QSpinBox* m_maxSteps = nullptr;
    QSpinBox* m_snapshotEvery = nullptr;
    QSpinBox* m_processes = nullptr;
    QFormLayout* m_formLayout = nullptr;
    QVBoxLayout* m_groupsLayout = nullptr;
    QLabel* m_plan = nullptr;
    QPushButton* m_start = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    LossCurveWidget* m_curve = nullptr;
    QWidget* m_form = nullptr;
};

} // namespace setscope::gui
