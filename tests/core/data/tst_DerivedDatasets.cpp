// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/builtins/Builtins.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/data/DerivedDatasets.h"
#include "core/plugin/Registry.h"

#include <QtTest>

using namespace setscope::data;
namespace catalog = setscope::catalog;

namespace {
/// Two 3x2 grey images: item 0 = [0 255 0 / 128 0 0], item 1 = [10 10 10 / 10 10 10].
Dataset tinyImages()
{
    DatasetBuilder b("tiny");
    b.setDimension(6);
    b.setImageFormat(3, 2, 1);
    b.defineLabelSet("fine", {"a", "b"});
    const std::uint8_t px[2][6] = {{0, 255, 0, 128, 0, 0}, {10, 10, 10, 10, 10, 10}};
    for (int i = 0; i < 2; ++i) {
        float v[6];
        for (int k = 0; k < 6; ++k)
            v[k] = px[i][k] / 255.0f;
        const std::size_t it = b.addItem(v, nullptr, 1, i ? Split::Test : Split::Train);
        b.setImage(it, px[i]);
        b.setLabel("fine", it, i);
    }
    return b.finish();
}
} // namespace

class TestTransform : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void imagesBecomeWeightedPixels();
    void thresholdAndEmptyImage();
    void squareVectorsWithoutImages();
    void subsetKeepsMetadata();
    void subsetKeepsEdges();
    void specSuffix();
};

void TestTransform::imagesBecomeWeightedPixels()
{
    const Dataset p = imagesAsPointsets(tinyImages());
    QCOMPARE(p.dim(), 2);
    QCOMPARE(p.setSize(0), std::size_t(2)); // (1,0) w=1 and (0,1) w=128/255
    const ItemView it = p.item(0);
    QCOMPARE(it.element(0)[0], 1.0f);
    QCOMPARE(it.element(0)[1], 0.0f);
    // intensities 255 and 128, normalised to sum 1
    QVERIFY(std::abs(it.weights[0] - 255.0f / 383.0f) < 1e-6f);
    QCOMPARE(it.element(1)[0], 0.0f);
    QCOMPARE(it.element(1)[1], 1.0f);
    QVERIFY(std::abs(it.weights[1] - 128.0f / 383.0f) < 1e-6f);
    QCOMPARE(p.setSize(1), std::size_t(6));
    QCOMPARE(p.requireLabelSet("fine").labels, (std::vector<std::int32_t>{0, 1}));
    QCOMPARE(p.split(1), Split::Test);
    QVERIFY(p.hasImages());
    QVERIFY(p.contentHash() != tinyImages().contentHash());
}

void TestTransform::thresholdAndEmptyImage()
{
    const Dataset p = imagesAsPointsets(tinyImages(), 0.03f); // 10/255 = 0.039 stays
    QCOMPARE(p.setSize(0), std::size_t(2));
    QCOMPARE(p.setSize(1), std::size_t(6));
    try {
        imagesAsPointsets(tinyImages(), 0.3f); // item 0 keeps two pixels, item 1 none
        QFAIL("an empty set was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("record 1"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, imagesAsPointsets(tinyImages(), 1.5f));
}

void TestTransform::squareVectorsWithoutImages()
{
    DatasetBuilder b;
    b.setDimension(4); // 2x2
    const float v[4] = {0, 0.5f, 0, 0};
    b.addItem(v, nullptr, 1, Split::Train);
    const Dataset p = imagesAsPointsets(b.finish());
    QCOMPARE(p.setSize(0), std::size_t(1));
    QCOMPARE(p.item(0).element(0)[0], 1.0f); // x = column 1
    QCOMPARE(p.item(0).weights[0], 1.0f);     // the only pixel carries the whole mass
    DatasetBuilder c;
    c.setDimension(3);
    c.addItem(v, nullptr, 1, Split::Train);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, imagesAsPointsets(c.finish()));
}

void TestTransform::subsetKeepsMetadata()
{
    const Dataset s = subset(tinyImages(), {1});
    QCOMPARE(s.size(), std::size_t(1));
    QCOMPARE(s.requireLabelSet("fine").labels, std::vector<std::int32_t>{1});
    QCOMPARE(int(s.image(0)[0]), 10);
    QCOMPARE(s.split(0), Split::Test);
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, subset(tinyImages(), {2}));
}

void TestTransform::subsetKeepsEdges()
{
    // Item 0: a path of 3 nodes, item 1: one node, item 2: a triangle.
    DatasetBuilder b("graphs");
    b.setDimension(1);
    const float v[] = {0, 1, 2};
    const std::int32_t path[] = {0, 1, 1, 2};
    const std::int32_t triangle[] = {0, 1, 1, 2, 0, 2};
    b.addItem(v, nullptr, 3, Split::Train);
    b.addItem(v, nullptr, 1, Split::Train);
    b.addItem(v, nullptr, 3, Split::Test);
    b.setElementEdges(0, path, 2);
    b.setElementEdges(2, triangle, 3);
    const Dataset ds = b.finish();
    const Dataset s = subset(ds, {2, 1, 0});
    QVERIFY(s.hasEdges());
    QCOMPARE(std::vector<std::int32_t>(s.edges(0).begin(), s.edges(0).end()), (std::vector<std::int32_t>{0, 1, 1, 2, 0, 2}));
    QCOMPARE(s.edgeCount(1), std::size_t(0));
    QCOMPARE(std::vector<std::int32_t>(s.edges(2).begin(), s.edges(2).end()), (std::vector<std::int32_t>{0, 1, 1, 2}));
}

void TestTransform::specSuffix()
{
    setscope::plugin::Registry r;
    setscope::builtins::registerBuiltins(r);
    const Dataset p = catalog::openDataset("synthetic:dim=4,points=5+pointsets=0.5", r);
    QCOMPARE(p.dim(), 2);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, catalog::openDataset("synthetic:dim=4+pointsets=abc", r));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, catalog::openDataset("synthetic:dim=3+pointsets", r)); // not square
}

QTEST_GUILESS_MAIN(TestTransform)
#include "tst_DerivedDatasets.moc"
