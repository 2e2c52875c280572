// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// ItemPresenter (gui/views/map/ItemPresenter.h), the data half of the hover card: the text,
// the thumbnail, the point-cloud glyph and the graph glyph, offscreen (no GL).
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

    void graphGlyphDrawsEveryEdgeBetweenItsNodes()
    {
        // Item 0: a 4-cycle 0-1-2-3 plus a pendant node 4 on node 2 and a self-loop on 1
        // (5 edges, 4 drawn); item 1: a single node; item 2: a path of 3.
        data::DatasetBuilder b("graphs");
        b.setDimension(2);
        const float v[10] = {0, 0, 1, 0, 1, 1, 0, 1, 5, 5};
        b.addItem(v, nullptr, 5, data::Split::Train);
        b.addItem(v, nullptr, 1, data::Split::Train);
        b.addItem(v, nullptr, 3, data::Split::Test);
        const std::int32_t g0[] = {0, 1, 1, 2, 2, 3, 3, 0, 2, 4, 1, 1};
        const std::int32_t g2[] = {0, 1, 1, 2};
        b.setElementEdges(0, g0, 6);
        b.setElementEdges(2, g2, 2);
        ItemPresenter p;
        p.setDataset(std::make_shared<const data::Dataset>(b.finish()));

        const ItemPresenter::GraphGlyph g = p.graphGlyph(0);
        QCOMPARE(g.nodes.size(), std::size_t(5));
        QCOMPARE(g.segments.size(), std::size_t(5)); // the self-loop has no segment
        // Segment k joins the nodes of the k-th edge (self-loop skipped), exactly.
        const int ends[5][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {2, 4}};
        for (std::size_t k = 0; k < 5; ++k) {
            QCOMPARE(g.segments[k].first, g.nodes[std::size_t(ends[k][0])]);
            QCOMPARE(g.segments[k].second, g.nodes[std::size_t(ends[k][1])]);
        }
        // Scaled into [-1, 1], touching it; the cycle's four sides about equal.
        double extent = 0.0;
        for (const QPointF& q : g.nodes)
            extent = std::max({extent, std::abs(q.x()), std::abs(q.y())});
        QVERIFY(std::abs(extent - 1.0) < 1e-9);
        auto len = [&](std::size_t k) { return QLineF(g.segments[k].first, g.segments[k].second).length(); };
        for (std::size_t k = 1; k < 4; ++k)
            QVERIFY2(std::abs(len(k) / len(0) - 1.0) < 0.1, qPrintable(QString::number(len(k) / len(0))));

        // One node: a dot in the middle, no segment.
        const ItemPresenter::GraphGlyph lone = p.graphGlyph(1);
        QCOMPARE(lone.nodes.size(), std::size_t(1));
        QCOMPARE(lone.nodes[0], QPointF(0, 0));
        QVERIFY(lone.segments.empty());
        // The path: three collinear nodes, the middle one halfway.
        const ItemPresenter::GraphGlyph path = p.graphGlyph(2);
        QCOMPARE(path.segments.size(), std::size_t(2));
        const QPointF mid = (path.nodes[0] + path.nodes[2]) / 2.0;
        QVERIFY(QLineF(mid, path.nodes[1]).length() < 1e-6);
        // At most maxNodes nodes: edges to the others are left out.
        const ItemPresenter::GraphGlyph capped = p.graphGlyph(0, 3);
        QCOMPARE(capped.nodes.size(), std::size_t(3));
        QCOMPARE(capped.segments.size(), std::size_t(2)); // 0-1 and 1-2
        QVERIFY(p.graphGlyph(3).nodes.empty());

        // A dataset without edges has no graph glyph (its sets get the point cloud).
        data::DatasetBuilder c("cloud");
        c.setDimension(2);
        c.addItem(v, nullptr, 5, data::Split::Train);
        p.setDataset(std::make_shared<const data::Dataset>(c.finish()));
        QVERIFY(p.graphGlyph(0).nodes.empty());
        QCOMPARE(p.glyph(0).size(), std::size_t(5));
    }
};

QTEST_APPLESS_MAIN(TestItemPresenter)
#include "tst_ItemPresenter.moc"
