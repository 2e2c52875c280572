// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainingSink.h"

#include <QMetaType>
#include <QObject>
#include <QString>

Q_DECLARE_METATYPE(setscope::train::EpochMetrics)

namespace setscope::gui {

/// The GUI's implementation of core's ProgressSink. A job calls the sink on its worker
/// thread; every call becomes a Qt signal. The sink object lives on the GUI thread, so
/// receivers there get the signals queued (AutoConnection): slots run on the GUI thread
/// and may touch widgets. The sink must outlive the job it is given to.
///
/// The signals are named `...Reported` / jobFinished rather than after the virtuals: a
/// signal `epochMetrics(const EpochMetrics&)` would have the very signature of the virtual
/// it is emitted from, and same-named overloads would need qOverload in every connect.
class QtProgressSink final : public QObject, public train::TrainingSink {
    Q_OBJECT
public:
    explicit QtProgressSink(QObject* parent = nullptr);

    /// Registers the metatypes the signals carry (idempotent; the constructor calls it).
    static void registerMetaTypes();

    // ProgressSink (worker thread).
    void progress(std::int64_t done, std::int64_t total, const std::string& what) override;
    void message(const std::string& text) override;
    void stepLoss(std::int64_t step, double loss) override;
    void epochMetrics(const train::EpochMetrics& m) override;
    void finished(job::JobStatus status, const std::string& detail) override;

Q_SIGNALS:
    /// `done` of `total` units (total 0 = unknown).
    void progressReported(qint64 done, qint64 total, const QString& what);
    void messageReported(const QString& text);
    void stepLossReported(qint64 step, double loss);
    void epochMetricsReported(const setscope::train::EpochMetrics& m);
    /// `status` is a job::JobStatus; `detail` is the failure message for Failed.
    void jobFinished(int status, const QString& detail);
};

} // namespace setscope::gui
