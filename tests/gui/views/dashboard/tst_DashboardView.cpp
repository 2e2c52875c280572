// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The metrics dashboard on a project with two recorded runs written here by hand: the runs
// listed, the metric names, the series drawn and hidden, the CSV export read back.
#include "gui/views/dashboard/DashboardView.h"

#include "core/project/ProjectStore.h"
#include "gui/views/dashboard/LineChart.h"
#include "tests/support/ExplorerFixture.h"

#include <QListWidget>
#include <QtTest/QtTest>

#include <fstream>

using namespace setscope;

class TestDashboardView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void showsEveryRunOfTheProject();
    void liveRunWithoutAProject();
};

void TestDashboardView::showsEveryRunOfTheProject()
{
    QTemporaryDir dir;
    const QString file = dir.filePath("p.setscope");
    {
        auto store = project::ProjectStore::open(file.toStdString());
        const std::int64_t ds = store->addDataset("corpus", "/data/corpus", "abc", 10);
        const std::int64_t r1 = store->createRun(ds, R"({"recipe":"ours"})");
        const std::int64_t r2 = store->createRun(ds, R"({"recipe":"sset"})");
        for (int e = 1; e <= 3; ++e) {
            store->addMetrics(r1, e, e * 10, {{"mean-loss", 1.0 / e}, {"knn-accuracy", 0.5 + 0.1 * e}});
            store->addMetrics(r2, e, e * 10, {{"mean-loss", 2.0 / e}});
        }
        store->finishRun(r1, "finished", "");
    }
    testutil::ExplorerFixture fx;
    gui::DashboardView view(fx.session.get(), fx.selection.get());
    QCOMPARE(view.runs().size(), std::size_t(0));
    QVERIFY(fx.session->openProject(file)); // the view refreshes on projectChanged
    QCOMPARE(view.runs().size(), std::size_t(2));
    QCOMPARE(view.runList()->count(), 2);
    QVERIFY2(view.runs()[0].title.contains("run 1 · ours · corpus · finished"), qPrintable(view.runs()[0].title));
    QCOMPARE(view.metricNames(), (QStringList{"mean-loss", "knn-accuracy"}));
    QCOMPARE(view.metric(), QStringLiteral("mean-loss"));

    // Both runs drawn, their values as recorded.
    auto series = view.chart()->series();
    QCOMPARE(series.size(), std::size_t(2));
    QCOMPARE(series[1].points.size(), std::size_t(3));
    QCOMPARE(series[1].points[1], QPointF(2, 1.0));
    view.setXAxisSteps(true);
    QCOMPARE(view.chart()->series()[0].points[2], QPointF(30, 1.0 / 3));
    // A metric only the first run has; then the first run hidden.
    view.setMetric(QStringLiteral("knn-accuracy"));
    QCOMPARE(view.chart()->series().size(), std::size_t(1));
    view.setChecked({1});
    view.setMetric(QStringLiteral("mean-loss"));
    QCOMPARE(view.chart()->series().size(), std::size_t(1));
    QVERIFY(view.chart()->series()[0].name.startsWith("run 2"));

    // CSV of the checked run: header + its 3 values.
    const QString csv = dir.filePath("runs.csv");
    QCOMPARE(view.exportCsv(csv), std::size_t(3));
    std::ifstream in(csv.toStdString());
    std::string line;
    std::getline(in, line);
    QCOMPARE(line, std::string("run,dataset,status,started,epoch,step,metric,value"));
    std::getline(in, line);
    QVERIFY2(QString::fromStdString(line).startsWith("2,1,\"running\","), line.c_str());
    QVERIFY2(QString::fromStdString(line).endsWith(",1,10,\"mean-loss\",2"), line.c_str());
    const QString svg = view.toSvg();
    QVERIFY(svg.contains("<polyline"));
}

void TestDashboardView::liveRunWithoutAProject()
{
    testutil::ExplorerFixture fx;
    fx.open(std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse("dim=4,points=30"))));
    gui::DashboardView view(fx.session.get(), fx.selection.get());
    QVERIFY(view.statusText().contains("No run yet"));
    train::TrainerConfig c = testutil::ExplorerFixture::quickConfig();
    c.epochs = 3;
    QVERIFY(fx.train(c));
    QCOMPARE(view.runs().size(), std::size_t(1));
    QCOMPARE(view.runs()[0].id, std::int64_t(0));
    QCOMPARE(view.chart()->series().size(), std::size_t(1));
    QCOMPARE(view.chart()->series()[0].points.size(), fx.session->history().size());

    // Its CSV: run 0, one row per reported value of every metric, written whole.
    std::size_t values = 0;
    for (const auto& [name, pts] : view.runs()[0].metrics)
        values += pts.size();
    QVERIFY(values >= fx.session->history().size());
    QTemporaryDir dir;
    const QString csv = dir.filePath("live.csv");
    QCOMPARE(view.exportCsv(csv), values);
    std::ifstream in(csv.toStdString());
    std::string line;
    std::size_t lines = 0;
    std::getline(in, line);
    QCOMPARE(line, std::string("run,dataset,status,started,epoch,step,metric,value"));
    while (std::getline(in, line)) {
        QVERIFY2(QString::fromStdString(line).startsWith("0,0,\"\",\"\","), line.c_str());
        ++lines;
    }
    QCOMPARE(lines, values);
    QVERIFY(!QFileInfo::exists(csv + ".part"));
    view.setChecked({});
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, view.exportCsv(csv));
}

QTEST_MAIN(TestDashboardView)
#include "tst_DashboardView.moc"
