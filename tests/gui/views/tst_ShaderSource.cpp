// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/ShaderSource.h"

#include <QtTest/QtTest>

#include <QTemporaryDir>

using setscope::gui::ShaderSource;

class TestShaderSource : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void embeddedShadersAreTheSourceFiles()
    {
        qunsetenv("SETSCOPE_SHADER_DIR");
        for (const char* name : {"points.vert", "points.frag"}) {
            QString origin;
            const QByteArray src = ShaderSource::load(QString::fromLatin1(name), &origin);
            QCOMPARE(origin, QStringLiteral(":/shaders/") + QString::fromLatin1(name));
            // Mesa wants #version on the very first line.
            QVERIFY(src.startsWith("#version 330 core\n"));
            QFile file(QStringLiteral(SETSCOPE_SOURCE_DIR "/shaders/") + QString::fromLatin1(name));
            QVERIFY(file.open(QIODevice::ReadOnly));
            QCOMPARE(src, file.readAll());
        }
        QVERIFY(ShaderSource::load(QStringLiteral("missing.glsl")).isEmpty());
    }

    void environmentFolderOverridesForLiveEditing()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("points.frag")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#version 330 core\n// edited\n");
        f.close();
        qputenv("SETSCOPE_SHADER_DIR", dir.path().toLocal8Bit());
        QString origin;
        QCOMPARE(ShaderSource::load(QStringLiteral("points.frag"), &origin), QByteArray("#version 330 core\n// edited\n"));
        QCOMPARE(origin, dir.filePath(QStringLiteral("points.frag")));
        // A file the folder does not have still comes from the embedded copy.
        QVERIFY(ShaderSource::load(QStringLiteral("points.vert"), &origin).startsWith("#version"));
        QCOMPARE(origin, QStringLiteral(":/shaders/points.vert"));
        qunsetenv("SETSCOPE_SHADER_DIR");
    }
};

QTEST_MAIN(TestShaderSource)
#include "tst_ShaderSource.moc"
