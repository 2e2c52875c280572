// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QImage>
#include <QPointF>
#include <QPointer>
#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gui/session/JobSlot.h"
#include "gui/session/SelectionModel.h"
#include "gui/views/map/ItemPresenter.h"
#include "gui/views/map/MapRenderer.h"

namespace setscope::data {
class Dataset;
}
namespace setscope::layout {
struct Layout;
}

class QComboBox;
class QKeyEvent;
class QLabel;
class QLineEdit;
class QMouseEvent;
class QOpenGLWindow;
class QTimer;
class QWheelEvent;

namespace setscope::gui {

class ImGuiQt;
class MapWindow;
class SelectionModel;

/// The embedding map: the newest 2-D layout of a dataset's items as round points coloured
/// by a label set (OpenGL 3.3 core, shaders/points.*), with a Dear ImGui overlay: legend,
/// hovered item (labels, image thumbnail, a glyph of the set's elements, first words of a
/// document) and a stats line. Built from two reusable parts in this folder: MapRenderer
/// (camera, point buffers, drawing, picking through a grid index) and ItemPresenter (what
/// the hover card says and shows about an item).
///
/// Interaction: left-drag pans, the wheel zooms about the cursor, a double-click fits all
/// points (and turns auto-fit back on; auto-fit keeps following the map until the user
/// pans or zooms). With a SelectionModel: a click selects the point under the mouse (Ctrl:
/// toggles it; a click on empty space clears), Shift-drag draws a rubber band and selects
/// what it covers (Ctrl+Shift: adds), Alt-drag draws a free-form lasso and selects what it
/// encloses (Ctrl+Alt: adds; with lasso mode on, L, a plain drag draws the lasso instead of
/// panning). Selected points are drawn on top, larger, with a light rim. Picking goes through a grid index of the layout's positions (where an animation
/// ends), never a scan per mouse move. New layouts animate: each item moves from where it
/// was drawn to its new place over animationDuration() ms, on the GPU. The view repaints
/// only when something changed (a layout, the colouring, interaction, a running
/// animation), never in a busy loop.
///
/// Tool bar (a row above the map): colour by a label set or column, size by a column, and
/// the search field (Ctrl+F): it selects the items whose label or text contains the query,
/// Enter fits the view to them, Escape closes it.
///
/// The map itself is drawn into a native OpenGL window (MapWindow, a QOpenGLWindow in
/// this folder, hosted through QWidget::createWindowContainer below the tool bar): the
/// window system composes it, so a frame does not pay for Qt copying a QOpenGLWidget into
/// the widget window (docs/BENCHMARKS.md, issue 10). Mouse input arrives at that window
/// (surface()), keys at either.
///
/// Coordinates: "map" coordinates are the layout's; "widget" coordinates are the map
/// surface's logical pixels with y down, origin at its top-left corner (below the tool
/// bar): mapToWidget(p) = centre of the surface + (p - center()) * zoom(), with y flipped
/// (MapCamera); mapSize() is the surface's size. GUI thread only.
class EmbeddingView final : public QWidget {
    Q_OBJECT
public:
    /// Fit-all leaves this many logical pixels between the outermost points and the edge
    /// (room for the stats line at the bottom).
    static constexpr double kFitMargin = MapCamera::kFitMargin;

    explicit EmbeddingView(QWidget* parent = nullptr);
    ~EmbeddingView() override;

    /// The dataset whose items the layouts index. Clears the current layout.
    void setDataset(std::shared_ptr<const data::Dataset> dataset);
    std::shared_ptr<const data::Dataset> dataset() const { return m_dataset; }
    /// The same items with other labels (a label edit: Session::labelsChanged): keeps the
    /// layout, the camera and the columns, recolours and refreshes the colour-by list. A
    /// dataset of another size is opened with setDataset() instead.
    void updateLabels(std::shared_ptr<const data::Dataset> dataset);
    /// Shows `layout` (items must index the dataset; items out of range are dropped).
    /// Items present before move smoothly to their new place.
    void setLayout(std::shared_ptr<const layout::Layout> layout);
    std::shared_ptr<const layout::Layout> currentLayout() const { return m_layout; }
    /// Colours points by the label set of this name, or by the numeric column of this name
    /// (a continuous colour map, Palette::sequential, over the column's finite range, with
    /// the range in the legend). Unknown name: the first label set.
    void setColorBy(const QString& labelSetOrColumn);
    QString colorBy() const { return m_colorBy; }
    /// Scales each point's diameter by a numeric column: from 0.5x (the column's minimum) to
    /// 2x (its maximum); items without a value keep 1x. "" (or an unknown name): uniform.
    void setSizeBy(const QString& column);
    QString sizeBy() const { return m_sizeBy; }

