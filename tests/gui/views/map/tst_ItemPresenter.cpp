// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// ItemPresenter (gui/views/map/ItemPresenter.h), the data half of the hover card: the text,
// the thumbnail and the point-cloud glyph, offscreen (no GL).
#include "gui/views/map/ItemPresenter.h"

#include "core/data/Dataset.h"

#include <QtTest/QtTest>

#include <array>
#include <cmath>

using namespace setscope;
using gui::ItemPresenter;

class TestItemPresenter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void describesLabelsAndSetSize()
    {
        data::DatasetBuilder b("t");
        b.setDimension(3);
        b.defineLabelSet("shape", {"chair", "table"});
        const float one[3] = {0, 0, 0};
        b.setLabel("shape", b.addItem(one, nullptr, 1, data::Split::Train), 1);
        const float four[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        b.addItem(four, nullptr, 4, data::Split::Test);
        ItemPresenter p;
        p.setDataset(std::make_shared<const data::Dataset>(b.finish()));
        QCOMPARE(p.describe(0), QStringList({"item 0  ·  train", "shape: table"}));
        QCOMPARE(p.describe(1), QStringList({"item 1  ·  test", "shape: unlabelled", "a set of 4 elements"}));
        QVERIFY(p.describe(2).isEmpty());
        QVERIFY(p.describe(-1).isEmpty());
        QVERIFY(p.thumbnail(0).isNull()); // no images
        QVERIFY(p.words(0).isEmpty());    // no text
        QVERIFY(p.glyph(0).empty());      // one element: no glyph
        QCOMPARE(p.glyph(1).size(), std::size_t(4));
    }

    void thumbnailHasTheItemsPixels()
    {
        data::DatasetBuilder b("img");
        b.setDimension(1);
        b.setImageFormat(3, 2, 3);
        const float v = 0;
        for (int i = 0; i < 2; ++i) {
            b.addItem(&v, nullptr, 1, data::Split::Train);
            std::vector<std::uint8_t> px(18);
            for (std::size_t k = 0; k < px.size(); ++k)
                px[k] = static_cast<std::uint8_t>(10 * i + k);
            b.setImage(static_cast<std::size_t>(i), px.data());
        }
        ItemPresenter p;
        p.setDataset(std::make_shared<const data::Dataset>(b.finish()));
        const QImage img = p.thumbnail(1);
        QCOMPARE(img.size(), QSize(3, 2));
        // Pixel (x = 2, y = 1) is pixel 5: bytes 15, 16, 17, plus 10 for item 1.
        QCOMPARE(img.pixelColor(2, 1), QColor(25, 26, 27));
        QCOMPARE(img.pixelColor(0, 0), QColor(10, 11, 12));
    }

    void glyphOfAPlanarCloudKeepsItsShape()
    {
        // Eight points on a tilted plane in 5-D: the projection onto the set's two principal
        // axes is an isometry of the plane, so every distance keeps its ratio to the others.
        const double e1[5] = {0.6, 0.0, 0.8, 0.0, 0.0}, e2[5] = {0.0, 0.6, 0.0, 0.0, 0.8};
        const double uv[8][2] = {{0, 0}, {4, 0}, {4, 1}, {0, 1}, {2, 3}, {-1, 2}, {3, -2}, {1, 1}};
        std::vector<float> values;
        std::vector<std::array<double, 5>> pts;
        for (const auto& q : uv) {
            std::array<double, 5> x{};
            for (int j = 0; j < 5; ++j) {
                x[static_cast<std::size_t>(j)] = 7.0 + q[0] * e1[j] + q[1] * e2[j];
                values.push_back(float(x[static_cast<std::size_t>(j)]));
            }
            pts.push_back(x);
        }
        data::DatasetBuilder b("cloud");
        b.setDimension(5);
        b.addItem(values.data(), nullptr, 8, data::Split::Train);
        ItemPresenter p;
        p.setDataset(std::make_shared<const data::Dataset>(b.finish()));
        const std::vector<QPointF> g = p.glyph(0);
        QCOMPARE(g.size(), std::size_t(8));
        double extent = 0.0;
        for (const QPointF& q : g)
            extent = std::max({extent, std::abs(q.x()), std::abs(q.y())});
        QVERIFY(std::abs(extent - 1.0) < 1e-9); // scaled into [-1, 1], touching the edge
        auto dist5 = [&](int a, int c) {
            double s = 0.0;
            for (std::size_t j = 0; j < 5; ++j)
                s += (pts[std::size_t(a)][j] - pts[std::size_t(c)][j]) * (pts[std::size_t(a)][j] - pts[std::size_t(c)][j]);
            return std::sqrt(s);
        };
        auto dist2 = [&](int a, int c) { return std::hypot(g[std::size_t(a)].x() - g[std::size_t(c)].x(), g[std::size_t(a)].y() - g[std::size_t(c)].y()); };
        const double ratio = dist2(0, 1) / dist5(0, 1);
        for (int a = 0; a < 8; ++a)
            for (int c = a + 1; c < 8; ++c)
                QVERIFY2(std::abs(dist2(a, c) / dist5(a, c) - ratio) < 1e-4 * ratio,
                         qPrintable(QStringLiteral("%1-%2").arg(a).arg(c)));
        // At most maxPoints elements.
        QCOMPARE(p.glyph(0, 3).size(), std::size_t(3));
    }
};

QTEST_APPLESS_MAIN(TestItemPresenter)
#include "tst_ItemPresenter.moc"
