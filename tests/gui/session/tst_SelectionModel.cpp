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
    void currentFollowsClicks();
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

// A selection of one item that ends up selected makes it current; other selections and clear()
// leave the current item alone; reset() unsets it.
void TestSelectionModel::currentFollowsClicks()
{
    SelectionModel m;
    QSignalSpy current(&m, &SelectionModel::currentChanged);
    QCOMPARE(m.current(), std::int64_t(-1));
    m.select({5});
    QCOMPARE(m.current(), std::int64_t(5));
    m.select({1, 2, 3}); // a rubber band
    QCOMPARE(m.current(), std::int64_t(5));
    m.select({2}, SelectionModel::Mode::Toggle); // Ctrl-click deselecting 2
    QCOMPARE(m.current(), std::int64_t(5));
    m.select({9}, SelectionModel::Mode::Toggle); // Ctrl-click selecting 9
    QCOMPARE(m.current(), std::int64_t(9));
    m.select({9}, SelectionModel::Mode::Replace); // same item again: no new signal
    QCOMPARE(current.size(), 2);
    m.clear();
    QCOMPARE(m.current(), std::int64_t(9));
    m.setCurrent(4);
    QCOMPARE(m.current(), std::int64_t(4));
    QVERIFY(m.empty()); // current without selecting
    m.reset();
    QCOMPARE(m.current(), std::int64_t(-1));
    QCOMPARE(current.size(), 4);
    QCOMPARE(current.last().front().toLongLong(), -1LL);
}

QTEST_APPLESS_MAIN(TestSelectionModel)
#include "tst_SelectionModel.moc"
