// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Nothing in a training step moves data between host and device per element or per set: the
// operator calls through which data can cross (every .to(), item(), a copy between devices;
// DeviceTestUtil.h's TransferCounter, LibTorch's RecordFunction observer) are counted over two
// steps of real TrainingJob runs, and the count must not change when the batch doubles. On
// the CPU the .to() calls are no-ops but the calls are the same ones the GPU run makes, so this
// check runs everywhere; tst_DeviceParity's transfersPerStepOnCuda counts the real copies on a
// GPU. The counts are printed (qInfo) for docs/BENCHMARKS.md "GPU".
#include "tests/core/train/DeviceTestUtil.h"

#include "core/builtins/Builtins.h"
#include "core/plugin/Registry.h"

#include <QtTest>

using namespace setscope;
using namespace setscope::testing;

class TestDeviceTransfers : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;

private Q_SLOTS:
    void initTestCase() { builtins::registerBuiltins(m_registry); }

    void constantPerStep_data()
    {
        QTest::addColumn<QString>("recipe");
        QTest::addColumn<QString>("model");
        QTest::newRow("ours, selfattn") << "ours" << "selfattn";
        QTest::newRow("sset, selfattn") << "sset" << "selfattn";
        QTest::newRow("approx-emd, selfattn") << "approx-emd" << "selfattn";
        QTest::newRow("cont, selfattn") << "cont" << "selfattn";
        QTest::newRow("ours, mlp") << "ours" << "mlp";
        QTest::newRow("ours, deepsets") << "ours" << "deepsets";
    }
    void constantPerStep()
    {
        QFETCH(QString, recipe);
        QFETCH(QString, model);
        const auto ds = deviceTestDataset(6, 5);
        const StepTransfers a = transfersOfTwoSteps(m_registry, ds, recipe.toStdString(), model.toStdString(), "cpu", 8);
        const StepTransfers b = transfersOfTwoSteps(m_registry, ds, recipe.toStdString(), model.toStdString(), "cpu", 16);
        QVERIFY2(a.error.empty() && b.error.empty(), (a.error + b.error).c_str());
        const auto& x = a.twoSteps;
        const auto& y = b.twoSteps;
        qInfo("%s, 2 steps: batch 8: %ld to() (%ld to a device), %ld _to_copy, %ld item(); batch 16: %ld to() (%ld to a "
              "device), %ld _to_copy, %ld item()",
              QTest::currentDataTag(), x.to, x.toDevice, x.toCopy, x.scalar, y.to, y.toDevice, y.toCopy, y.scalar);
        QVERIFY2(x.toDevice > 0, "the observer saw no .to(device) call: nothing was counted");
        QCOMPARE(y.to, x.to);
        QCOMPARE(y.toDevice, x.toDevice);
        QCOMPARE(y.toCopy, x.toCopy);
        QCOMPARE(y.scalar, x.scalar);
        QCOMPARE(x.copyAcross, 0L); // one device
        // The places a GPU run moves data or waits (collation, labels, the batch's EMD matrix,
        // the losses' statistics): a handful per step, not one per set (batches of 8 sets over 2
        // steps would make 16 or more of each).
        QVERIFY2(x.toDevice + x.scalar <= 2 * 16, qPrintable(QString::number(x.toDevice + x.scalar)));
    }
};

QTEST_GUILESS_MAIN(TestDeviceTransfers)
#include "tst_DeviceTransfers.moc"
