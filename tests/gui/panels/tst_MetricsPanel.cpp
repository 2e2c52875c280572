// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/MetricsPanel.h"

#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/train/TrainingSink.h"

#include <QtTest/QtTest>

#include <QPushButton>
#include <QTableWidget>

using namespace setscope;
using gui::MetricsPanel;

namespace {

/// kNN accuracy (absent when < 0) and recall-hit@K named as a training epoch names them.
train::EpochMetrics metrics(int epoch, double loss, double knn, std::vector<int> ks, std::vector<double> r, double s)
{
    train::EpochMetrics m;
    m.epoch = epoch;
    m.step = epoch * 100;
    m.meanLoss = loss;
    if (knn >= 0)
        m.values.emplace_back("knn-accuracy", knn);
    for (std::size_t i = 0; i < ks.size(); ++i)
        m.values.emplace_back("recall-hit@" + std::to_string(ks[i]), r[i]);
    m.seconds = s;
    m.stage = "train";
    return m;
}

QStringList headers(const QTableWidget* t)
{
    QStringList out;
    for (int c = 0; c < t->columnCount(); ++c)
        out << t->horizontalHeaderItem(c)->text();
    return out;
}

QStringList row(const QTableWidget* t, int r)
{
    QStringList out;
    for (int c = 0; c < t->columnCount(); ++c)
        out << (t->item(r, c) ? t->item(r, c)->text() : QStringLiteral("<none>"));
    return out;
}

data::Dataset synthetic(const std::string& spec)
{
    return data::makeHierarchicalGaussians(data::SyntheticSpec::parse(spec));
}

} // namespace

class TestMetricsPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rowsFromEpochMetrics()
    {
        MetricsPanel p;
        QCOMPARE(headers(p.table()), QStringList({"Epoch", "Stage", "Mean loss", "Time (s)"}));
        p.addEpoch(metrics(1, 0.25, 0.8123, {1, 2, 4, 8}, {0.7, 0.8, 0.9, 0.95}, 12.34));
        p.addEpoch(metrics(2, 0.125, 0.85, {1, 2, 4, 8}, {0.75, 0.85, 0.92, 0.96}, 24.0));
        QCOMPARE(headers(p.table()), QStringList({"Epoch", "Stage", "Mean loss", "kNN", "R@1", "R@2", "R@4", "R@8", "Time (s)"}));
        QCOMPARE(p.table()->rowCount(), 2);
        QCOMPARE(row(p.table(), 0),
                 QStringList({"1", "", "0.2500", "0.8123", "0.7000", "0.8000", "0.9000", "0.9500", "12.3"}));
        QCOMPARE(row(p.table(), 1),
                 QStringList({"2", "", "0.1250", "0.8500", "0.7500", "0.8500", "0.9200", "0.9600", "24.0"}));
        QCOMPARE(p.columnOf("recall-hit@4"), 6);
        QCOMPARE(p.timeColumn(), 8);
        QVERIFY(p.table()->horizontalHeaderItem(3)->toolTip().contains("distance-weighted kNN"));
    }

    // A value that arrives later gets a column of its own before the time; earlier rows show a
    // dash there. Named values the papers' tables do not report start hidden.
    void newValuesGetColumns()
    {
        MetricsPanel p;
        p.addEpoch(metrics(1, 0.5, 0.6, {1}, {0.5}, 1.0));
        train::EpochMetrics m = metrics(2, 0.4, 0.7, {1}, {0.55}, 2.0);
        m.stage = "fine-tune";
        m.values.emplace_back("recall-class@1", 0.3);
        m.values.emplace_back("validation-knn", 0.65);
        m.values.emplace_back("emd-solved", 2016);
        m.values.emplace_back("precision@1", 0.4);
        p.addEpoch(m);
        QCOMPARE(headers(p.table()),
                 QStringList({"Epoch", "Stage", "Mean loss", "kNN", "R@1", "RC@1", "validation-knn", "emd-solved", "P@1", "Time (s)"}));
        QCOMPARE(row(p.table(), 0), QStringList({"1", "", "0.5000", "0.6000", "0.5000", "–", "–", "–", "–", "1.0"}));
        QCOMPARE(row(p.table(), 1),
                 QStringList({"2", "fine-tune", "0.4000", "0.7000", "0.5500", "0.3000", "0.6500", "2016", "0.4000", "2.0"}));
        QVERIFY(!p.table()->isColumnHidden(p.columnOf("recall-class@1")));
        QVERIFY(!p.table()->isColumnHidden(p.columnOf("validation-knn")));
        QVERIFY(p.table()->isColumnHidden(p.columnOf("emd-solved")));
        QVERIFY(p.table()->isColumnHidden(p.columnOf("precision@1")));
        // Another dataset: the value columns go.
        p.setDataset(nullptr);
        QCOMPARE(headers(p.table()), QStringList({"Epoch", "Stage", "Mean loss", "Time (s)"}));
    }

    void missingScoresShowADash()
    {
        MetricsPanel p;
        p.addEpoch(metrics(2, 0.5, 0.9, {1, 2, 4}, {0.6, 0.7, 0.8}, 1.0));
        // kNN not computed and only R@1 and R@4.
        p.addEpoch(metrics(3, 0.5, -1.0, {1, 4}, {0.6, 0.8}, 1.0));
        QCOMPARE(row(p.table(), 1), QStringList({"3", "", "0.5000", "–", "0.6000", "–", "0.8000", "1.0"}));
    }

    void baselineRowComesFirstAndSurvivesANewRun()
    {
        MetricsPanel p;
        const data::Dataset small = synthetic("points=20");
        QSignalSpy wanted(&p, &MetricsPanel::baselineRequested);
        p.setDataset(&small);
        QCOMPARE(wanted.count(), 1); // small vector dataset: computed at once
        p.setBaselineRunning(true);
        QVERIFY(!p.baselineButton()->isEnabled());
        p.addEpoch(metrics(1, 0.25, 0.9, {1, 2, 4, 8}, {0.9, 0.95, 0.97, 0.99}, 2.0));
        p.setBaseline(metrics(0, 0.0, 0.7, {1, 2, 4, 8}, {0.5, 0.6, 0.7, 0.8}, 0.0));
        p.setBaselineRunning(false);
        QVERIFY(p.baselineButton()->isEnabled());
        QCOMPARE(p.baselineRow(), 0);
        QCOMPARE(p.table()->rowCount(), 2);
        QCOMPARE(row(p.table(), 0),
                 QStringList({"raw vectors", "", "–", "0.7000", "0.5000", "0.6000", "0.7000", "0.8000", "–"}));
        QCOMPARE(p.table()->item(1, 0)->text(), QStringLiteral("1"));
        p.clearRun();
        QCOMPARE(p.table()->rowCount(), 1);
        QCOMPARE(p.table()->item(0, 0)->text(), QStringLiteral("raw vectors"));
        p.setDataset(&small);
        QCOMPARE(p.baselineRow(), -1);
    }

    void largeDatasetsGetTheBaselineOnRequest()
    {
        MetricsPanel p;
        const data::Dataset big = synthetic("dim=2,coarse=4,fine=2,points=2600"); // 20 800 items
        QVERIFY(big.size() > MetricsPanel::kAutoBaselineMaxItems);
        QSignalSpy wanted(&p, &MetricsPanel::baselineRequested);
        p.setDataset(&big);
        QCOMPARE(wanted.count(), 0);
        QVERIFY(p.baselineButton()->isEnabled());
        p.baselineButton()->click();
        QCOMPARE(wanted.count(), 1);
    }

    void setsHaveNoRawBaseline()
    {
        MetricsPanel p;
        const data::Dataset sets = synthetic("points=10,set=4");
        QSignalSpy wanted(&p, &MetricsPanel::baselineRequested);
        p.setDataset(&sets);
        QCOMPARE(wanted.count(), 0);
        QVERIFY(!p.baselineButton()->isEnabled());
    }
};

QTEST_MAIN(TestMetricsPanel)
#include "tst_MetricsPanel.moc"
