// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainingSink.h"
#include "gui/bridge/QtJobSink.h"

#include <QMetaType>

Q_DECLARE_METATYPE(setscope::train::EpochMetrics)

namespace setscope::gui {

/// A QtJobSink for a training run: its reportTarget() is a train::TrainingSink, so the run
/// (train::TrainingJob, or the workspace's RunLaunchJob around one) also reports its step
/// losses and epoch rows, as the two signals below.
class QtTrainingSink final : public QtJobSink {
    Q_OBJECT
public:
    explicit QtTrainingSink(QObject* parent = nullptr);

    /// Registers the metatypes the signals carry (idempotent; the constructor calls it).
    static void registerMetaTypes();

Q_SIGNALS:
    void stepLossReported(qint64 step, double loss);
    void epochMetricsReported(const setscope::train::EpochMetrics& m);
};

} // namespace setscope::gui
