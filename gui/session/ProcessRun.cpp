// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/session/ProcessRun.h"

#include "core/dist/LocalLaunch.h"
#include "core/job/ProgressSink.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <cmath>
#include <csignal>
#include <limits>

#include <sys/prctl.h>
#include <unistd.h>

namespace setscope::gui {

namespace {

double number(const QJsonValue& v)
{
    return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

} // namespace

QString ProcessRun::cliExecutable()
{
    const QString env = qEnvironmentVariable("SETSCOPE_CLI");
    if (!env.isEmpty())
        return QFileInfo(env).isExecutable() ? env : QString();
    const QDir here(QCoreApplication::applicationDirPath());
    for (const QString& candidate : {here.filePath(QStringLiteral("setscope-cli")), here.filePath(QStringLiteral("../cli/setscope-cli"))})
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    return QStandardPaths::findExecutable(QStringLiteral("setscope-cli"));
}

ProcessRun::ProcessRun(QObject* parent)
    : QObject(parent)
{
    connect(&m_process, &QProcess::readyReadStandardOutput, this, &ProcessRun::readOutput);
    connect(&m_process, &QProcess::readyReadStandardError, this, &ProcessRun::readErrors);
    connect(&m_process, &QProcess::finished, this, &ProcessRun::onFinished);
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (running()) {
            Q_EMIT message(tr("The run's launcher did not end after its ranks' stop grace: killing it"));
            m_process.kill(); // its ranks follow (parent-death signal, lifeline pipe)
        }
    });
}

namespace {

/// How long stop() and the destructor give the launcher: its own stop grace (after which it
/// kills its ranks) and a margin.
int launcherGraceMs() { return static_cast<int>(dist::stopGrace().count()) + 5000; }

} // namespace

ProcessRun::~ProcessRun()
{
    if (!running())
        return;
    disconnect(&m_process, nullptr, this, nullptr);
    interrupt();
    if (!m_process.waitForFinished(launcherGraceMs())) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool ProcessRun::start(const QString& program, const QStringList& arguments, QString* error, const QString& tempDir)
{
    if (!tempDir.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TMPDIR"), tempDir);
        m_process.setProcessEnvironment(env);
    }
    // The launcher lives no longer than this program: if it ends (a crash, a kill), the kernel
    // sends the launcher SIGTERM, which it passes on to its ranks as a cancel (issue 29 §5).
    // QProcess forks from this (the GUI) thread, which lives as long as the program.
    const pid_t gui = ::getpid();
    m_process.setChildProcessModifier([gui] {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != gui) // gone before the line above
            ::_exit(143);
    });
    m_process.start(program, arguments);
    if (!m_process.waitForStarted(10000)) {
        if (error)
            *error = tr("cannot start %1: %2").arg(program, m_process.errorString());
        return false;
    }
    return true;
}

void ProcessRun::interrupt()
{
    if (running())
        ::kill(static_cast<pid_t>(m_process.processId()), SIGINT);
}

void ProcessRun::stop()
{
    if (!running())
        return;
    interrupt();
    if (!m_killTimer.isActive())
        m_killTimer.start(launcherGraceMs());
}

void ProcessRun::readOutput()
{
    m_out += m_process.readAllStandardOutput();
    for (qsizetype nl; (nl = m_out.indexOf('\n')) >= 0;) {
        const QByteArray line = m_out.left(nl);
        m_out.remove(0, nl + 1);
        handleLine(line);
    }
}

void ProcessRun::readErrors()
{
    m_err += m_process.readAllStandardError();
    for (qsizetype nl; (nl = m_err.indexOf('\n')) >= 0;) {
        const QString line = QString::fromUtf8(m_err.left(nl)).trimmed();
        m_err.remove(0, nl + 1);
        if (line.isEmpty() || line.startsWith(QStringLiteral("progress:")))
            continue;
        m_lastErrLine = line;
        if (line.startsWith(QStringLiteral("setscope-cli: ")))
            m_errors << line.mid(14);
        Q_EMIT message(line);
    }
}

void ProcessRun::handleLine(const QByteArray& line)
{
    const QJsonObject o = QJsonDocument::fromJson(line).object();
    const QString event = o.value(QStringLiteral("event")).toString();
    if (event == QLatin1String("progress")) {
        Q_EMIT progress(static_cast<qint64>(o.value(QStringLiteral("done")).toDouble()),
                        static_cast<qint64>(o.value(QStringLiteral("total")).toDouble()), o.value(QStringLiteral("what")).toString());
    } else if (event == QLatin1String("loss")) {
        Q_EMIT stepLoss(static_cast<qint64>(o.value(QStringLiteral("step")).toDouble()), number(o.value(QStringLiteral("loss"))));
    } else if (event == QLatin1String("epoch")) {
        train::EpochMetrics m;
        m.epoch = o.value(QStringLiteral("epoch")).toInt();
        m.step = static_cast<std::int64_t>(o.value(QStringLiteral("step")).toDouble());
        m.meanLoss = number(o.value(QStringLiteral("mean_loss")));
        m.seconds = number(o.value(QStringLiteral("seconds")));
        m.stage = o.value(QStringLiteral("stage")).toString().toStdString();
        for (const QJsonValue& v : o.value(QStringLiteral("values")).toArray()) {
            const QJsonArray kv = v.toArray();
            m.values.emplace_back(kv.at(0).toString().toStdString(), number(kv.at(1)));
        }
        m_history.push_back(m);
        Q_EMIT epochMetrics(m);
    } else if (event == QLatin1String("checkpoint")) {
        m_lastCheckpoint = o.value(QStringLiteral("path")).toString();
        Q_EMIT checkpointWritten(static_cast<qint64>(o.value(QStringLiteral("step")).toDouble()), m_lastCheckpoint);
    } else if (event == QLatin1String("message")) {
        Q_EMIT message(o.value(QStringLiteral("text")).toString());
    } else if (event == QLatin1String("finished")) {
        m_reported = o.value(QStringLiteral("status")).toString();
        m_reportedDetail = o.value(QStringLiteral("detail")).toString();
    } else if (!line.trimmed().isEmpty()) {
        Q_EMIT message(QString::fromUtf8(line)); // not an event: shown as it is
    }
}

void ProcessRun::onFinished(int exitCode, QProcess::ExitStatus exitStatus)
{
    readOutput();
    readErrors();
    job::JobStatus status = job::JobStatus::Failed;
    QString detail;
    if (exitStatus == QProcess::NormalExit && exitCode == 0) {
        status = job::JobStatus::Finished;
    } else if (exitStatus == QProcess::NormalExit && exitCode == 130) {
        status = job::JobStatus::Cancelled;
    } else {
        // Rank 0's own reason first, then what the launcher and the other ranks said.
        QStringList why;
        if (m_reported == QLatin1String("failed") && !m_reportedDetail.isEmpty())
            why << m_reportedDetail;
        for (const QString& e : m_errors)
            if (!why.contains(e))
                why << e;
        if (why.isEmpty())
            why << (exitStatus == QProcess::CrashExit ? tr("setscope-cli crashed") : m_lastErrLine);
        detail = why.join(QStringLiteral("; "));
    }
    Q_EMIT finished(static_cast<int>(status), detail);
}

} // namespace setscope::gui
