// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "tests/support/TimeFactor.h"

#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest/QtTest>

/// The executable's run options against the training panel's dataset defaults, as a user gives
/// them: a dataset of sets opens with its kind's defaults (ours, selfattn, the cpu preset, 30
/// epochs) and what the command line says goes over them.
class TestExecutableOptions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void commandLineGoesOverTheDatasetDefaults()
    {
        QTemporaryDir dir;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CACHE_HOME"), dir.filePath(QStringLiteral("cache")));
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(SETSCOPE_GUI_EXE),
                {QStringLiteral("--project"), dir.filePath(QStringLiteral("p.setscope")), QStringLiteral("--dataset"),
                 QStringLiteral("synthetic:dim=2,coarse=2,fine=2,points=32,set=5"), QStringLiteral("--model"),
                 QStringLiteral("deepsets"), QStringLiteral("--epochs"), QStringLiteral("2"), QStringLiteral("--train"),
                 QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("shot.png"))});
        QVERIFY(p.waitForFinished(setscope::testing::scaledMs(240000)));
        const QByteArray out = p.readAll();
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, out.constData());

        // The run's checkpoint records its settings as JSON (stored uncompressed in the archive).
        QDirIterator it(dir.filePath(QStringLiteral("p.checkpoints")), {QStringLiteral("step-*.pt")}, QDir::Files,
                        QDirIterator::Subdirectories);
        QVERIFY2(it.hasNext(), out.constData());
        QFile f(it.next());
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QVERIFY2(bytes.contains("\"model\":\"deepsets\""), "--model was replaced by the dataset's default");
        QVERIFY2(bytes.contains("\"epochs\":2,"), "--epochs was replaced by the dataset's default");
        // What the command line did not say stays the dataset kind's default.
        QVERIFY(bytes.contains("\"recipe\":\"ours\""));
        QVERIFY(bytes.contains("\"preset\":\"cpu\""));
    }
};

QTEST_MAIN(TestExecutableOptions)
#include "tst_ExecutableOptions.moc"
