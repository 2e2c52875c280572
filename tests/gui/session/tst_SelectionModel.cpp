// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// SelectionModel (gui/session/SelectionModel.h): the four modes against std::set
// arithmetic done by hand, and changed() only on a real change.
#include "gui/session/SelectionModel.h"

#include <QSignalSpy>
#include <QtTest>

using setscope::gui::SelectionModel;
using Items = std::vector<std::int64_t>;

class TestSelectionModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void modes();
    void changedOnlyOnChange();
};

void TestSelectionModel::modes()
{
    SelectionModel s;
    s.select({5, 3, 3, -1, 9});
    QCOMPARE(s.items(), Items({3, 5, 9})); // sorted, unique, negatives dropped
    s.select({1, 5}, SelectionModel::Mode::Add);
    QCOMPARE(s.items(), Items({1, 3, 5, 9}));
    s.select({3, 4}, SelectionModel::Mode::Remove);
    QCOMPARE(s.items(), Items({1, 5, 9}));
    s.select({9, 2}, SelectionModel::Mode::Toggle);
    QCOMPARE(s.items(), Items({1, 2, 5}));
    QVERIFY(s.contains(2));
    QVERIFY(!s.contains(9));
    s.select({7});
    QCOMPARE(s.items(), Items({7}));
    s.clear();
    QVERIFY(s.empty());
}

void TestSelectionModel::changedOnlyOnChange()
{
    SelectionModel s;
    QSignalSpy spy(&s, &SelectionModel::changed);
    s.clear();
    QCOMPARE(spy.count(), 0);
    s.select({1, 2});
    QCOMPARE(spy.count(), 1);
    s.select({2, 1, 1});
    QCOMPARE(spy.count(), 1); // same set
    s.select({1}, SelectionModel::Mode::Add);
    QCOMPARE(spy.count(), 1);
    s.select({1}, SelectionModel::Mode::Toggle);
    QCOMPARE(spy.count(), 2);
}

QTEST_APPLESS_MAIN(TestSelectionModel)
#include "tst_SelectionModel.moc"
