// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QElapsedTimer>
#include <QImage>
#include <QOpenGLBuffer>
#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QOpenGLWidget>
#include <QPointF>
#include <QPointer>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

#include "gui/session/SelectionModel.h"
#include "gui/views/map/PointIndex.h"

namespace setscope::data {
class Dataset;
}
namespace setscope::layout {
struct Layout;
}

namespace setscope::gui {

class ImGuiQt;
class SelectionModel;

/// The embedding map: the newest 2-D layout of a dataset's items as round points coloured
/// by a label set (OpenGL 3.3 core, shaders/points.*), with a Dear ImGui overlay: legend,
/// hovered item (labels, image thumbnail or first words of a document) and a stats line.
///
/// Interaction: left-drag pans, the wheel zooms about the cursor, a double-click fits all
/// points (and turns auto-fit back on; auto-fit keeps following the map until the user
/// pans or zooms). With a SelectionModel: a click selects the point under the mouse (Ctrl:
/// toggles it; a click on empty space clears), Shift-drag draws a rubber band and selects
/// what it covers (Ctrl+Shift: adds). Selected points are drawn on top, larger, with a light
/// rim. Picking goes through a grid index of the points (PointIndex), not a scan per mouse
/// move, except while a new layout animates. New layouts animate: each item moves from where it was drawn to its new
/// place over animationDuration() ms. The view repaints only when something changed
/// (a layout, the colouring, interaction, a running animation), never in a busy loop.
///
/// Coordinates: "map" coordinates are the layout's; "widget" coordinates are logical
/// pixels with y down. mapToWidget(p) = centre of the widget + (p - center()) * zoom(),
/// with y flipped. GUI thread only.
class EmbeddingView final : public QOpenGLWidget, protected QOpenGLFunctions_3_3_Core {
    Q_OBJECT
public:
    /// Fit-all leaves this many logical pixels between the outermost points and the edge
    /// (room for the stats line at the bottom).
    static constexpr double kFitMargin = 40.0;

    explicit EmbeddingView(QWidget* parent = nullptr);
    ~EmbeddingView() override;

    /// The dataset whose items the layouts index. Clears the current layout.
    void setDataset(std::shared_ptr<const data::Dataset> dataset);
    /// Shows `layout` (items must index the dataset; items out of range are dropped).
    /// Items present before move smoothly to their new place.
    void setLayout(std::shared_ptr<const layout::Layout> layout);
    std::shared_ptr<const layout::Layout> currentLayout() const { return m_layout; }
    /// Colours points by the label set of this name (unknown name: the first label set).
    void setColorBy(const QString& labelSet);
    QString colorBy() const { return m_colorBy; }
    /// Training progress for the stats line: the step and what the job is doing ("epoch
    /// 2/3"); step < 0 = not training. Shown at the next repaint (no repaint of its own).
    void setTrainingInfo(qint64 step, const QString& phase = {});

    /// Fits all points into the view and turns auto-fit on.
    void fitAll();
    bool autoFit() const { return m_autoFit; }
    /// Pixels per map unit and the map point at the widget's centre.
    double zoom() const { return m_zoom; }
    QPointF center() const { return m_center; }
    QPointF mapToWidget(QPointF p) const;
    QPointF widgetToMap(QPointF w) const;
    /// Drawn positions right now (items().size() x 2, map coordinates): the animation's
    /// current state.
    std::vector<float> currentPositions() const;
    const std::vector<std::int64_t>& items() const { return m_items; }

    /// Dataset index of the point under `widgetPos` (nearest within a few pixels), or -1.
    std::int64_t itemAt(QPointF widgetPos) const;
    /// Dataset indices of the points inside the widget rectangle `r` (drawn positions),
    /// ascending.
    std::vector<std::int64_t> itemsIn(QRectF r) const;

