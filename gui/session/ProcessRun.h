// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainingSink.h"

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <vector>

namespace setscope::gui {

/// A training run in other processes: `setscope-cli train ... --events`, typically with --nproc N
/// (a local multi-process run, docs/DISTRIBUTED.md). Reads the CLI's JSON lines (app/cli/
/// EventSink.h) and its messages into the same signals a TrainingJob's sink gives, so the
/// session shows it as one run: one progress bar, one loss curve, one table of epochs.
class ProcessRun final : public QObject {
    Q_OBJECT

public:
    /// The CLI to start: $SETSCOPE_CLI when set, else setscope-cli next to this program (or in
    /// ../cli/ of a build tree), else on PATH; "" when there is none.
    static QString cliExecutable();

    explicit ProcessRun(QObject* parent = nullptr);
    /// Interrupts a run still going and waits for it (the launcher's stop grace and a margin,
    /// then kills it): blocks, so the session destroys only runs that have ended, except when it
    /// is destroyed itself (stop() is the way to end a run without waiting).
    ~ProcessRun() override;

    /// Starts `program` with `arguments`; false (and `error`) when it cannot start. `tempDir`
    /// (when not empty) becomes its TMPDIR: the launcher makes the ranks' store folder there,
    /// so the folder goes with `tempDir` even when the launcher is killed.
    bool start(const QString& program, const QStringList& arguments, QString* error, const QString& tempDir = {});
    /// SIGINT: the launcher passes it to every rank, and each cancels at its next step.
    void interrupt();
    /// Ends the run without waiting (GUI thread): interrupt() now; if the launcher still runs
    /// after its own stop grace (dist::stopGrace(), after which it kills its ranks) and 5 s
    /// more, it is killed, and its ranks end with it (dist::watchLauncher). finished() follows.
    void stop();
    bool running() const { return m_process.state() != QProcess::NotRunning; }
    /// Epoch rows reported so far.
    const std::vector<train::EpochMetrics>& history() const { return m_history; }
    /// The newest checkpoint the run reported ("" when none).
    const QString& lastCheckpoint() const { return m_lastCheckpoint; }

Q_SIGNALS:
    void progress(qint64 done, qint64 total, const QString& what);
    void stepLoss(qint64 step, double loss);
    void epochMetrics(const setscope::train::EpochMetrics& metrics);
    void message(const QString& text);
    /// Rank 0 wrote a checkpoint (complete, renamed into place).
    void checkpointWritten(qint64 step, const QString& path);
    /// Once, when the process has ended: `status` a job::JobStatus value, `detail` why it failed.
    void finished(int status, const QString& detail);

private:
    void readOutput();
    void readErrors();
    void handleLine(const QByteArray& line);
    void onFinished(int exitCode, QProcess::ExitStatus exitStatus);

    QProcess m_process;
    QTimer m_killTimer; ///< stop()'s escalation
    QByteArray m_out, m_err;
    QStringList m_errors;      ///< "setscope-cli: ..." lines (the ranks' and the launcher's errors)
    QString m_lastErrLine;
    QString m_reported;        ///< status of the "finished" event ("" before it)
    QString m_reportedDetail;
    std::vector<train::EpochMetrics> m_history;
    QString m_lastCheckpoint;
};

} // namespace setscope::gui
