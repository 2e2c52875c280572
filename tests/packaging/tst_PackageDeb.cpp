// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include <QtTest>

#include <QProcess>
#include <QStandardPaths>

class TestPackageDeb : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void packageHoldsTheApplication();
};

void TestPackageDeb::packageHoldsTheApplication()
{
    if (QStandardPaths::findExecutable(QStringLiteral("dpkg-deb")).isEmpty())
        QSKIP("dpkg-deb is not installed");
    QTemporaryDir out;
    QProcess cpack;
    cpack.setProcessChannelMode(QProcess::MergedChannels);
    cpack.start(CPACK_COMMAND, {"--config", CPACK_CONFIG, "-G", "DEB", "-B", out.path()});
    QVERIFY(cpack.waitForFinished(240000));
    const QString log = QString::fromUtf8(cpack.readAll());
    QVERIFY2(cpack.exitCode() == 0, qPrintable(log));
    const QStringList debs = QDir(out.path()).entryList({"setscope_*_amd64.deb", "setscope_*.deb"});
    QVERIFY2(!debs.isEmpty(), qPrintable(log));
    const QString deb = out.filePath(debs.first());

    QProcess list;
    list.start("dpkg-deb", {"-c", deb});
    QVERIFY(list.waitForFinished());
    const QString files = QString::fromUtf8(list.readAllStandardOutput());
    for (const char* f : {"./usr/bin/setscope", "./usr/bin/setscope-cli", "./usr/share/applications/setscope.desktop",
                          "./usr/share/icons/hicolor/scalable/apps/setscope.svg",
                          "./usr/share/icons/hicolor/256x256/apps/setscope.png",
                          "./usr/share/metainfo/org.setscope.setscope.metainfo.xml",
                          "./usr/lib/setscope/plugins/libsvm_loader.so"})
        QVERIFY2(files.contains(QString::fromLatin1(f) + '\n'), f);

    QProcess info;
    info.start("dpkg-deb", {"-f", deb, "Package", "Depends"});
    QVERIFY(info.waitForFinished());
    const QString control = QString::fromUtf8(info.readAllStandardOutput());
    QVERIFY(control.contains("Package: setscope"));
    // Shared-library dependencies were computed (dpkg-shlibdeps), LibTorch and Qt among them.
    QVERIFY2(control.contains("libtorch"), qPrintable(control));
    QVERIFY2(control.contains("libqt6widgets6"), qPrintable(control));
}

QTEST_GUILESS_MAIN(TestPackageDeb)
#include "tst_PackageDeb.moc"
