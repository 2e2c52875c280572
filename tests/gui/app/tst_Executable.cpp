// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include <QtTest/QtTest>

#include <QProcess>

class TestExecutable : public QObject {
    Q_OBJECT

private:
    static QProcessEnvironment headless()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        return env;
    }

private Q_SLOTS:
    void noDisplayPointsAtTheCliAndExitsWith2()
    {
        QProcess p;
        p.setProcessEnvironment(headless());
        p.start(QStringLiteral(SETSCOPE_GUI_EXE), {QStringLiteral("--train")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromLocal8Bit(p.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("setscope: no display found (DISPLAY is not set). The same job runs "
                                             "headless: setscope-cli train --dataset fashion-mnist --model mlp "
                                             "--loss triplet --epochs 3")),
                 qPrintable(err));
    }

    void helpWorksWithoutADisplay()
    {
        QProcess p;
        p.setProcessEnvironment(headless());
        p.start(QStringLiteral(SETSCOPE_GUI_EXE), {QStringLiteral("--help")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QString out = QString::fromLocal8Bit(p.readAllStandardOutput());
        for (const char* option : {"--dataset", "--train", "--epochs", "--screenshot", "--project"})
            QVERIFY2(out.contains(QString::fromLatin1(option)), option);
    }

    void badNumbersAreRefused()
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(SETSCOPE_GUI_EXE), {QStringLiteral("--epochs"), QStringLiteral("many")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(QString::fromLocal8Bit(p.readAllStandardError()).contains(QStringLiteral("--epochs")));
    }
};

QTEST_MAIN(TestExecutable)
#include "tst_Executable.moc"
