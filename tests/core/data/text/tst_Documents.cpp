// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include <QtTest>
class T : public QObject { Q_OBJECT private Q_SLOTS: void x() {} };
QTEST_GUILESS_MAIN(T)
#include "tst_Documents.moc"
