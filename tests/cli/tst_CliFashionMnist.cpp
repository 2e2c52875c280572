// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Issue 2's acceptance run: `setscope-cli train --dataset fashion-mnist --model mlp --loss
// triplet --epochs 3` ends with a kNN accuracy on the test split above the same classifier
// on raw pixels. Timing is not asserted here (see docs/BENCHMARKS.md).
#include <QtTest>

#include <QProcess>
#include <QRegularExpression>

#include <filesystem>

class TestCliFashionMnist : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tripletBeatsRawPixels();
};

void TestCliFashionMnist::tripletBeatsRawPixels()
{
    if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz") &&
        !qEnvironmentVariableIsSet("SETSCOPE_FASHION_MNIST_DIR"))
        QSKIP("dataset-fashion-mnist is not installed");
    QProcess p;
    p.start(SETSCOPE_CLI, {"train", "--dataset", "fashion-mnist", "--model", "mlp", "--loss", "triplet", "--epochs", "3"});
    QVERIFY(p.waitForFinished(15 * 60 * 1000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    qInfo().noquote() << out;
    QCOMPARE(p.exitCode(), 0);
    const auto raw = QRegularExpression(R"(^raw vectors: kNN ([0-9.]+))", QRegularExpression::MultilineOption).match(out);
    const auto fin = QRegularExpression(R"(^epoch 3 .* kNN ([0-9.]+))", QRegularExpression::MultilineOption).match(out);
    QVERIFY(raw.hasMatch() && fin.hasMatch());
    const double rawAcc = raw.captured(1).toDouble(), finAcc = fin.captured(1).toDouble();
    // The raw-pixel kNN on Fashion-MNIST is about 0.85 (a published baseline range).
    QVERIFY2(rawAcc > 0.83 && rawAcc < 0.88, qPrintable(QString::number(rawAcc)));
    QVERIFY2(finAcc > rawAcc, qPrintable(QString("learned %1 vs raw %2").arg(finAcc).arg(rawAcc)));
}

QTEST_GUILESS_MAIN(TestCliFashionMnist)
#include "tst_CliFashionMnist.moc"
