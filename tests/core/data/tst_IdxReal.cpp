// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The IDX loader on the real Fashion-MNIST of Debian's dataset-fashion-mnist (installed by
// bootstrap.sh). Label real-data: CTest reports it as skipped, not passed, without the package.
#include "core/catalog/DatasetCatalog.h"
#include "core/data/IdxLoader.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>

using namespace setscope::data;

class TestIdxReal : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void realFashionMnist();
};

void TestIdxReal::realFashionMnist()
{
    const std::string dir = fashionMnistDir();
    if (!std::filesystem::exists(dir + "/train-images-idx3-ubyte.gz"))
        QSKIP("dataset-fashion-mnist is not installed");
    DatasetBuilder b(dir);
    loadIdx(dir, b);
    const Dataset ds = b.finish();
    QCOMPARE(ds.size(), std::size_t(70000));
    QCOMPARE(ds.count(Split::Train), std::size_t(60000));
    QCOMPARE(ds.count(Split::Test), std::size_t(10000));
    QCOMPARE(ds.dim(), 784);
    const LabelSet& fine = ds.requireLabelSet("fine");
    // Published facts about Fashion-MNIST: 6 000 train + 1 000 test images per class, and
    // the first training and first test image are both ankle boots (label 9).
    for (std::size_t c : fine.counts())
        QCOMPARE(c, std::size_t(7000));
    QCOMPARE(fine.labels[0], 9);
    QCOMPARE(fine.labels[60000], 9);
    float mx = 0;
    for (float v : ds.values())
        mx = std::max(mx, v);
    QCOMPARE(mx, 1.0f); // pixels scaled from 0..255
}

QTEST_GUILESS_MAIN(TestIdxReal)
#include "tst_IdxReal.moc"
