// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainerConfig.h"
#include "gui/session/Session.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

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

/// Sets up and controls a training run: model and loss (from the plugin registry),
/// epochs, learning rate, margin (the loss's default until changed), batch composition
/// (classes x items per class), embedding dimension, supervising label set, device,
/// optional step limit and map update interval; Start / Pause-Resume / Cancel; a progress
/// bar (epoch, step, loss) and the loss curve. The buttons emit requests; the Session runs
/// the job and reports its state back through setTrainingState().
class TrainingPanel final : public QWidget {
    Q_OBJECT
public:
    explicit TrainingPanel(const plugin::Registry& registry, QWidget* parent = nullptr);

    /// The configuration the widgets describe.
    train::TrainerConfig config() const;
    /// Shows `c` in the widgets (values a widget cannot show are clamped to its range).
    void setConfig(const train::TrainerConfig& c);
    /// Fills the label-set choice; Start needs a dataset.
    void setDataset(const data::Dataset* dataset);
    /// Enables "cuda" in the device choice (default: train::cudaAvailable()).
    void setCudaAvailable(bool available);

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
    void updateEnabled();
    void updateProgressText();
    void lossChanged();

    const plugin::Registry& m_registry;
    bool m_hasDataset = false;
    Session::TrainingState m_state = Session::TrainingState::Idle;
    qint64 m_done = 0;
    qint64 m_total = 0;
    QString m_what;
    QString m_outcome; ///< "finished", "cancelled", "failed" once the run ended
    double m_lastLoss = -1.0;

    QComboBox* m_model = nullptr;
    QComboBox* m_loss = nullptr;
    QComboBox* m_labelSet = nullptr;
    QComboBox* m_device = nullptr;
    QSpinBox* m_epochs = nullptr;
    QDoubleSpinBox* m_learningRate = nullptr;
    QDoubleSpinBox* m_margin = nullptr;
    QSpinBox* m_batchClasses = nullptr;
    QSpinBox* m_batchPerClass = nullptr;
    QSpinBox* m_embeddingDim = nullptr;
    QSpinBox* m_maxSteps = nullptr;
    QSpinBox* m_snapshotEvery = nullptr;
    QPushButton* m_start = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_batchSize = nullptr;
    LossCurveWidget* m_curve = nullptr;
    QWidget* m_form = nullptr;
};

} // namespace setscope::gui
