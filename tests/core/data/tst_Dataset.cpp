// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Dataset.h"
#include "tests/core/data/AllocationCap.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <limits>

using namespace setscope::data;

class TestDataset : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void raggedStorage();
    void vectorDatasetIsSetsOfOne();
    void labelSetsAndCounts();
    void rejectsBadInput_data();
    void rejectsBadInput();
    void sinkSizesFromLoadersAreChecked();
    void contentHashTracksData();
    void withLabelSetReplaces();
    void edgesAreKeptPerItem();
    void edgesOutsideTheItemAreRefused_data();
    void edgesOutsideTheItemAreRefused();
};

void TestDataset::raggedStorage()
{
    DatasetBuilder b("mem");
    b.setDimension(2);
    const float a[] = {1, 2, 3, 4, 5, 6};
    const float wa[] = {0.5f, 0.25f, 0.25f};
    const float c[] = {7, 8};
    QCOMPARE(b.addItem(a, wa, 3, Split::Train), std::size_t(0));
    QCOMPARE(b.addItem(c, nullptr, 1, Split::Test), std::size_t(1));
    const Dataset ds = b.finish();
    QCOMPARE(ds.size(), std::size_t(2));
    QCOMPARE(ds.elementCount(), std::size_t(4));
    QCOMPARE(ds.setSize(0), std::size_t(3));
    QCOMPARE(ds.maxSetSize(), std::size_t(3));
    QVERIFY(!ds.isVectorDataset());
    const ItemView it = ds.item(0);
    QCOMPARE(it.element(2)[0], 5.0f);
    QCOMPARE(it.element(2)[1], 6.0f);
    QCOMPARE(it.weights[1], 0.25f);
    QCOMPARE(ds.item(1).weights[0], 1.0f); // default weight
    QCOMPARE(ds.indices(Split::Test), std::vector<std::int64_t>{1});
    QCOMPARE(ds.count(Split::Train), std::size_t(1));
}

void TestDataset::vectorDatasetIsSetsOfOne()
{
    DatasetBuilder b;
    b.setDimension(3);
    for (int i = 0; i < 4; ++i) {
        const float v[] = {float(i), 0, 1};
        b.addItem(v, nullptr, 1, Split::Train);
    }
    const Dataset ds = b.finish();
    QVERIFY(ds.isVectorDataset());
    // Row-major N x D values, the same memory a plain matrix would have.
    QCOMPARE(ds.values().size(), std::size_t(12));
    QCOMPARE(ds.values()[3 * 3], 3.0f);
}

void TestDataset::labelSetsAndCounts()
{
    DatasetBuilder b;
    b.setDimension(1);
    b.defineLabelSet("fine", {"a", "b", "c"});
    for (int i = 0; i < 6; ++i) {
        const float v = float(i);
        b.addItem(&v, nullptr, 1, Split::Train);
    }
    b.defineLabelSet("coarse", {"x", "y"}); // defined after items: all unlabelled first
    const int fine[] = {0, 1, 1, 2, -1, 2};
    for (int i = 0; i < 6; ++i) {
        b.setLabel("fine", std::size_t(i), fine[i]);
        if (i < 3)
            b.setLabel("coarse", std::size_t(i), i % 2);
    }
    const Dataset ds = b.finish();
    const LabelSet& f = ds.requireLabelSet("fine");
    QCOMPARE(f.counts(), (std::vector<std::size_t>{1, 2, 2}));
    QCOMPARE(f.unlabelledCount(), std::size_t(1));
    const LabelSet* c = ds.labelSet("coarse");
    QVERIFY(c);
    QCOMPARE(c->unlabelledCount(), std::size_t(3));
    QVERIFY(!ds.labelSet("nope"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ds.requireLabelSet("nope"));
}

void TestDataset::rejectsBadInput_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expect");
    QTest::newRow("nan") << 0 << "NaN";
    QTest::newRow("inf") << 1 << "infinite";
    QTest::newRow("negative weight") << 2 << "non-negative";
    QTest::newRow("zero total weight") << 3 << "total weight is zero";
    QTest::newRow("empty set") << 4 << "empty set";
    QTest::newRow("no items") << 5 << "no items";
    QTest::newRow("label out of range") << 6 << "outside";
    QTest::newRow("element text count") << 7 << "strings for a set";
}

