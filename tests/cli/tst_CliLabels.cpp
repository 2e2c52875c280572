// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `setscope-cli labels` and `train --coarse` as a user runs them: derive a coarse label set by
// a mapping file, list, export, import (an undoable edit), undo and redo, and train with it.
// Expected labels come from the fine labels and the mapping, worked out here.
#define SETSCOPE_CLI_TIMEOUT_MS 300000
#include "CliRun.h"

#include <QtTest>

#include <QFile>
#include <QTemporaryDir>
#include <QTextStream>

#include <map>

namespace {

const QString kDataset = QStringLiteral("synthetic:dim=2,coarse=2,fine=2,points=40,seed=3");
// Fine classes C0.0, C0.1, C1.0, C1.1 -> even / odd by the fine index.
const char* kMapping = R"({"name": "pairs", "from": "fine",
  "classes": {"even": ["C0.0", "C1.0"], "odd": ["C0.1", "C1.1"]}})";

/// item -> label of an exported label CSV.
std::map<int, QString> readCsv(const QString& path)
{
    std::map<int, QString> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    QTextStream in(&f);
    in.readLine(); // header
    while (!in.atEnd()) {
        const QString line = in.readLine();
        const int comma = line.indexOf(',');
        QString label = line.mid(comma + 1);
        if (label.startsWith('"'))
            label = label.mid(1, label.size() - 2);
        out[line.left(comma).toInt()] = label;
    }
    return out;
}

bool writeText(const QString& path, const QByteArray& text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

} // namespace

