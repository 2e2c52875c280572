// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/ProgressSink.h"

#include <QObject>
#include <QString>

#include <memory>
#include <string>

namespace setscope::gui {

/// The GUI's end of core's job::ProgressSink, for any job: a job started with reportTarget()
/// calls it on its worker thread, and every call becomes a Qt signal of this object. The
/// object lives on the GUI thread, so receivers there get the signals queued
/// (AutoConnection): slots run on the GUI thread and may touch widgets. It must outlive the
/// job it reports for. A kind of job that reports more has its own sink (QtTrainingSink).
///
/// The object is not itself a ProgressSink: a job is given reportTarget(), whose type is the
/// sink's kind (a QtTrainingSink's is a train::TrainingSink), so a training run can never be
/// handed the plain half of a training sink and lose its losses without a word.
///
/// The signals are named `...Reported` / jobFinished rather than after the virtuals they are
/// emitted from, so that connecting needs no qOverload.
class QtJobSink : public QObject {
    Q_OBJECT
public:
    explicit QtJobSink(QObject* parent = nullptr);
    ~QtJobSink() override;

    /// What the job is started with (Job::start); its calls become this object's signals.
    job::ProgressSink* reportTarget() const { return m_target.get(); }

Q_SIGNALS:
    /// `done` of `total` units (total 0 = unknown).
    void progressReported(qint64 done, qint64 total, const QString& what);
    void messageReported(const QString& text);
    /// `status` is a job::JobStatus; `detail` is the failure message for Failed.
    void jobFinished(int status, const QString& detail);

protected:
    /// For kinds of sink that report more: `target` forwards every job::ProgressSink call to
    /// this object's signals (JobCallsToSignals) and the rest to its own.
    QtJobSink(std::unique_ptr<job::ProgressSink> target, QObject* parent);

private:
    std::unique_ptr<job::ProgressSink> m_target;
};

/// The job::ProgressSink calls of `Base` (job::ProgressSink or a kind that extends it) as
/// `owner`'s signals; a kind of sink derives its target from it and adds its own calls.
template <class Base>
class JobCallsToSignals : public Base {
public:
    explicit JobCallsToSignals(QtJobSink& owner)
        : m_owner(owner)
    {
    }
    void progress(std::int64_t done, std::int64_t total, const std::string& what) override
    {
        Q_EMIT m_owner.progressReported(done, total, QString::fromStdString(what));
    }
    void message(const std::string& text) override { Q_EMIT m_owner.messageReported(QString::fromStdString(text)); }
    void finished(job::JobStatus status, const std::string& detail) override
    {
        Q_EMIT m_owner.jobFinished(static_cast<int>(status), QString::fromStdString(detail));
    }

private:
    QtJobSink& m_owner;
};

} // namespace setscope::gui