    /// A numeric per-item column to colour or size by: values[i] belongs to dataset item i
    /// (values.size() must be the dataset's size, otherwise the call is ignored and returns
    /// false; NaN = no value: grey, default size). Replaces a column of the same name and
    /// redraws if it is in use. Columns belong to the dataset: setDataset() drops them.
    /// Built in, for every dataset: "set size" (the number of elements of each item); with
    /// label sets also kAgreementColumn, the share of an item's kAgreementK nearest
    /// neighbours on the map (PointIndex::kNearest) with its class, in the label set last
    /// chosen for colour (else the first); NaN for unlabelled items and items not on the
    /// map. It is computed when it is used (colour or size) and again for each new layout,
    /// on a thread of its own (a million points take seconds): until agreementComputed() the
    /// column holds NaN (grey).
    bool setItemColumn(const QString& name, std::vector<float> values);
    static constexpr const char* kAgreementColumn = "kNN agreement (map)";
    static constexpr std::size_t kAgreementK = 10;
    /// The kNN-agreement column is being computed for the current layout.
    bool agreementPending() const { return m_agreementJob.running(); }
    /// Column names, the built-in ones first, then the callers' in the order they came.
    QStringList columnNames() const;
    /// Values of a column (empty when there is no such column).
    const std::vector<float>& itemColumn(const QString& name) const;
    /// Dataset items whose label (a class name in any label set) or whose elements' text
    /// (a document's words) contains `query`, case-insensitively (ASCII case folding), ascending.
    /// Empty query: none. O(items x label sets + elements).
    std::vector<std::int64_t> search(const QString& query) const;
    /// Shows the search field (Ctrl+F does the same) with `query`, selects its matches in
    /// the selection model (if any) and shows their count; Enter in the field fits the view
    /// to the matches, Escape closes it.
    void showSearch(const QString& query = {});
    /// The matches of the search field's current text.
    const std::vector<std::int64_t>& searchMatches() const { return m_searchMatches; }
    /// Fits the view to these items' places in the layout (those shown; none: no change).
    void fitTo(const std::vector<std::int64_t>& items);

    /// Whether the colour comes from a column (then colorRange() is its finite range).
    bool colorByColumn() const;
    std::pair<float, float> colorRange() const { return m_colorRange; }
    /// Training progress for the stats line: the step and what the job is doing ("epoch
    /// 2/3"); step < 0 = not training. Shown at the next repaint (no repaint of its own).
    void setTrainingInfo(qint64 step, const QString& phase = {});

    /// Fits all points into the view and turns auto-fit on.
    void fitAll();
    bool autoFit() const { return m_autoFit; }
    /// Pixels per map unit and the map point at the widget's centre.
    double zoom() const { return m_canvas.camera().zoom(); }
    QPointF center() const { return m_canvas.camera().center(); }
    QPointF mapToWidget(QPointF p) const { return m_canvas.camera().mapToWidget(p); }
    QPointF widgetToMap(QPointF w) const { return m_canvas.camera().widgetToMap(w); }
    /// Drawn positions right now (items().size() x 2, map coordinates): the animation's
    /// current state.
    std::vector<float> currentPositions() const { return m_canvas.currentPositions(); }
    const std::vector<std::int64_t>& items() const { return m_canvas.items(); }
    /// Each point's colour (0xRRGGBB, in items() order), as drawn.
    const std::vector<std::uint32_t>& pointColors() const { return m_canvas.colors(); }

    /// Dataset index of the point under `widgetPos` (nearest within a few pixels), or -1.
    std::int64_t itemAt(QPointF widgetPos) const;
    /// Dataset indices of the points inside the widget rectangle `r`, ascending.
    std::vector<std::int64_t> itemsIn(QRectF r) const { return m_canvas.itemsInRect(r); }

