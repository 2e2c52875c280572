// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/DatasetPanel.h"

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "gui/views/Palette.h"

#include <QtTest/QtTest>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTableWidget>

using namespace setscope;
using gui::DatasetPanel;

namespace {

std::shared_ptr<const data::Dataset> synthetic(const std::string& options)
{
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse(options)));
}

QString digits(const QString& s)
{
    QString d;
    for (QChar c : s)
        if (c.isDigit())
            d += c;
    return d;
}

} // namespace

class TestDatasetPanel : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;
    QTemporaryDir m_data;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        // An empty data root: every fetchable dataset is "not fetched" (fashion-mnist is
        // read from the Debian package when it is installed, so it is not used below).
        qputenv("SETSCOPE_DATA_DIR", m_data.path().toUtf8());
        builtins::registerBuiltins(m_registry);
    }

    void notFetchedDatasetsOfferFetchAndCancel()
    {
        DatasetPanel panel(m_registry);
        auto* list = panel.findChild<QListWidget*>(QStringLiteral("builtinList"));
        auto* fetchButton = panel.findChild<QPushButton*>(QStringLiteral("fetchButton"));
        auto* cancel = panel.findChild<QPushButton*>(QStringLiteral("cancelFetchButton"));
        auto* progress = panel.findChild<QProgressBar*>(QStringLiteral("fetchProgress"));
        QVERIFY(list && fetchButton && cancel && progress);
        QListWidgetItem* brown = nullptr;
        QListWidgetItem* synth = nullptr;
        for (int i = 0; i < list->count(); ++i) {
            if (list->item(i)->data(Qt::UserRole).toString() == QLatin1String("brown"))
                brown = list->item(i);
            if (list->item(i)->data(Qt::UserRole).toString() == QLatin1String("synthetic"))
                synth = list->item(i);
        }
        QVERIFY(brown && synth);
        QCOMPARE(brown->text(), QStringLiteral("brown (not fetched)"));
        QVERIFY(brown->flags() & Qt::ItemIsEnabled);

        QSignalSpy fetches(&panel, &DatasetPanel::fetchRequested);
        QSignalSpy loads(&panel, &DatasetPanel::loadRequested);
        QSignalSpy cancels(&panel, &DatasetPanel::cancelFetchRequested);
        list->setCurrentItem(synth);
        QVERIFY(!fetchButton->isEnabled()); // nothing to fetch for a generated dataset
        list->setCurrentItem(brown);
        QVERIFY(fetchButton->isEnabled());
        QTest::mouseClick(fetchButton, Qt::LeftButton);
        QCOMPARE(fetches.size(), 1);
        QCOMPARE(fetches.at(0).at(0).toString(), QStringLiteral("brown"));
        // A double-click on a dataset that is not here fetches it instead of failing to load.
        Q_EMIT list->itemDoubleClicked(brown);
        QCOMPARE(fetches.size(), 2);
        QCOMPARE(loads.size(), 0);

        panel.show();
        panel.setFetching(true, QStringLiteral("brown"));
        QVERIFY(progress->isVisible() && cancel->isVisible());
        QVERIFY(!fetchButton->isEnabled()); // one fetch at a time
        panel.showFetchProgress(50, 200, QStringLiteral("downloading"));
        QCOMPARE(progress->maximum(), 1000);
        QCOMPARE(progress->value(), 250);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QCOMPARE(cancels.size(), 1);
        QVERIFY(!cancel->isEnabled());
        panel.setFetching(false);
        QVERIFY(!progress->isVisible());
        QVERIFY(fetchButton->isEnabled());
    }

    void listsTheBuiltinDatasets()
    {
        DatasetPanel panel(m_registry);
        auto* list = panel.findChild<QListWidget*>(QStringLiteral("builtinList"));
        QVERIFY(list);
        QStringList names;
        for (int i = 0; i < list->count(); ++i)
            names << list->item(i)->data(Qt::UserRole).toString();
        QVERIFY(names.contains(QStringLiteral("fashion-mnist")));
        QVERIFY(names.contains(QStringLiteral("synthetic")));
    }

    // The spec "dim=3,coarse=4,fine=2,points=150": 8 fine classes of 150 points, nested in
    // 4 coarse classes of 300.
    void countsPerClassOfSyntheticSpec()
    {
        DatasetPanel panel(m_registry);
        QSignalSpy colour(&panel, &DatasetPanel::labelSetChanged);
        const auto ds = synthetic("dim=3,coarse=4,fine=2,points=150");
        panel.setDataset(ds, QStringLiteral("synthetic:dim=3,coarse=4,fine=2,points=150"));

        QCOMPARE(panel.currentLabelSet(), QStringLiteral("fine"));
        QCOMPARE(colour.count(), 1);
        QCOMPARE(colour.takeFirst().at(0).toString(), QStringLiteral("fine"));
        QTableWidget* t = panel.classTable();
        QCOMPARE(t->rowCount(), 8);
        const QStringList names = {"C0.0", "C0.1", "C1.0", "C1.1", "C2.0", "C2.1", "C3.0", "C3.1"};
        for (int r = 0; r < 8; ++r) {
            QCOMPARE(t->item(r, 0)->text(), names[r]);
            QCOMPARE(t->item(r, 1)->data(Qt::DisplayRole).toULongLong(), 150ull);
            QCOMPARE(t->item(r, 2)->text(), QStringLiteral("12.5"));
            // The swatch is the class's palette colour (the map uses the same).
            const QImage swatch = t->item(r, 0)->icon().pixmap(12, 12).toImage();
            QCOMPARE(swatch.pixelColor(6, 6), gui::Palette::color(r));
        }
        QCOMPARE(digits(panel.findChild<QLabel*>(QStringLiteral("itemsLabel"))->text()), QStringLiteral("1200"));
        QCOMPARE(panel.findChild<QLabel*>(QStringLiteral("dimLabel"))->text(), QStringLiteral("3"));
        const QString splits = panel.findChild<QLabel*>(QStringLiteral("splitsLabel"))->text();
        QVERIFY2(splits.contains(QStringLiteral("train %1").arg(ds->count(data::Split::Train))), qPrintable(splits));
        QVERIFY2(splits.contains(QStringLiteral("test %1").arg(ds->count(data::Split::Test))), qPrintable(splits));
        QCOMPARE(ds->count(data::Split::Train) + ds->count(data::Split::Test), std::size_t(1200));
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("setSizesLabel"))->text().contains(QStringLiteral("plain vectors")));
    }

    void switchingLabelSetsRefillsTheTable()
    {
        DatasetPanel panel(m_registry);
        panel.setDataset(synthetic("dim=2,coarse=3,fine=4,points=20"), QStringLiteral("synthetic:..."));
        QCOMPARE(panel.classTable()->rowCount(), 12);
        for (int r = 0; r < 12; ++r)
            QCOMPARE(panel.classTable()->item(r, 1)->data(Qt::DisplayRole).toULongLong(), 20ull);

        QSignalSpy colour(&panel, &DatasetPanel::labelSetChanged);
        auto* combo = panel.findChild<QComboBox*>(QStringLiteral("labelSetCombo"));
        QCOMPARE(combo->count(), 2);
        combo->setCurrentText(QStringLiteral("coarse"));
        QCOMPARE(colour.count(), 1);
        QCOMPARE(colour.at(0).at(0).toString(), QStringLiteral("coarse"));
        QCOMPARE(panel.classTable()->rowCount(), 3);
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(panel.classTable()->item(r, 0)->text(), QStringLiteral("C%1").arg(r));
            QCOMPARE(panel.classTable()->item(r, 1)->data(Qt::DisplayRole).toULongLong(), 80ull); // 4 fine x 20
        }
        panel.setCurrentLabelSet(QStringLiteral("fine"));
        QCOMPARE(panel.classTable()->rowCount(), 12);
    }

    void unlabelledItemsGetTheirOwnRow()
    {
        data::DatasetBuilder b("test");
        b.setName("partly labelled");
        b.setDimension(2);
        b.defineLabelSet("fine", {"a", "b"});
        const float v[2] = {0.f, 1.f};
        for (int i = 0; i < 10; ++i) {
            const std::size_t item = b.addItem(v, nullptr, 1, data::Split::Train);
            if (i < 3)
                b.setLabel("fine", item, 0);
            else if (i < 7)
                b.setLabel("fine", item, 1);
        }
        DatasetPanel panel(m_registry);
        panel.setDataset(std::make_shared<const data::Dataset>(b.finish()), QStringLiteral("mem"));
        QTableWidget* t = panel.classTable();
        QCOMPARE(t->rowCount(), 3);
        QCOMPARE(t->item(0, 1)->data(Qt::DisplayRole).toULongLong(), 3ull);
        QCOMPARE(t->item(1, 1)->data(Qt::DisplayRole).toULongLong(), 4ull);
        QCOMPARE(t->item(2, 0)->text(), QStringLiteral("unlabelled"));
        QCOMPARE(t->item(2, 1)->data(Qt::DisplayRole).toULongLong(), 3ull);
        QCOMPARE(t->item(2, 2)->text(), QStringLiteral("30.0"));
    }

    void setsShowTheirSizes()
    {
        DatasetPanel panel(m_registry);
        panel.setDataset(synthetic("dim=2,coarse=2,fine=1,points=10,set=5"), QStringLiteral("sets"));
        const QString sizes = panel.findChild<QLabel*>(QStringLiteral("setSizesLabel"))->text();
        QVERIFY2(sizes.contains(QStringLiteral("min 5")) && sizes.contains(QStringLiteral("max 5")), qPrintable(sizes));
    }

    void openButtonRequestsTheSpec()
    {
        DatasetPanel panel(m_registry);
        QSignalSpy load(&panel, &DatasetPanel::loadRequested);
        panel.findChild<QLineEdit*>(QStringLiteral("specEdit"))->setText(QStringLiteral("synthetic:dim=8"));
        panel.findChild<QPushButton*>(QStringLiteral("openButton"))->click();
        QCOMPARE(load.count(), 1);
        QCOMPARE(load.at(0).at(0).toString(), QStringLiteral("synthetic:dim=8"));
        panel.setLoading(true);
        QVERIFY(!panel.findChild<QPushButton*>(QStringLiteral("openButton"))->isEnabled());
        panel.setLoading(false);
        QVERIFY(panel.findChild<QPushButton*>(QStringLiteral("openButton"))->isEnabled());
    }

    void loadErrorShowsTheLoadersMessage()
    {
        DatasetPanel panel(m_registry);
        panel.show();
        panel.showLoadError(QStringLiteral("/data/x.csv"), QStringLiteral("/data/x.csv:3: expected 4 columns, got 2"));
        // Not modal-blocking: we are back here with the box open.
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = panel.findChild<QMessageBox*>(QStringLiteral("loadErrorBox"))) && box->isVisible());
        QVERIFY(box->text().contains(QStringLiteral("/data/x.csv")));
        QCOMPARE(box->informativeText(), QStringLiteral("/data/x.csv:3: expected 4 columns, got 2"));
        box->accept();
    }

    void clearingShowsNothing()
    {
        DatasetPanel panel(m_registry);
        panel.setDataset(synthetic("points=5"), QStringLiteral("s"));
        panel.setDataset(nullptr, QString());
        QCOMPARE(panel.classTable()->rowCount(), 0);
        QCOMPARE(panel.currentLabelSet(), QString());
    }
};

QTEST_MAIN(TestDatasetPanel)
#include "tst_DatasetPanel.moc"
