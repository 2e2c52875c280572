// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Who owns a rank's life (issue 29 §5): `setscope-cli train --nproc 2 --project P` is stopped the
// ways a launcher ends -- SIGKILL (the GUI's kill, an OOM killer), SIGTERM (kill), SIGHUP (a
// closed terminal) -- and a single-process run gets SIGTERM. Each time no rank outlives its
// launcher by more than the stop grace (SETSCOPE_DIST_STOP_GRACE, 5 s here) and a margin, the
// project records the run as cancelled (rank 0 took the cancel path), and the ranks' store
// folder is gone. A rank that cannot take the cancel path (stopped) is killed after the grace.
// The waits are bounds on a condition, logged with the time they took; none is asserted on.
#define SETSCOPE_CLI_TIMEOUT_MS 120000
#include "CliRun.h"

#include "core/project/ProjectStore.h"
#include "tests/support/Processes.h"
#include "tests/support/TimeFactor.h"

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/types.h>

using namespace setscope;

namespace {

using testing::childrenOf;
using testing::parentOf;
using testing::statOf;

const QString kDataset = QStringLiteral("synthetic:dim=6,coarse=3,fine=2,points=40,seed=4");
constexpr int kGraceSeconds = 5;

QStringList trainArgs(const QString& project, const QString& checkpoints)
{
    return {"train", "--dataset", kDataset, "--project", project, "--model", "mlp", "--model-option", "hidden=32,32",
            "--embedding-dim", "8", "--loss", "triplet", "--epochs", "100000", "--max-steps", "100000000",
            "--threads", "1", "--device", "cpu", "--seed", "3", "--no-baseline", "--checkpoint-every", "5",
            "--checkpoint-dir", checkpoints};
}

/// The process's start time (clock ticks since boot), "" when there is none: with the pid it
/// names one process, never a later one that reuses the pid.
std::string startOf(long pid)
{
    const std::vector<std::string> s = statOf(pid);
    return s.size() > 19 ? s[19] : std::string();
}

bool alive(long pid) { return parentOf(pid) >= 0; }

/// The value of `name` in the environment `pid` started with ("" when not set).
std::string environmentOf(long pid, const std::string& name)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
    std::string entry;
    while (std::getline(in, entry, '\0'))
        if (entry.compare(0, name.size() + 1, name + "=") == 0)
            return entry.substr(name.size() + 1);
    return {};
}

QString stepFile(const QString& dir, int step)
{
    return QDir(dir).filePath(QString("step-%1.pt").arg(step, 9, 10, QChar('0')));
}

/// The environment of the runs: a short stop grace, and TMPDIR inside the test's folder so the
/// ranks' store folder can be looked for.
QProcessEnvironment runEnv(const QString& tmp)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SETSCOPE_DIST_STOP_GRACE", QString::number(kGraceSeconds));
    env.insert("TMPDIR", tmp);
    return env;
}

/// The ranks' store folders under the test's TMPDIR (dir/tmp).
QStringList storeFolders(const QTemporaryDir& dir)
{
    return QDir(dir.filePath("tmp")).entryList({"setscope-ranks-*"}, QDir::Dirs);
}

QString runStatus(const QString& project)
{
    const auto store = project::ProjectStore::open(project.toStdString());
    const auto runs = store->runs();
    return runs.size() == 1 ? QString::fromStdString(runs.front().status) : QString("%1 runs").arg(runs.size());
}

} // namespace

class TestCliRankLifetime : public QObject {
    Q_OBJECT

private:
    /// Processes a failing test left behind (pid and start time): killed in cleanup() so they do
    /// not hold the machine.
    std::vector<std::pair<long, std::string>> m_leftovers;
    void leftover(long pid) { m_leftovers.emplace_back(pid, startOf(pid)); }

    /// One way a launcher ends (each its own test function: Qt Test's watchdog times whole
    /// functions, and a run of 2 ranks takes a while to start on a loaded machine).
    /// `readerLeaves`: the launcher's output pipes are closed at the signal, as when whoever read
    /// them (a pager, a GUI, this test's QProcess once the launcher has finished) goes with it.
    void launcherEnds(int signal, bool stopRank1, bool readerLeaves = false);
    /// Starts `train --nproc 2` with its project, checkpoints and TMPDIR (tmp/) in `dir`, and
    /// returns once both ranks train (rank 0 has written a checkpoint) and their store folder is
    /// there: `ranks` gets their pids, recorded as leftovers with the launcher's. The caller
    /// returns when QTest::currentTestFailed().
    void startTwoRanks(QProcess& launcher, const QTemporaryDir& dir, std::vector<long>& ranks);

private Q_SLOTS:
    void cleanup()
    {
        for (const auto& [p, start] : m_leftovers)
            if (alive(p) && !start.empty() && startOf(p) == start)
                ::kill(static_cast<pid_t>(p), SIGKILL);
        m_leftovers.clear();
    }