    /// The selection this view shows and edits (shared with other views; not owned; may be
    /// null: then clicks only pan).
    void setSelectionModel(SelectionModel* selection);
    SelectionModel* selectionModel() const { return m_selection; }
    /// The rubber band being drawn (widget coordinates), empty when none.
    QRectF rubberBand() const;
    /// Dataset indices of the points inside the widget polygon `p` (even-odd rule: a lasso
    /// that crosses itself selects both lobes), ascending. Through the grid index: only the
    /// points in the polygon's bounding box are tested.
    std::vector<std::int64_t> itemsInPolygon(const QPolygonF& p) const { return m_canvas.itemsInPolygon(p); }
    /// The lasso being drawn (widget coordinates, the mouse's path), empty when none.
    QPolygonF lasso() const { return m_lassoSelecting ? m_lasso : QPolygonF(); }
    /// Lasso mode: a plain left-drag draws a lasso instead of panning (the L key toggles it;
    /// Alt-drag draws one in either mode).
    void setLassoMode(bool on);
    bool lassoMode() const { return m_lassoMode; }
    std::int64_t hoveredItem() const { return m_hovered; }
    /// The lines of an item's hover card (ItemPresenter::describe).
    QStringList describeItem(std::int64_t item) const { return m_presenter.describe(item); }
    const ItemPresenter& presenter() const { return m_presenter; }

    void setAnimationDuration(int ms) { m_canvas.setAnimationDuration(ms); }
    int animationDuration() const { return m_canvas.animationDuration(); }
    bool animating() const { return m_canvas.animating(); }
    /// Point diameter in logical pixels (default: from the number of points).
    void setPointSize(float px);
    float pointSize() const;

    /// Renders the map with its overlay into an offscreen framebuffer of the surface's size
    /// (device pixels) and returns it (opaque, QImage::Format_RGB32; a few frames are
    /// rendered so that the overlay's auto-sized windows have their final size). A null
    /// image when the surface has no working GL context (never shown, or no OpenGL).
    QImage grabMap();
    /// One frame of grabMap(): for tests that step through frames (a large map's layer is
    /// filled a chunk per frame).
    QImage grabFrame();
    /// The native window the map is drawn in (logical size = mapSize(); its coordinates are
    /// the "widget" coordinates above). For tests and benchmarks: mouse events go there, and
    /// surface()->update() asks for a frame.
    QOpenGLWindow* surface() const;
    /// The size of the map's surface in logical pixels (the view minus the tool bar row).
    QSize mapSize() const;
    /// The map as SVG text, as drawn now at the surface's size: the background, one circle
    /// per point inside the view (its colour and size; selected points on top with a light
    /// rim; each circle carries data-item = its dataset index) and the legend (classes with
    /// their colours and counts, or the column's colour bar and range). Qt's SVG module is
    /// not used: the text is written here. Roughly 80 bytes per visible point.
    QString toSvg() const;
    /// Writes toSvg() (".svg") or grabMap() (any other suffix, e.g. ".png") to `path`;
    /// false with nothing written when the file cannot be written.
    bool exportMap(const QString& path);
    /// Where the overlay's windows were in the last frame (widget coordinates; empty when
    /// not shown). For tests and screenshots.
    QRectF legendRect() const { return m_legendRect; }
    QRectF tooltipRect() const { return m_tooltipRect; }
    /// Frames rendered so far; the last GL problem ("" when none).
    int frameCount() const { return m_frames; }
    QString glProblem() const { return m_glProblem; }
    /// CPU time of the last frame's rendering in ms (the GPU work may finish later).
    double lastFrameMs() const { return m_lastFrameMs; }
    /// Points drawn per frame into the map's retained layer (MapRenderer::setChunkSize).
    void setFillChunk(std::size_t points) { m_canvas.setChunkSize(points); }
    /// How the last frame drew the points (MapRenderer::DrawPath), for tests and benchmarks.
    MapRenderer::DrawPath lastDrawPath() const { return m_canvas.lastDrawPath(); }
    /// After the last drag step or wheel notch, this long until a large map is redrawn
    /// at the new camera (until then its last picture is shown moved and scaled).
    static constexpr int kSettleMs = 200;

Q_SIGNALS:
    /// The point under the mouse changed (dataset index, -1 = none).
    void hoveredChanged(qint64 item);
    /// The kNN-agreement column now holds the values of the current layout.
    void agreementComputed();

protected:
    /// L (lasso mode) and Ctrl+F (search), also when the keys come to the widget rather
    /// than to the surface.
    void keyPressEvent(QKeyEvent* e) override;

private:
    friend class MapWindow;
    // Called by MapWindow (its GL hooks with its context current, and its input events).
    void initializeSurface();
    void surfaceResized();
    /// Renders one frame into `fbo` (the surface's or grabMap()'s) with the context current.
    void paintSurface(unsigned int fbo);
    void surfaceMousePress(QMouseEvent* e);
    void surfaceMouseMove(QMouseEvent* e);
    void surfaceMouseRelease(QMouseEvent* e);
    void surfaceMouseDoubleClick(QMouseEvent* e);
    void surfaceWheel(QWheelEvent* e);
    void surfaceLeft();
    void surfaceKeyPress(QKeyEvent* e);
    void cleanupGL();
    void recomputeColors();
    void recomputeSizes();
    void updateAgreement();
    void rebuildToolBar();
    void runSearch(const QString& query);
    void drawColumnLegend(const QString& column);
    void applyFit();
    void drawOverlay();
    void drawLegend();
    void drawHoverTooltip();
    void drawStats();
    void drawRubberBand();
    void drawLasso();
    void clickSelect(QPointF pos);
    void setHovered(std::int64_t item);
    void requestFrames(int n = 2);
    void syncSelection();
    void cameraMoved();

