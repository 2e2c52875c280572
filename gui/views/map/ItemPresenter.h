// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QImage>
#include <QPointF>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

class QOpenGLFunctions_3_3_Core;

namespace setscope::data {
class Dataset;
}

namespace setscope::gui {

/// What a view shows about one item of a dataset, whatever view it is (the map's hover card,
/// a retrieval list, a flow view's header): a text description, the image thumbnail of an
/// image dataset, the heaviest words of a document, and a small point-cloud glyph (a 2-D
/// projection of the set's elements) for sets of more than one element.
///
/// Graph datasets reach setscope as sets of node vectors: the Dataset keeps no edge list
/// (core/data/graph builds the node features and drops the graph), so there is no graph
/// glyph here; graphs show the point-cloud glyph of their node vectors.
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

    /// GL objects of the thumbnail (context current).
    void initializeGL(QOpenGLFunctions_3_3_Core* gl);
    void cleanupGL();
    /// Draws the card of `item` into the current ImGui window (inside BeginTooltip() or a
    /// window of the caller): header, label lines with class-colour swatches, thumbnail,
    /// glyph, words. `glyphColor` is 0xRRGGBB.
    void drawCard(std::int64_t item, std::uint32_t glyphColor);

private:
    std::shared_ptr<const data::Dataset> m_dataset;
    QOpenGLFunctions_3_3_Core* m_gl = nullptr;
    unsigned m_texture = 0;
    std::int64_t m_textureItem = -1;
    std::int64_t m_glyphItem = -1;
    std::vector<QPointF> m_glyph;
};

} // namespace setscope::gui
