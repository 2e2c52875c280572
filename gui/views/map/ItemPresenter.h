// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QImage>
#include <QPointF>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

class QOpenGLFunctions_3_3_Core;

namespace setscope::data {
class Dataset;
}

namespace setscope::gui {

/// What a view shows about one item of a dataset, whatever view it is (the map's hover card,
/// a retrieval list, a flow view's header): a text description, the image thumbnail of an
/// image dataset, the heaviest words of a document, and a small glyph of the set: for a graph
/// dataset (Dataset::hasEdges(), e.g. TUDataset folders and SDF molecules) a drawing of the
/// item's graph, its nodes (the elements) as dots at a stress-majorization layout
/// (layout::layoutGraph) and its edges as lines; for other sets of more than one element a
/// point cloud (a 2-D projection of the elements).
///
/// The data part (describe, words, thumbnail, glyph) is plain and testable offscreen; the
/// drawing part (drawCard) draws into the current Dear ImGui window and needs the GL
/// context of initializeGL() current for the thumbnail texture. GUI thread only.
class ItemPresenter {
public:
    ItemPresenter();
    ~ItemPresenter();
    ItemPresenter(const ItemPresenter&) = delete;
    ItemPresenter& operator=(const ItemPresenter&) = delete;

    void setDataset(std::shared_ptr<const data::Dataset> dataset);
    const std::shared_ptr<const data::Dataset>& dataset() const { return m_dataset; }

    /// The lines of an item's card: "item N · split", one "label set: class" line per label
    /// set, then for documents the first words of the item (about 160 characters), for other
    /// sets their size. Empty for an item not in the dataset.
    QStringList describe(std::int64_t item) const;
    /// The item's elements' text, heaviest first (for a document: its most frequent words),
    /// joined by spaces, cut after about `maxChars` characters with " ..."; "" when none.
    QString words(std::int64_t item, int maxChars = 160) const;
    /// The item's image (Format_RGB888, the dataset's size); null without images.
    QImage thumbnail(std::int64_t item) const;
    /// The item's elements projected to 2-D (dimension 1: (x, 0); 2: as is; more: onto the
    /// two principal axes of the set), centred and scaled into [-1, 1]; at most `maxPoints`
    /// elements (an even stride through the set). Empty for a set of fewer than 2 elements.
    std::vector<QPointF> glyph(std::int64_t item, std::size_t maxPoints = 2048) const;

    /// A graph item's drawing: `nodes[i]` is element i at layout::layoutGraph's position, the
    /// drawing centred and scaled into [-1, 1] (aspect kept); one segment per edge between
    /// two drawn nodes, from node a's position to node b's (self-loops have none). At most
    /// `maxNodes` nodes (the first ones; edges to the others are left out).
    /// The grey (r = g = b) of the graph glyph's edges on the card.
    static constexpr int kGraphEdgeGrey = 200;
    struct GraphGlyph {
        std::vector<QPointF> nodes;
        std::vector<std::pair<QPointF, QPointF>> segments;
    };
    /// Empty for an item of a dataset without edges, or not in the dataset.
    GraphGlyph graphGlyph(std::int64_t item, std::size_t maxNodes = 500) const;

    /// GL objects of the thumbnail (context current).
    void initializeGL(QOpenGLFunctions_3_3_Core* gl);
    void cleanupGL();
    /// Draws the card of `item` into the current ImGui window (inside BeginTooltip() or a
    /// window of the caller): header, label lines with class-colour swatches, thumbnail,
    /// glyph (the graph glyph for a dataset with edges), words. `glyphColor` is 0xRRGGBB.
    void drawCard(std::int64_t item, std::uint32_t glyphColor);

private:
    std::shared_ptr<const data::Dataset> m_dataset;
    QOpenGLFunctions_3_3_Core* m_gl = nullptr;
    unsigned m_texture = 0;
    std::int64_t m_textureItem = -1;
    std::int64_t m_glyphItem = -1;
    std::vector<QPointF> m_glyph;
    GraphGlyph m_graphGlyph;
};

} // namespace setscope::gui