    std::shared_ptr<const data::Dataset> m_dataset;
    std::shared_ptr<const layout::Layout> m_layout;
    QString m_colorBy;
    QString m_sizeBy;
    std::vector<std::pair<QString, std::vector<float>>> m_columns;
    std::pair<float, float> m_colorRange{0.0f, 0.0f};
    QString m_agreementLabelSet; ///< the label set kAgreementColumn refers to ("" = the first)
    bool m_agreementStale = true;
    /// Marks the agreement column stale and drops a computation of the old layout.
    void invalidateAgreement();
    // The agreement job: retired jobs are reaped by a timer while any runs; m_retired is
    // declared before the slot so the slot (joining the current job) goes first.
    RetiredJobs m_retired;
    JobSlot m_agreementJob{m_retired};
    QTimer m_reapTimer;

    // The map's window (owned by m_container, a child of this widget).
    MapWindow* m_surface = nullptr;
    QWidget* m_container = nullptr;
    // The tool bar: a row of Qt widgets above the map's surface.
    QWidget* m_toolBar = nullptr;
    QComboBox* m_colorCombo = nullptr;
    QComboBox* m_sizeCombo = nullptr;
    QLineEdit* m_searchEdit = nullptr;
    QLabel* m_searchCount = nullptr;
    std::vector<std::int64_t> m_searchMatches;

    MapRenderer m_canvas;
    ItemPresenter m_presenter;
    bool m_autoFit = true;
    float m_pointSize = 0.0f; ///< 0 = automatic

    QPointer<SelectionModel> m_selection;

    // Interaction.
    bool m_dragging = false;
    bool m_boxSelecting = false;
    bool m_lassoSelecting = false;
    bool m_lassoMode = false;
    QPolygonF m_lasso;
    bool m_pressMoved = false;
    QPointF m_pressPos;
    Qt::KeyboardModifiers m_pressModifiers;
    QPointF m_lastMouse;
    QPointF m_mousePos{-1.0, -1.0};
    std::int64_t m_hovered = -1;
    bool m_hoverStale = false; ///< the points moved since the hover was computed
    int m_framesWanted = 0;
    /// The camera is moving (a drag or wheel within the last kSettleMs): a large map shows
    /// its last complete picture moved and scaled instead of being redrawn (MapRenderer).
    bool m_interacting = false;
    QTimer* m_settle = nullptr;

    // Stats.
    qint64 m_trainingStep = -1;
    QString m_trainingPhase;
    double m_lastFrameMs = 0.0;
    int m_frames = 0;

    // GL.
    std::unique_ptr<ImGuiQt> m_imgui;
    bool m_glReady = false;
    QString m_glProblem;

    QRectF m_legendRect;
    QRectF m_tooltipRect;
};

} // namespace setscope::gui
