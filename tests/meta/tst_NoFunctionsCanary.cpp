// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// A test class whose only function is not a slot (the `private:` mistake): it runs nothing.
// CTest must report it as failed (setscope_add_test's "Totals: 2 passed, 0 failed, 0 skipped"
// rule); its registration inverts that with WILL_FAIL, so this canary passes exactly when the
// rule catches a binary that ran no test function.
#include <QtTest>

class TestNoFunctionsCanary : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // (nothing: the function below was declared under plain `private:`)

private:
    void wouldBeATest() { QVERIFY(true); }
};

QTEST_GUILESS_MAIN(TestNoFunctionsCanary)
#include "tst_NoFunctionsCanary.moc"