void TestDataset::rejectsBadInput()
{
    QFETCH(int, kind);
    QFETCH(QString, expect);
    DatasetBuilder b("bad.bin");
    b.setDimension(2);
    b.defineLabelSet("fine", {"a"});
    const float ok[] = {1, 2};
    try {
        b.addItem(ok, nullptr, 1, Split::Train); // record 0 is fine
        float v[] = {1, 2};
        float w[] = {1};
        switch (kind) {
        case 0: v[1] = std::nanf(""); break;
        case 1: v[0] = INFINITY; break;
        case 2: w[0] = -1; break;
        case 3: w[0] = 0; break;
        case 4: b.addItem(v, w, 0, Split::Train); break;
        case 5: b = DatasetBuilder("bad.bin"); b.setDimension(2); break;
        case 6: b.setLabel("fine", 0, 5); break;
        case 7: b.setElementText(0, {"a", "b"}); break;
        }
        if (kind < 4)
            b.addItem(v, w, 1, Split::Train);
        b.finish();
        QFAIL("bad input accepted");
    } catch (const InputError& e) {
        const QString msg = QString::fromStdString(e.what());
        QVERIFY2(msg.contains(expect), qPrintable(msg));
        QVERIFY2(msg.startsWith("bad.bin"), qPrintable(msg));
        if (kind < 4)
            QVERIFY2(msg.contains("record 1"), qPrintable(msg)); // names the offending item
    }
}

