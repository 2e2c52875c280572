// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/bridge/QtTrainingSink.h"

namespace setscope::gui {

namespace {

/// A training run's calls as the sink's signals.
class TrainingCallsToSignals final : public JobCallsToSignals<train::TrainingSink> {
public:
    explicit TrainingCallsToSignals(QtTrainingSink& owner)
        : JobCallsToSignals(owner)
        , m_owner(owner)
    {
    }
    void stepLoss(std::int64_t step, double loss) override { Q_EMIT m_owner.stepLossReported(step, loss); }
    void epochMetrics(const train::EpochMetrics& m) override { Q_EMIT m_owner.epochMetricsReported(m); }

private:
    QtTrainingSink& m_owner;
};

} // namespace

QtTrainingSink::QtTrainingSink(QObject* parent)
    : QtJobSink(std::make_unique<TrainingCallsToSignals>(*this), parent)
{
    registerMetaTypes();
}

void QtTrainingSink::registerMetaTypes()
{
    qRegisterMetaType<setscope::train::EpochMetrics>("setscope::train::EpochMetrics");
}

} // namespace setscope::gui