    void launcherKilled() { launcherEnds(SIGKILL, false); }
    // The ranks write to a pipe nobody reads any more: before, the write killed them by SIGPIPE
    // before they cancelled, and their store folder stayed (this failed one run in ~7 as
    // launcherKilled, where the QProcess closed its pipes once the launcher had finished).
    void launcherKilledWithItsReader() { launcherEnds(SIGKILL, false, true); }
    void launcherTerminated() { launcherEnds(SIGTERM, false); }
    void launcherHungUp() { launcherEnds(SIGHUP, false); } // a closed terminal
    void aStoppedRankIsKilledAfterTheGrace() { launcherEnds(SIGTERM, true); } // it cannot cancel
    void ranksInterruptedAsTheirLauncherDies();

    // One process, no launcher: SIGTERM (and SIGHUP) take the cancel path as Ctrl-C always did;
    // before, SIGTERM killed it and its run stayed "running" in the project.
    void oneProcessTakesTheCancelPath_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGHUP") << int(SIGHUP);
        QTest::newRow("SIGINT") << int(SIGINT);
    }

    void oneProcessTakesTheCancelPath()
    {
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString project = dir.filePath("p.setscope"), ck = dir.filePath("ck");
        QProcess p;
        p.setProcessEnvironment(runEnv(dir.path()));
        p.start(SETSCOPE_CLI, trainArgs(project, ck));
        QVERIFY(p.waitForStarted());
        leftover(p.processId());
        QVERIFY(testing::waitUntil([&] { return QFile::exists(stepFile(ck, 5)); }, std::chrono::seconds(120)));
        ::kill(static_cast<pid_t>(p.processId()), signal);
        QVERIFY(p.waitForFinished(testing::scaledMs(30000)));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 130, qPrintable(err));
        QCOMPARE(runStatus(project), QString("cancelled"));
    }
};

void TestCliRankLifetime::startTwoRanks(QProcess& launcher, const QTemporaryDir& dir, std::vector<long>& ranks)
{
    QVERIFY(QDir().mkpath(dir.filePath("tmp")));
    launcher.setProcessEnvironment(runEnv(dir.filePath("tmp")));
    launcher.start(SETSCOPE_CLI, trainArgs(dir.filePath("p.setscope"), dir.filePath("ck")) << "--nproc" << "2");
    QVERIFY(launcher.waitForStarted());
    const long lpid = launcher.processId();
    leftover(lpid);
    // Both ranks train once rank 0 has written a checkpoint.
    QVERIFY2(testing::waitUntil([&] { return QFile::exists(stepFile(dir.filePath("ck"), 5)); }, std::chrono::seconds(120)),
             qPrintable(QString::fromUtf8(launcher.readAllStandardError())));
    ranks = childrenOf(lpid);
    QCOMPARE(ranks.size(), std::size_t(2));
    for (long r : ranks)
        leftover(r);
    QCOMPARE(storeFolders(dir).size(), 1);
}