    /// The selection this view shows and edits (shared with other views; not owned; may be
    /// null: then clicks only pan).
    void setSelectionModel(SelectionModel* selection);
    SelectionModel* selectionModel() const { return m_selection; }
    /// The rubber band being drawn (widget coordinates), empty when none.
    QRectF rubberBand() const;
    std::int64_t hoveredItem() const { return m_hovered; }
    /// The lines of an item's hover card: "item N · split", one "label set: class" line per
    /// label set, then for documents the first words of the item (about 160 characters),
    /// for other sets their size. Empty for an item not in the dataset.
    QStringList describeItem(std::int64_t item) const;

    void setAnimationDuration(int ms) { m_animationMs = ms; }
    int animationDuration() const { return m_animationMs; }
    bool animating() const;
    /// Point diameter in logical pixels (default: from the number of points).
    void setPointSize(float px);
    float pointSize() const;

    /// Renders the map with its overlay and returns it (grabFramebuffer(); a few frames are
    /// rendered so that the overlay's auto-sized windows have their final size).
    QImage grabMap();
    /// Where the overlay's windows were in the last frame (widget coordinates; empty when
    /// not shown). For tests and screenshots.
    QRectF legendRect() const { return m_legendRect; }
    QRectF tooltipRect() const { return m_tooltipRect; }
    /// Frames rendered so far; the last GL problem ("" when none).
    int frameCount() const { return m_frames; }
    QString glProblem() const { return m_glProblem; }

Q_SIGNALS:
    /// The point under the mouse changed (dataset index, -1 = none).
    void hoveredChanged(qint64 item);

protected:
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void paintGL() override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    void cleanupGL();
    bool buildProgram();
    void recomputeClasses();
    void applyFit(const std::vector<float>& positions);
    float animationT() const;
    void drawPoints();
    void drawOverlay();
    void drawLegend();
    void drawHoverTooltip();
    void drawStats();
    void updateThumbnail();
    void setHovered(std::int64_t item);
    void requestFrames(int n = 2);
    void pointsChanged();
    /// The grid over the layout's positions (m_to), rebuilt when they changed.
    const PointIndex& pointIndex() const;
    void drawRubberBand();

    std::shared_ptr<const data::Dataset> m_dataset;
    std::shared_ptr<const layout::Layout> m_layout;
    QString m_colorBy;

    // Points, in the layout's order: where each starts and ends its animation, its class.
    std::vector<std::int64_t> m_items;
    std::vector<float> m_from;
    std::vector<float> m_to;
    std::vector<float> m_classes;
    bool m_buffersDirty = true;
    QElapsedTimer m_animClock;
    int m_animationMs = 300;

    // View transform.
    QPointF m_center{0.0, 0.0};
    double m_zoom = 1.0;
    bool m_autoFit = true;
    float m_pointSize = 0.0f; ///< 0 = automatic

    // Picking: a grid over the target positions, rebuilt when they change.
    mutable PointIndex m_index;
    mutable bool m_indexDirty = true;

    // Selection: the model, and the vertices of its items in the layout (drawn on top).
    QPointer<SelectionModel> m_selection;
    bool m_selectionDirty = true;
    int m_selectedVertices = 0;

    // Interaction.
    bool m_dragging = false;
    bool m_boxSelecting = false;
    bool m_pressMoved = false;
    QPointF m_pressPos;
    Qt::KeyboardModifiers m_pressModifiers;
    QPointF m_lastMouse;
    QPointF m_mousePos{-1.0, -1.0};
    std::int64_t m_hovered = -1;
    bool m_hoverStale = false; ///< the points moved since the hover was computed
    int m_framesWanted = 0;

    // Stats.
    qint64 m_trainingStep = -1;
    QString m_trainingPhase;
    double m_lastFrameMs = 0.0;
    int m_frames = 0;

    // GL.
    std::unique_ptr<ImGuiQt> m_imgui;
    QOpenGLShaderProgram* m_program = nullptr;
    QOpenGLVertexArrayObject m_vao;
    QOpenGLBuffer m_vbo{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer m_selectedIbo{QOpenGLBuffer::IndexBuffer};
    bool m_glReady = false;
    QString m_glProblem;
    GLuint m_thumbTexture = 0;
    std::int64_t m_thumbItem = -1;

    QRectF m_legendRect;
    QRectF m_tooltipRect;
};

} // namespace setscope::gui
