// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The one trim (core/util/Text.h), on hand-written cases: spaces and tabs at either end go,
// everything else (inner spaces, other white space) stays.
#include "core/util/Text.h"

#include <QtTest>

using namespace setscope;

class TestText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void trimmed_data()
    {
        QTest::addColumn<QString>("in");
        QTest::addColumn<QString>("out");
        QTest::newRow("empty") << "" << "";
        QTest::newRow("blank") << " \t \t" << "";
        QTest::newRow("plain") << "a" << "a";
        QTest::newRow("both ends") << " \tkey = value\t " << "key = value";
        QTest::newRow("inner kept") << "a  b" << "a  b";
        QTest::newRow("newline kept") << "\na b\r" << "\na b\r";
        QTest::newRow("one side") << "x   " << "x";
    }
    void trimmed()
    {
        QFETCH(QString, in);
        QFETCH(QString, out);
        QCOMPARE(QString::fromStdString(util::trimmed(in.toStdString())), out);
    }
    void lowerExtension()
    {
        QCOMPARE(QString::fromStdString(util::lowerExtension("/a/B.NPY")), QString(".npy"));
        QCOMPARE(QString::fromStdString(util::lowerExtension("/a/b")), QString());
    }
};

QTEST_MAIN(TestText)
#include "tst_Text.moc"
