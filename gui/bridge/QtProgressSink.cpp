// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/bridge/QtProgressSink.h"

namespace setscope::gui {

QtProgressSink::QtProgressSink(QObject* parent)
    : QObject(parent)
{
    registerMetaTypes();
}

void QtProgressSink::registerMetaTypes()
{
    qRegisterMetaType<setscope::train::EpochMetrics>("setscope::train::EpochMetrics");
}

void QtProgressSink::progress(std::int64_t done, std::int64_t total, const std::string& what)
{
    Q_EMIT progressReported(done, total, QString::fromStdString(what));
}

void QtProgressSink::message(const std::string& text) { Q_EMIT messageReported(QString::fromStdString(text)); }

void QtProgressSink::stepLoss(std::int64_t step, double loss) { Q_EMIT stepLossReported(step, loss); }

void QtProgressSink::epochMetrics(const train::EpochMetrics& m) { Q_EMIT epochMetricsReported(m); }

void QtProgressSink::finished(job::JobStatus status, const std::string& detail)
{
    Q_EMIT jobFinished(static_cast<int>(status), QString::fromStdString(detail));
}

} // namespace setscope::gui
