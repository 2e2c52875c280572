// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The architecture's one rule, checked on the sources: core never includes Qt, OpenGL or
// ImGui; gui never includes Torch. Plus the Qt Test trap: a test class without
// `Q_SLOTS` runs nothing.
#include <QtTest>

#include <QDirIterator>
#include <QRegularExpression>

class TestLayerRules : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void coreHasNoQtGlImgui();
    void guiHasNoTorch();
    void sdkHasNoQt();
    void everyTestHasSlots();
    void everySourceHasSpdx();

private:
    static QStringList offenders(const QString& dir, const QRegularExpression& re);
};

QStringList TestLayerRules::offenders(const QString& dir, const QRegularExpression& re)
{
    QStringList out;
    QDirIterator it(QString(SETSCOPE_SOURCE_DIR) + "/" + dir, {"*.h", "*.hpp", "*.cpp", "*.cu"}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        int line = 0;
        while (!f.atEnd()) {
            ++line;
            const QString l = QString::fromUtf8(f.readLine());
            if (re.match(l).hasMatch())
                out << QString("%1:%2: %3").arg(path).arg(line).arg(l.trimmed());
        }
    }
    return out;
}

void TestLayerRules::coreHasNoQtGlImgui()
{
    const QRegularExpression re(R"(^\s*#\s*include\s*[<"](Q[A-Za-z]+|Qt[A-Za-z]+/|imgui|GL/|GLES|EGL/))");
    const QStringList bad = offenders("core", re);
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

void TestLayerRules::guiHasNoTorch()
{
    const QRegularExpression re(R"(^\s*#\s*include\s*[<"](torch/|ATen/|c10/|caffe2/))");
    QStringList bad = offenders("gui", re);
    bad << offenders("app/gui", re);
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

void TestLayerRules::sdkHasNoQt()
{
    const QRegularExpression re(R"(^\s*#\s*include\s*[<"](Q[A-Za-z]+|Qt[A-Za-z]+/))");
    const QStringList bad = offenders("plugins", re);
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

void TestLayerRules::everyTestHasSlots()
{
    QStringList bad;
    QDirIterator it(QString(SETSCOPE_SOURCE_DIR) + "/tests", {"*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        if (text.contains(QRegularExpression(R"(QTEST_(GUILESS_|APPLESS_)?MAIN)")) &&
            !text.contains(QRegularExpression(R"(private\s+Q_SLOTS\s*:)")))
            bad << path;
    }
    QVERIFY2(bad.isEmpty(), qPrintable("no 'private Q_SLOTS:' in: " + bad.join(", ")));
}

void TestLayerRules::everySourceHasSpdx()
{
    QStringList bad;
    for (const QString dir : {"core", "gui", "app", "plugins", "tests", "bench"}) {
        QDirIterator it(QString(SETSCOPE_SOURCE_DIR) + "/" + dir, {"*.h", "*.cpp", "*.vert", "*.frag"}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString head = QString::fromUtf8(f.read(400));
            if (!head.contains("SPDX-License-Identifier:"))
                bad << path;
        }
    }
    QVERIFY2(bad.isEmpty(), qPrintable("missing SPDX header: " + bad.join(", ")));
}

QTEST_GUILESS_MAIN(TestLayerRules)
#include "tst_LayerRules.moc"
