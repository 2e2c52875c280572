// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Adding a view (docs/ARCHITECTURE.md, "Adding a loss / a view / a loader / a CLI command"): a
// toy view written in this one file and given to the main window as one more entry of its view
// list gets what a built-in view gets -- a dock tabbed with the others, an entry in the View menu
// and in the export menus, the session's dataset and the window's current item.
#include "gui/MainWindow.h"

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"
#include "gui/views/ExplorerView.h"
#include "gui/views/ViewList.h"
#include "tests/support/TimeFactor.h"

#include <QtTest/QtTest>

#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QVBoxLayout>

using namespace setscope;

namespace {

/// The toy: how many items the open dataset has and which item is current.
class ItemCountView final : public gui::ExplorerView {
public:
    ItemCountView(gui::Session* session, gui::SelectionModel* selection)
        : ExplorerView(session, selection)
    {
        auto* layout = new QVBoxLayout(this);
        m_label = new QLabel(this);
        m_label->setObjectName(QStringLiteral("itemCountLabel"));
        layout->addWidget(m_label);
        layout->addWidget(statusLabel());
    }
    QString text() const { return m_label->text(); }

protected:
    void onDatasetChanged() override
    {
        const auto ds = dataset();
        m_label->setText(ds ? QStringLiteral("%1 items").arg(ds->size()) : QStringLiteral("no dataset"));
    }
    void onCurrentChanged(std::int64_t item) override
    {
        m_current = item;
        m_label->setText(QStringLiteral("item %1 of %2").arg(item).arg(dataset() ? dataset()->size() : 0));
    }
    std::int64_t shownItem() const override { return m_current; }

private:
    QLabel* m_label = nullptr;
    std::int64_t m_current = -1;
};

/// The one entry that adds it.
std::vector<gui::ViewSpec> viewsWithTheToy()
{
    std::vector<gui::ViewSpec> views = gui::explorerViews();
    views.push_back({QStringLiteral("itemcount"), QStringLiteral("Item count"), Qt::RightDockWidgetArea,
                     [](gui::Session* s, gui::SelectionModel* sel) -> gui::ExplorerView* { return new ItemCountView(s, sel); }});
    return views;
}

QStringList actionTexts(const QMenu* menu)
{
    QStringList out;
    for (const QAction* a : menu->actions())
        out << a->text();
    return out;
}

} // namespace

class TestAddingAView : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;

private Q_SLOTS:
    void initTestCase() { builtins::registerBuiltins(m_registry); }

    void oneEntryGivesTheViewWhatABuiltInViewGets()
    {
        gui::MainWindow window(m_registry, viewsWithTheToy());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        // A dock of its own, tabbed with the other views of its area, in the View menu.
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("itemcountDock"));
        QVERIFY(dock);
        QCOMPARE(dock->windowTitle(), QStringLiteral("Item count"));
        auto* view = dynamic_cast<ItemCountView*>(window.explorerView(QStringLiteral("itemcount")));
        QVERIFY(view);
        QCOMPARE(view->objectName(), QStringLiteral("itemcountView"));
        const auto* retrievalDock = window.findChild<QDockWidget*>(QStringLiteral("retrievalDock"));
        QVERIFY(window.tabifiedDockWidgets(dock).contains(const_cast<QDockWidget*>(retrievalDock)));
        QMenu* viewMenu = nullptr;
        for (QAction* a : window.menuBar()->actions())
            if (a->text() == QStringLiteral("&View"))
                viewMenu = a->menu();
        QVERIFY(viewMenu);
        QVERIFY2(actionTexts(viewMenu).contains(QStringLiteral("Item count")), qPrintable(actionTexts(viewMenu).join(", ")));
        // ... and in both export menus (PNG and SVG).
        auto* exportMenu = window.findChild<QMenu*>(QStringLiteral("exportMenu"));
        QVERIFY(exportMenu);
        int exports = 0;
        for (const QAction* a : exportMenu->actions())
            if (a->menu())
                exports += actionTexts(a->menu()).count(QStringLiteral("Item count"));
        QCOMPARE(exports, 2);

        // The session's dataset and the window's current item reach it (it is raised: views
        // that follow the current item work while visible).
        dock->show();
        dock->raise();
        const auto ds = std::make_shared<const data::Dataset>(
            data::makeHierarchicalGaussians(data::SyntheticSpec::parse("dim=3,points=24")));
        window.session()->setDataset(ds, QStringLiteral("mem"));
        QTRY_COMPARE_WITH_TIMEOUT(view->text(), QStringLiteral("%1 items").arg(ds->size()), setscope::testing::scaledMs(20000));
        window.selection()->setCurrent(5);
        QTRY_COMPARE_WITH_TIMEOUT(view->text(), QStringLiteral("item 5 of %1").arg(ds->size()), setscope::testing::scaledMs(20000));
    }

    // Without the entry the window has no such view: the list is the only place views are named.
    void theDefaultWindowHostsTheBuiltInList()
    {
        gui::MainWindow window(m_registry);
        QVERIFY(!window.findChild<QDockWidget*>(QStringLiteral("itemcountDock")));
        for (const gui::ViewSpec& spec : gui::explorerViews())
            QVERIFY2(window.explorerView(spec.id), qPrintable(spec.id));
    }
};

QTEST_MAIN(TestAddingAView)
#include "tst_AddingAView.moc"