class TestCliLabels : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void deriveListExportImportUndo()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath("p.setscope"), mapping = dir.filePath("pairs.json");
        QVERIFY(writeText(mapping, kMapping));
        const QStringList where{"--project", project, "--dataset", kDataset};

        Run r = cli(QStringList{"labels", "derive"} + where + QStringList{"--mapping", mapping});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("created label set 'pairs'"), qPrintable(r.out));
        r = cli(QStringList{"labels", "list"} + where);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("pairs: 2 classes, 0 unlabelled, 0 edits (0 undone), derived from 'fine'"),
                 qPrintable(r.out));
        r = cli(QStringList{"labels", "mapping"} + where + QStringList{"--label-set", "pairs"});
        QVERIFY2(r.code == 0 && r.out.contains("\"even\": [\"C0.0\", \"C1.0\"]"), qPrintable(r.out + r.err));

        // Every item's derived label follows its fine label through the mapping.
        const QString fineCsv = dir.filePath("fine.csv"), pairsCsv = dir.filePath("pairs.csv");
        QCOMPARE(cli(QStringList{"labels", "export"} + where + QStringList{"--label-set", "fine", "--out", fineCsv}).code, 0);
        QCOMPARE(cli(QStringList{"labels", "export"} + where + QStringList{"--label-set", "pairs", "--out", pairsCsv}).code, 0);
        const auto fine = readCsv(fineCsv), pairs = readCsv(pairsCsv);
        QCOMPARE(fine.size(), std::size_t(160)); // 40 points per fine class
        QCOMPARE(pairs.size(), std::size_t(160));
        for (const auto& [item, label] : fine)
            QCOMPARE(pairs.at(item), label.endsWith(".0") ? QStringLiteral("even") : QStringLiteral("odd"));

        // Import: item 0 flipped, item 1 left out (unlabelled): one edit of two items.
        QString edited = "item,pairs\n";
        for (const auto& [item, label] : pairs)
            if (item != 1)
                edited += QString::number(item) + "," +
                          (item == 0 ? (label == "even" ? QStringLiteral("odd") : QStringLiteral("even")) : label) + "\n";
        const QString editedCsv = dir.filePath("edited.csv");
        QVERIFY(writeText(editedCsv, edited.toUtf8()));
        r = cli(QStringList{"labels", "import"} + where + QStringList{"--label-set", "pairs", "--in", editedCsv});
        QVERIFY2(r.code == 0 && r.out.contains("2 items changed in edit"), qPrintable(r.out + r.err));
        const QString afterCsv = dir.filePath("after.csv");
        QCOMPARE(cli(QStringList{"labels", "export"} + where + QStringList{"--label-set", "pairs", "--out", afterCsv}).code, 0);
        auto after = readCsv(afterCsv);
        QCOMPARE(after.size(), std::size_t(159));
        QVERIFY(after.at(0) != pairs.at(0));

        // Undo gives the derived labels back; redo the import; a second undo reaches the
        // start, a third has nothing to undo.
        r = cli(QStringList{"labels", "undo"} + where + QStringList{"--label-set", "pairs"});
        QVERIFY2(r.code == 0 && r.out.contains("undid \"imported from edited.csv\""), qPrintable(r.out + r.err));
        QCOMPARE(cli(QStringList{"labels", "export"} + where + QStringList{"--label-set", "pairs", "--out", afterCsv}).code, 0);
        QCOMPARE(readCsv(afterCsv), pairs);
        r = cli(QStringList{"labels", "redo"} + where + QStringList{"--label-set", "pairs"});
        QVERIFY2(r.code == 0 && r.out.contains("redid"), qPrintable(r.out + r.err));
        QCOMPARE(cli(QStringList{"labels", "undo"} + where + QStringList{"--label-set", "pairs"}).code, 0);
        r = cli(QStringList{"labels", "undo"} + where + QStringList{"--label-set", "pairs"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.out.contains("nothing to undo"), qPrintable(r.out));

        // Bad input: a mapping naming a class the dataset lacks; an unknown label set; a
        // project that does not exist (list does not create one).
        QVERIFY(writeText(mapping, R"({"name": "pairs", "from": "fine", "classes": {"even": ["C0.0", "C9.9"]}})"));
        r = cli(QStringList{"labels", "derive"} + where + QStringList{"--mapping", mapping});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("not classes of 'fine': 'C9.9'") && r.err.contains("without a target: 'C0.1'"),
                 qPrintable(r.err));
        r = cli(QStringList{"labels", "export"} + where + QStringList{"--label-set", "nope", "--out", afterCsv});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("no label set 'nope'") && r.err.contains("pairs"), qPrintable(r.err));
        r = cli({"labels", "list", "--project", dir.filePath("none.setscope"), "--dataset", kDataset});
        QCOMPARE(r.code, 1);
        QVERIFY(!QFile::exists(dir.filePath("none.setscope")));
    }

    void trainWithCoarseLabels()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath("t.setscope"), mapping = dir.filePath("pairs.json");
        QVERIFY(writeText(mapping, kMapping));
        const Run r = cli({"train", "--dataset", kDataset, "--model", "mlp", "--loss", "triplet", "--coarse", mapping,
                           "--project", project, "--max-steps", "2", "--epochs", "1", "--threads", "1"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("label set 'pairs' derived in the project"), qPrintable(r.err));
        const Run p = cli({"project", project});
        QVERIFY2(p.out.contains("label set pairs"), qPrintable(p.out));
        // The run was supervised by the derived set.
        const Run l = cli({"labels", "list", "--project", project, "--dataset", kDataset});
        QVERIFY2(l.out.contains("derived from 'fine'"), qPrintable(l.out));
        QFile db(project);
        QVERIFY(db.open(QIODevice::ReadOnly));
        QVERIFY(db.readAll().contains("\"label_set\":\"pairs\""));
    }


    // A retraining run killed (SIGKILL) while it trains on an edited label set: the edit made
    // before it and the one made while it runs are both in the project afterwards, and the
    // project still opens. The kill comes after the run printed its first epoch (a signal of
    // the child, not a delay), while it is still far from done.
    void killDuringRetrainKeepsEdits()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath("k.setscope"), mapping = dir.filePath("pairs.json");
        QVERIFY(writeText(mapping, kMapping));
        const QStringList where{"--project", project, "--dataset", kDataset};
        QCOMPARE(cli(QStringList{"labels", "derive"} + where + QStringList{"--mapping", mapping}).code, 0);
        const QString pairsCsv = dir.filePath("pairs.csv");
        QCOMPARE(cli(QStringList{"labels", "export"} + where + QStringList{"--label-set", "pairs", "--out", pairsCsv}).code, 0);
        const auto pairs = readCsv(pairsCsv);
        QCOMPARE(pairs.size(), std::size_t(160));
        const auto flipped = [&](int item) {
            return pairs.at(item) == "even" ? QStringLiteral("odd") : QStringLiteral("even");
        };
        // Imports the derived labels with the items up to `last` flipped (one edit each time).
        const auto importFlipped = [&](int last, const QString& name) {
            QString text = "item,pairs\n";
            for (const auto& [item, label] : pairs)
                text += QString::number(item) + "," + (item <= last ? flipped(item) : label) + "\n";
            const QString csv = dir.filePath(name);
            return writeText(csv, text.toUtf8()) &&
                   cli(QStringList{"labels", "import"} + where + QStringList{"--label-set", "pairs", "--in", csv}).code == 0;
        };
        QVERIFY(importFlipped(0, "before.csv"));

        QProcess train;
        train.setProcessChannelMode(QProcess::SeparateChannels);
        train.start(SETSCOPE_CLI, QStringList{"train", "--model", "mlp", "--loss", "triplet", "--label-set", "pairs",
                                              "--epochs", "100000", "--threads", "1", "--no-baseline"} + where);
        QVERIFY(train.waitForStarted());
        QByteArray out;
        while (!out.contains("epoch 1 ") && train.state() == QProcess::Running) {
            train.waitForReadyRead(1000);
            out += train.readAllStandardOutput();
        }
        QVERIFY2(out.contains("epoch 1 "), (out + train.readAllStandardError()).constData());
        QVERIFY(importFlipped(1, "during.csv")); // a label typed while the retrain runs
        train.kill();
        QVERIFY(train.waitForFinished());
        QCOMPARE(train.exitStatus(), QProcess::CrashExit);

        const QString afterCsv = dir.filePath("after.csv");
        const Run e = cli(QStringList{"labels", "export"} + where + QStringList{"--label-set", "pairs", "--out", afterCsv});
        QVERIFY2(e.code == 0, qPrintable(e.err));
        const auto after = readCsv(afterCsv);
        QCOMPARE(after.size(), std::size_t(160));
        QCOMPARE(after.at(0), flipped(0));
        QCOMPARE(after.at(1), flipped(1));
        for (const auto& [item, label] : pairs)
            if (item > 1)
                QCOMPARE(after.at(item), label);
        const Run l = cli(QStringList{"labels", "list"} + where);
        QVERIFY2(l.code == 0 && l.out.contains("pairs: 2 classes, 0 unlabelled, 2 edits"), qPrintable(l.out + l.err));
        const Run p = cli({"project", project});
        QVERIFY2(p.code == 0, qPrintable(p.err));
    }
};

QTEST_GUILESS_MAIN(TestCliLabels)
#include "tst_CliLabels.moc"
