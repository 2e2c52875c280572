// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `setscope-cli substructure` as a user runs it: a weak-metric run trained by the CLI into a
// project (coarse labels of the hierarchical clusters), then the report of the project's
// newest weak-metric run, whose before / after numbers must be those `setscope-cli eval` gives
// for the raw vectors and for the run's checkpoint (the same test-split protocol, an
// independent code path); a run on the fine labels is refused with the reason.
#define SETSCOPE_CLI_TIMEOUT_MS 300000
#include "CliRun.h"

#include <QtTest>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cmath>

namespace {

const QString kData = QStringLiteral("synthetic:dim=6,coarse=2,fine=2,points=40");

/// name -> value of `setscope-cli eval --json`.
QMap<QString, double> evalValues(const QStringList& extra)
{
    QStringList args{"eval", "--dataset", kData, "--label-set", "fine", "--coarse", "coarse", "--metrics",
                     "neighbourhood-purity,ndcg,csl", "--option", "neighbourhood-purity.k=5", "--json"};
    const Run r = cli(args + extra);
    QMap<QString, double> out;
    if (r.code != 0) {
        qWarning("%s", qPrintable(r.err));
        return out;
    }
    for (const auto& v : QJsonDocument::fromJson(r.out.toUtf8()).object().value("values").toArray())
        out[v.toObject().value("name").toString()] = v.toObject().value("value").toDouble();
    return out;
}

} // namespace

class TestCliSubstructure : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void reportEqualsEvalBeforeAndAfter();
    void refusesARunOnTheFineLabels();
};

void TestCliSubstructure::reportEqualsEvalBeforeAndAfter()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString project = dir.filePath("p.setscope");
    const Run train = cli({"train", "--dataset", kData, "--label-set", "coarse", "--epochs", "1", "--embedding-dim", "8",
                           "--threads", "1", "--no-baseline", "--project", project});
    QVERIFY2(train.code == 0, qPrintable(train.err));
    const Run r = cli({"substructure", "--dataset", kData, "--project", project, "-k", "5", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject report = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(report.value("fine").toString(), QStringLiteral("fine"));
    QCOMPARE(report.value("coarse").toString(), QStringLiteral("coarse"));
    QVERIFY(report.value("before").toString().startsWith("raw input features"));
    const QString checkpoint = report.value("checkpoint").toString();
    QVERIFY2(QFileInfo::exists(checkpoint), qPrintable(checkpoint));

    const QMap<QString, double> raw = evalValues({}), trained = evalValues({"--checkpoint", checkpoint});
    QCOMPARE(raw.size(), 4);
    QCOMPARE(trained.size(), 4);
    const QJsonArray values = report.value("values").toArray();
    QCOMPARE(values.size(), 4);
    for (const auto& v : values) {
        const QJsonObject o = v.toObject();
        const QString name = o.value("name").toString();
        QVERIFY2(raw.contains(name), qPrintable(name));
        QVERIFY2(std::abs(o.value("before").toDouble() - raw[name]) < 1e-9,
                 qPrintable(QStringLiteral("%1 before %2, eval %3").arg(name).arg(o.value("before").toDouble()).arg(raw[name])));
        QVERIFY2(std::abs(o.value("after").toDouble() - trained[name]) < 1e-6,
                 qPrintable(QStringLiteral("%1 after %2, eval %3").arg(name).arg(o.value("after").toDouble()).arg(trained[name])));
    }
    // The table form says the same.
    const Run text = cli({"substructure", "--dataset", kData, "--checkpoint", checkpoint, "-k", "5"});
    QVERIFY2(text.code == 0, qPrintable(text.err));
    QVERIFY2(text.out.contains("trained on 'coarse', scored against 'fine'") && text.out.contains("neighbourhood-purity"),
             qPrintable(text.out));
}

void TestCliSubstructure::refusesARunOnTheFineLabels()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Run train = cli({"train", "--dataset", kData, "--epochs", "1", "--embedding-dim", "8", "--threads", "1",
                           "--no-baseline", "--checkpoint-dir", dir.filePath("ckpt")});
    QVERIFY2(train.code == 0, qPrintable(train.err));
    const QStringList files = QDir(dir.filePath("ckpt")).entryList({"step-*.pt"});
    QVERIFY(!files.isEmpty());
    const Run r = cli({"substructure", "--dataset", kData, "--checkpoint", dir.filePath("ckpt/" + files.front())});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("not on a coarse label set"), qPrintable(r.err));
    // A project without a weak-metric run.
    const Run none = cli({"substructure", "--dataset", kData, "--project", dir.filePath("empty.setscope")});
    QVERIFY(none.code != 0);
    QVERIFY2(none.err.contains("no weak-metric run"), qPrintable(none.err));
}

QTEST_MAIN(TestCliSubstructure)
#include "tst_CliSubstructure.moc"