void TestCliRankLifetime::launcherEnds(int signal, bool stopRank1, bool readerLeaves)
{
    QTemporaryDir dir;
    const QString project = dir.filePath("p.setscope"), ck = dir.filePath("ck");
    QProcess launcher;
    std::vector<long> ranks;
    startTwoRanks(launcher, dir, ranks);
    if (QTest::currentTestFailed())
        return;
    const long lpid = launcher.processId();
    if (stopRank1) // the child whose environment says RANK=1
        for (long r : ranks)
            if (environmentOf(r, "RANK") == "1")
                ::kill(static_cast<pid_t>(r), SIGSTOP);
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(static_cast<pid_t>(lpid), signal);
    if (readerLeaves)
        launcher.close(); // reaps the launcher and closes the read ends of its pipes, which the ranks share
    const bool gone = testing::waitUntil([&] { return !alive(ranks[0]) && !alive(ranks[1]); },
                                         std::chrono::seconds(kGraceSeconds + 25));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    qInfo("both ranks gone %.2f s after the signal (grace %d s)", s, kGraceSeconds);
    QVERIFY2(gone, "a rank outlived its launcher");
    QVERIFY(readerLeaves || launcher.waitForFinished(testing::scaledMs(30000)));
    const QString err = QString::fromUtf8(launcher.readAllStandardError());
    if (readerLeaves) {
        // closed above: no exit status to read
    } else if (signal == SIGKILL) {
        QCOMPARE(launcher.exitStatus(), QProcess::CrashExit);
    } else {
        QCOMPARE(launcher.exitStatus(), QProcess::NormalExit);
        QVERIFY2(launcher.exitCode() == 130, qPrintable(err));
    }
    if (stopRank1)
        QVERIFY2(err.contains("still running 5 s after the interrupt: killing them"), qPrintable(err));
    else // rank 0 took the cancel path and recorded it
        QCOMPARE(runStatus(project), QString("cancelled"));
    // The ranks' store folder went with them (removed by the launcher, or by the ranks when the
    // launcher was killed).
    const bool storeGone = testing::waitUntil([&] { return storeFolders(dir).isEmpty(); }, std::chrono::seconds(10));
    if (!storeGone) {
        // Line by line: Qt Test cuts a long failure message, and the ranks' last lines (a failed
        // removal says so) are what tells why the folder stayed.
        const QString all = err + QString::fromUtf8(launcher.readAllStandardError());
        for (const QString& line : all.split(QLatin1Char('\n')))
            qInfo("said: %s", qPrintable(line));
    }
    QVERIFY2(storeGone, qPrintable("left: " + storeFolders(dir).join(' ') +
                                   " (the launcher's and the ranks' output is above, as 'said:' lines)"));
    // What rank 0 saved is intact.
    QVERIFY(QFile::exists(stepFile(ck, 5)));
}

/// The race launcherKilled lost now and then on a loaded machine (1 of 24 rounds when e4bc53b
/// measured it; once in the repeated suite of session 39), made certain: the
/// ranks take the cancel path while their launcher still looks alive, and the launcher dies only
/// then. (A killed launcher's SIGTERM -- PR_SET_PDEATHSIG -- comes as its main thread exits; a
/// rank can finish cancelling before the rest of the launcher has gone.) Here the launcher is
/// stopped (it cannot pass anything on, reap or clean up), the ranks get SIGTERM from outside,
/// and the launcher is killed once each rank has either ended or said that it waits for the
/// launcher to end. Before, the ranks ended at once and the store folder stayed.
void TestCliRankLifetime::ranksInterruptedAsTheirLauncherDies()
{
    QTemporaryDir dir;
    const QString project = dir.filePath("p.setscope"), ck = dir.filePath("ck");
    QProcess launcher;
    launcher.setReadChannel(QProcess::StandardError);
    std::vector<long> ranks;
    startTwoRanks(launcher, dir, ranks);
    if (QTest::currentTestFailed())
        return;
    const long lpid = launcher.processId();
    QString err;
    const auto readErr = [&] {
        launcher.waitForReadyRead(20);
        err += QString::fromUtf8(launcher.readAllStandardError());
    };
    ::kill(static_cast<pid_t>(lpid), SIGSTOP);
    for (long r : ranks)
        ::kill(static_cast<pid_t>(r), SIGTERM);
    const QString waiting = QStringLiteral("waiting up to");
    const bool settled = testing::waitUntil(
        [&] {
            readErr();
            return err.count(waiting) + (alive(ranks[0]) ? 0 : 1) + (alive(ranks[1]) ? 0 : 1) >= 2;
        },
        std::chrono::seconds(60));
    ::kill(static_cast<pid_t>(lpid), SIGKILL);
    QVERIFY2(settled, qPrintable(err));
    QVERIFY(testing::waitUntil([&] { return !alive(ranks[0]) && !alive(ranks[1]); }, std::chrono::seconds(30)));
    QVERIFY(launcher.waitForFinished(testing::scaledMs(30000)));
    readErr();
    QCOMPARE(runStatus(project), QString("cancelled"));
    const bool storeGone = testing::waitUntil([&] { return storeFolders(dir).isEmpty(); }, std::chrono::seconds(10));
    if (!storeGone)
        for (const QString& line : err.split(QLatin1Char('\n')))
            qInfo("said: %s", qPrintable(line));
    QVERIFY2(storeGone, "the ranks' store folder stayed (the launcher's and the ranks' output is above, as 'said:' lines)");
    QVERIFY(QFile::exists(stepFile(ck, 5)));
}

QTEST_GUILESS_MAIN(TestCliRankLifetime)
#include "tst_CliRankLifetime.moc"
