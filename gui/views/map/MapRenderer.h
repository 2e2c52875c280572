// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QElapsedTimer>
#include <QOpenGLFunctions>
#include <QOpenGLBuffer>
#include <QOpenGLVertexArrayObject>
#include <QPolygonF>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

#include "gui/views/map/MapCamera.h"
#include "gui/views/map/PointIndex.h"

class QOpenGLFramebufferObject;
class QOpenGLFunctions_3_3_Core;
class QOpenGLShaderProgram;

namespace setscope::gui {

/// The reusable part of a map view: the points of a 2-D layout (dataset item ids, where each
/// is drawn, its colour and size), the camera, picking through a grid index, and the GL
/// objects that draw them (shaders/points.*: one vertex per point, GL_POINTS sprites).
/// Not a widget: a GL view owns one (EmbeddingView, through its QOpenGLWindow), forwards its
/// size to camera(), and calls initializeGL() / draw() / cleanupGL() from its GL hooks.
///
/// Cost model, so that a million points stay interactive on a software rasteriser (Mesa's
/// llvmpipe spends about a microsecond per point, so a million points cost seconds per
/// draw): positions go to the GPU once per layout (a "from" and a "to" buffer; the vertex
/// shader interpolates with a uniform t), colours and sizes once per change, the selection as
/// an index buffer of the selected vertices (O(selected) to build). Nothing in draw() is
/// proportional to the number of points on the CPU side of the driver. At rest the points
/// are drawn once into a retained layer (an off-screen framebuffer) and later frames copy it
/// (hover, overlay, idle repaints); a new layer is filled chunkSize() points per frame, so no
/// frame blocks for the whole set. While the camera moves (interacting = true) and the set
/// is larger than one chunk, the last complete layer is shown moved and scaled to the new
/// camera until the owner says the interaction ended. While a new layout animates, every
/// k-th point is drawn (at most kAnimationPoints) and the full set appears when it stops.
/// Picking asks the grid (PointIndex) over the layout's positions, i.e. where the
/// animation ends.
///
/// GUI thread only; GL calls need the owner's context current.
class MapRenderer {
public:
    MapRenderer();
    /// Call cleanupGL() before, with the context current (the owner's destructor must make
    /// it current; nothing here does).
    ~MapRenderer();
    MapRenderer(const MapRenderer&) = delete;
    MapRenderer& operator=(const MapRenderer&) = delete;

    // --- points -----------------------------------------------------------------------

    void clear();
    /// Shows `items` (dataset indices, unique, >= 0) at `xy` (items.size() x 2, map
    /// coordinates). Items shown before start where they are drawn now and move to their new
    /// place over animationDuration(); new items start at their place. Colours and sizes
    /// are reset (all unlabelled grey, factor 1): set them after.
    void setPoints(std::vector<std::int64_t> items, std::vector<float> xy);
    const std::vector<std::int64_t>& items() const { return m_items; }
    std::size_t size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    /// The layout's positions (items().size() x 2), where the animation ends.
    const std::vector<float>& targetPositions() const { return m_to; }
    /// Position of vertex v in the layout (map coordinates).
    QPointF targetPosition(std::size_t v) const { return {m_to[2 * v], m_to[2 * v + 1]}; }
    /// Index into items() of a dataset item, -1 when it is not shown. O(1).
    std::int64_t vertexOf(std::int64_t item) const;

    /// Per point, in items() order: colour as 0xRRGGBB. A wrong length is ignored.
    void setColors(std::vector<std::uint32_t> rgb);
    const std::vector<std::uint32_t>& colors() const { return m_colors; }
    /// Per point: a factor on the point diameter (1 = pointSize). Empty: all 1.
    void setSizes(std::vector<float> factors);
    const std::vector<float>& sizes() const { return m_sizes; }

    // --- animation --------------------------------------------------------------------

    void setAnimationDuration(int ms) { m_animationMs = ms; }
    int animationDuration() const { return m_animationMs; }
    /// Eased progress of the running animation, 0..1 (1 = at rest).
    float animationT() const;
    bool animating() const { return !m_items.empty() && animationT() < 1.0f; }
    /// Where every point is drawn right now (items().size() x 2). O(n): for tests and
    /// export, not for frames.
    std::vector<float> currentPositions() const;
    /// A box holding every drawn point right now: exact at rest; while animating, the
    /// interpolation of the start and end boxes (which holds every interpolated point). O(1).
    QRectF currentBounds() const;
    /// The layout's bounding box of the given dataset items (those shown; empty box: none).
    QRectF boundsOf(const std::vector<std::int64_t>& items) const;

    // --- camera and picking -------------------------------------------------------------