void TestDataset::sinkSizesFromLoadersAreChecked()
{
    // Loaders (and plugins) pass counts read from files to the sink: products that do not
    // fit are refused, so is a dataset larger than the memory budget, and nothing the
    // counts claim is allocated (under the cap, a bad_alloc would fail the test).
    const setscope::testing::AllocationCap cap;
    QVERIFY(cap.active());
    constexpr std::size_t kHuge = std::size_t(1) << 62;
    const float v[] = {1, 2, 3, 4};
    const std::uint8_t px[] = {1, 2, 3, 4};
    DatasetBuilder b("sink.bin");
    b.setDimension(4);
    QVERIFY_THROWS_EXCEPTION(InputError, b.reserve(std::numeric_limits<std::size_t>::max(), 1));
    try {
        b.reserve(1, kHuge); // 2^62 elements x 4 values
        QFAIL("an overflowing reserve was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith("sink.bin: ") && QString(e.what()).contains("more values than fit in 64 bits"),
                 e.what());
    }
    try {
        // Fits in 64 bits, not in memory: refused with the estimate (util::requireMemory), by
        // hand 2^40 x (4 values + 1 weight) x 4 B + 2^40 x 9 B per item = 29 TiB.
        b.reserve(std::size_t(1) << 40, std::size_t(1) << 40);
        QFAIL("a reserve of 29 TiB was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith("sink.bin: loading it needs about 29.0 TiB more memory"), e.what());
    }
    try {
        b.addItem(v, nullptr, kHuge, Split::Train); // 2^62 x 4 values wrapped to 0
        QFAIL("an overflowing set size was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith("sink.bin (record 0): a set of 4611686018427387904 elements"), e.what());
    }
    QCOMPARE(b.addItem(v, nullptr, 1, Split::Train), std::size_t(0));
    b.setImageFormat(2, 2, 1);
    b.setImage(0, px);
    try {
        b.setImage(1000000000000, px); // the pixel buffer grew to 10^12 + 1 images
        QFAIL("an image for a missing item was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("(record 1000000000000): image for an item that does not exist"), e.what());
    }
    const Dataset ds = b.finish();
    QCOMPARE(ds.size(), std::size_t(1));
    QCOMPARE(int(ds.image(0)[3]), 4);
}

void TestDataset::contentHashTracksData()
{
    auto make = [](float x, int label) {
        DatasetBuilder b;
        b.setDimension(1);
        b.defineLabelSet("fine", {"a", "b"});
        b.addItem(&x, nullptr, 1, Split::Train);
        b.setLabel("fine", 0, label);
        return b.finish().contentHash();
    };
    QCOMPARE(make(1, 0).size(), std::size_t(32));
    QCOMPARE(make(1, 0), make(1, 0));
    QVERIFY(make(1, 0) != make(2, 0));
    QVERIFY(make(1, 0) != make(1, 1));
}

void TestDataset::withLabelSetReplaces()
{
    DatasetBuilder b;
    b.setDimension(1);
    b.defineLabelSet("fine", {"a", "b"});
    for (int i = 0; i < 3; ++i) {
        const float v = float(i);
        b.addItem(&v, nullptr, 1, Split::Train);
    }
    const Dataset ds = b.finish();
    LabelSet user{"user", {"u0", "u1"}, {1, 0, -1}};
    const Dataset d2 = ds.withLabelSet(user);
    QCOMPARE(d2.labelSets().size(), std::size_t(2));
    QCOMPARE(d2.requireLabelSet("user").labels, (std::vector<std::int32_t>{1, 0, -1}));
    LabelSet wrong{"user", {"u"}, {0}};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ds.withLabelSet(wrong));
}

void TestDataset::edgesAreKeptPerItem()
{
    // Three items of 3, 1 and 4 elements; edges given for items 2 and 0, in that order
    // (item 1 gets none): the dataset stores them per item, in item order.
    DatasetBuilder b("g.sdf");
    b.setDimension(1);
    const float v[] = {0, 1, 2, 3};
    b.addItem(v, nullptr, 3, Split::Train);
    b.addItem(v, nullptr, 1, Split::Train);
    b.addItem(v, nullptr, 4, Split::Test);
    const std::int32_t cycle[] = {0, 1, 1, 2, 2, 3, 3, 0};
    const std::int32_t path[] = {0, 1, 1, 2};
    b.setElementEdges(2, cycle, 4);
    b.setElementEdges(0, path, 2);
    const Dataset ds = b.finish();
    QVERIFY(ds.hasEdges());
    QCOMPARE(ds.edgeCount(0), std::size_t(2));
    QCOMPARE(ds.edgeCount(1), std::size_t(0));
    QCOMPARE(ds.edgeCount(2), std::size_t(4));
    QCOMPARE(std::vector<std::int32_t>(ds.edges(0).begin(), ds.edges(0).end()), (std::vector<std::int32_t>{0, 1, 1, 2}));
    QCOMPARE(std::vector<std::int32_t>(ds.edges(2).begin(), ds.edges(2).end()),
             (std::vector<std::int32_t>{0, 1, 1, 2, 2, 3, 3, 0}));
    QCOMPARE(ds.edgeOffsets(), (std::vector<std::int64_t>{0, 2, 2, 6}));
    QCOMPARE(ds.edgePairs().size(), std::size_t(12));

    // Attaching a label set keeps them (copy and move).
    const Dataset labelled = ds.withLabelSet(LabelSet{"user", {"u"}, {0, 0, -1}});
    QCOMPARE(labelled.edgeCount(2), std::size_t(4));
    const Dataset moved = Dataset(ds).withLabelSet(LabelSet{"user", {"u"}, {0, 0, -1}});
    QCOMPARE(moved.edgeOffsets(), ds.edgeOffsets());

    // Edges are display data: the content hash is that of the same sets without them.
    DatasetBuilder plain("g.sdf");
    plain.setDimension(1);
    plain.addItem(v, nullptr, 3, Split::Train);
    plain.addItem(v, nullptr, 1, Split::Train);
    plain.addItem(v, nullptr, 4, Split::Test);
    const Dataset noEdges = plain.finish();
    QVERIFY(!noEdges.hasEdges());
    QVERIFY(noEdges.edgePairs().empty() && noEdges.edgeOffsets().empty());
    QCOMPARE(noEdges.edgeCount(2), std::size_t(0));
    QCOMPARE(noEdges.contentHash(), ds.contentHash());
}

void TestDataset::edgesOutsideTheItemAreRefused_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expect");
    QTest::newRow("index = set size") << 0 << "(record 1): edge 1 (1, 3) names element 3 of a set of 3 elements";
    QTest::newRow("negative index") << 1 << "(record 1): edge 0 (-1, 0) names element -1 of a set of 3";
    QTest::newRow("missing item") << 2 << "(record 2): edges for an item that does not exist";
    QTest::newRow("twice") << 3 << "(record 1): edges given twice";
}

void TestDataset::edgesOutsideTheItemAreRefused()
{
    QFETCH(int, kind);
    QFETCH(QString, expect);
    DatasetBuilder b("mols.sdf");
    b.setDimension(1);
    const float v[] = {0, 1, 2, 3, 4};
    b.addItem(v, nullptr, 5, Split::Train); // record 0: 5 elements, so index 3 is fine there
    b.addItem(v, nullptr, 3, Split::Train); // record 1: 3 elements
    const std::int32_t outside[] = {0, 1, 1, 3};
    const std::int32_t negative[] = {-1, 0};
    const std::int32_t ok[] = {0, 1};
    b.setElementEdges(0, outside, 2);
    try {
        switch (kind) {
        case 0: b.setElementEdges(1, outside, 2); break;
        case 1: b.setElementEdges(1, negative, 1); break;
        case 2: b.setElementEdges(2, ok, 1); break;
        case 3: // refused by finish()
            b.setElementEdges(1, ok, 1);
            b.setElementEdges(1, ok, 1);
            break;
        }
        b.finish();
        QFAIL("bad edges accepted");
    } catch (const InputError& e) {
        const QString msg = QString::fromStdString(e.what());
        QVERIFY2(msg.startsWith("mols.sdf (record"), qPrintable(msg));
        QVERIFY2(msg.contains(expect), qPrintable(msg));
    }
}

QTEST_GUILESS_MAIN(TestDataset)
#include "tst_Dataset.moc"