    MapCamera& camera() { return m_camera; }
    const MapCamera& camera() const { return m_camera; }
    /// The dataset item nearest to `widgetPos` within `radiusPx` logical pixels, or -1.
    std::int64_t itemAt(QPointF widgetPos, double radiusPx) const;
    /// Dataset items inside a widget rectangle / polygon (lasso), ascending.
    std::vector<std::int64_t> itemsInRect(QRectF widgetRect) const;
    std::vector<std::int64_t> itemsInPolygon(const QPolygonF& widgetPolygon) const;
    /// The grid over the layout's positions, rebuilt when they changed.
    const PointIndex& index() const;

    /// The items drawn on top with a light rim (dataset indices; any order).
    void setSelectedItems(const std::vector<std::int64_t>& items);

    // --- GL -----------------------------------------------------------------------------

    /// Compiles the shaders and creates the buffers. On failure returns false with a
    /// message for the user in `problem`.
    bool initializeGL(QOpenGLFunctions_3_3_Core* gl, QString* problem);
    void cleanupGL();
    bool glReady() const { return m_gl != nullptr; }
    /// Points drawn into the layer per frame, and the most drawn per frame while animating.
    static constexpr std::size_t kChunk = 150000;
    static constexpr std::size_t kAnimationPoints = 100000;
    /// Points drawn into the layer per frame (default kChunk; tests use small values).
    void setChunkSize(std::size_t points) { m_chunk = std::max<std::size_t>(1, points); }
    std::size_t chunkSize() const { return m_chunk; }

    /// Draws the points into `targetFbo` (the owner's framebuffer, `framebufferSize` device
    /// pixels). `pointSizePx`: diameter in logical pixels; `hoveredItem` is drawn larger, on
    /// top. `interacting`: the camera is moving (see the class comment). Returns true when
    /// the picture is not final yet (a layer being filled, an animation running): the owner
    /// should draw another frame.
    bool draw(GLuint targetFbo, QSize framebufferSize, float devicePixelRatio, float pointSizePx,
              std::int64_t hoveredItem, bool interacting = false);
    /// How the last draw() made its picture (for tests and benchmarks).
    enum class DrawPath { None, Animated, LayerFill, LayerCopy, LayerPreview };
    DrawPath lastDrawPath() const { return m_lastPath; }

private:
    struct LayerKey {
        QPointF center;
        double zoom = 0.0;
        QSize size;
        float pointSize = 0.0f;
        std::uint64_t content = 0;
        bool operator==(const LayerKey&) const = default;
    };
    void setUniforms(QSize fb, float dpr, float pointSizePx);
    void drawRange(std::size_t first, std::size_t count);
    void drawSelected();
    void drawHovered(std::int64_t vertex);
    void blitLayer(GLuint targetFbo, QSize fb, float dpr, bool transformed);

    void uploadPositions();
    void uploadStyle();

    std::vector<std::int64_t> m_items;
    std::vector<std::int32_t> m_vertexOf; ///< dataset item -> vertex, -1 = not shown
    std::vector<float> m_from, m_to;
    QRectF m_fromBounds, m_toBounds;
    std::vector<std::uint32_t> m_colors;
    std::vector<float> m_sizes;
    std::vector<std::uint32_t> m_selectedVertices;
    QElapsedTimer m_animClock;
    int m_animationMs = 300;
    MapCamera m_camera;
    mutable PointIndex m_index;
    mutable bool m_indexDirty = true;

    bool m_positionsDirty = true, m_styleDirty = true, m_selectionDirty = true;
    QOpenGLFunctions_3_3_Core* m_gl = nullptr;
    std::unique_ptr<QOpenGLShaderProgram> m_program;
    QOpenGLVertexArrayObject m_vao;
    QOpenGLBuffer m_positions{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer m_style{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer m_selectedIbo{QOpenGLBuffer::IndexBuffer};
    int m_selectedCount = 0;
    QOpenGLBuffer m_lodIbo{QOpenGLBuffer::IndexBuffer}; ///< every k-th vertex, for animation frames
    int m_lodCount = 0;
    bool m_lodDirty = true;

    // The retained layer: the complete picture of `m_layerKey`, and the one being filled.
    std::unique_ptr<QOpenGLFramebufferObject> m_layer, m_filling;
    LayerKey m_layerKey, m_fillingKey;
    bool m_layerValid = false, m_fillingActive = false;
    std::size_t m_filled = 0;
    std::size_t m_chunk = kChunk;
    std::uint64_t m_content = 1; ///< bumped whenever what the points look like changes
    DrawPath m_lastPath = DrawPath::None;
};

} // namespace setscope::gui
