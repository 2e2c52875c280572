// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/EmbeddingView.h"

#include "gui/session/SelectionModel.h"

#include "core/data/Dataset.h"
#include "core/layout/LayoutJob.h"
#include "gui/imgui/ImGuiQt.h"
#include "gui/views/Palette.h"
#include "gui/views/ShaderSource.h"

#include <imgui.h>

#include <QDebug>
#include <QLineF>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QSurfaceFormat>
#include <QWheelEvent>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace setscope::gui {

namespace {

constexpr int kFloatsPerVertex = 5; // from.xy, to.xy, class
constexpr double kHoverSlackPx = 4.0;
constexpr double kClickSlackPx = 4.0; // a press and release closer than this is a click
constexpr const char* kFontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

ImVec4 toImVec4(const QColor& c) { return ImVec4(float(c.redF()), float(c.greenF()), float(c.blueF()), 1.0f); }

QRectF windowRect()
{
    const ImVec2 p = ImGui::GetWindowPos();
    const ImVec2 s = ImGui::GetWindowSize();
    return QRectF(p.x, p.y, s.x, s.y);
}

} // namespace

EmbeddingView::EmbeddingView(QWidget* parent)
    : QOpenGLWidget(parent)
    , m_imgui(std::make_unique<ImGuiQt>())
{
    // The view needs GL 3.3 core whatever the application's default format is.
    QSurfaceFormat fmt = format();
    if (fmt.majorVersion() < 3 || (fmt.majorVersion() == 3 && fmt.minorVersion() < 3)) {
        fmt.setVersion(3, 3);
        fmt.setProfile(QSurfaceFormat::CoreProfile);
    }
    setFormat(fmt);
    setMouseTracking(true);
    setMinimumSize(200, 150);
    setFocusPolicy(Qt::StrongFocus);
}

EmbeddingView::~EmbeddingView()
{
    if (m_glReady && context()) {
        makeCurrent();
        cleanupGL();
        doneCurrent();
    }
}

// --- data ------------------------------------------------------------------------------

void EmbeddingView::setDataset(std::shared_ptr<const data::Dataset> dataset)
{
    m_dataset = std::move(dataset);
    m_layout.reset();
    m_items.clear();
    m_from.clear();
    m_to.clear();
    m_classes.clear();
    m_buffersDirty = true;
    pointsChanged();
    m_autoFit = true;
    m_thumbItem = -1;
    setHovered(-1);
    requestFrames();
}

void EmbeddingView::setLayout(std::shared_ptr<const layout::Layout> layout)
{
    if (!layout) {
        setDataset(m_dataset);
        return;
    }
    // Start every known item where it is drawn now; new items start at their new place.
    const std::vector<float> now = currentPositions();
    std::unordered_map<std::int64_t, std::size_t> previous;
    previous.reserve(m_items.size());
    for (std::size_t i = 0; i < m_items.size(); ++i)
        previous.emplace(m_items[i], i);

    const std::size_t limit = m_dataset ? m_dataset->size() : 0;
    std::vector<std::int64_t> items;
    std::vector<float> from, to;
    items.reserve(layout->items.size());
    from.reserve(2 * layout->items.size());
    to.reserve(2 * layout->items.size());
    for (std::size_t i = 0; i < layout->items.size(); ++i) {
        const std::int64_t id = layout->items[i];
        if (id < 0 || static_cast<std::size_t>(id) >= limit || 2 * i + 1 >= layout->xy.size())
            continue;
        const float x = layout->xy[2 * i], y = layout->xy[2 * i + 1];
        items.push_back(id);
        to.push_back(x);
        to.push_back(y);
        if (auto it = previous.find(id); it != previous.end()) {
            from.push_back(now[2 * it->second]);
            from.push_back(now[2 * it->second + 1]);
        } else {
            from.push_back(x);
            from.push_back(y);
        }
    }
    const bool first = m_items.empty();
    m_layout = std::move(layout);
    m_items = std::move(items);
    m_from = std::move(from);
    m_to = std::move(to);
    if (first)
        m_from = m_to; // nothing to animate from
    m_animClock.start();
    recomputeClasses();
    m_buffersDirty = true;
    pointsChanged();
    m_hoverStale = true;
    if (m_hovered >= 0 && std::find(m_items.begin(), m_items.end(), m_hovered) == m_items.end())
        setHovered(-1);
    requestFrames();
}

void EmbeddingView::setColorBy(const QString& labelSet)
{
    m_colorBy = labelSet;
    recomputeClasses();
    m_buffersDirty = true;
    pointsChanged();
    requestFrames();
}

void EmbeddingView::setTrainingInfo(qint64 step, const QString& phase)
{
    m_trainingStep = step;
    m_trainingPhase = phase;
}

void EmbeddingView::recomputeClasses()
{
    m_classes.assign(m_items.size(), -1.0f);
    if (!m_dataset || m_dataset->labelSets().empty())
        return;
    const data::LabelSet* ls = m_dataset->labelSet(m_colorBy.toStdString());
    if (!ls)
        ls = &m_dataset->labelSets().front();
    for (std::size_t i = 0; i < m_items.size(); ++i)
        m_classes[i] = static_cast<float>(ls->labels[static_cast<std::size_t>(m_items[i])]);
}

// --- view transform --------------------------------------------------------------------

float EmbeddingView::animationT() const
{
    if (m_animationMs <= 0 || !m_animClock.isValid())
        return 1.0f;
    const float t = std::clamp(static_cast<float>(m_animClock.elapsed()) / static_cast<float>(m_animationMs), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t); // ease in and out
}

bool EmbeddingView::animating() const { return !m_items.empty() && animationT() < 1.0f; }

std::vector<float> EmbeddingView::currentPositions() const
{
    const float t = animationT();
    std::vector<float> p(m_to.size());
    for (std::size_t i = 0; i < p.size(); ++i)
        p[i] = m_from[i] + (m_to[i] - m_from[i]) * t;
    return p;
}

QPointF EmbeddingView::mapToWidget(QPointF p) const
{
    return {width() / 2.0 + (p.x() - m_center.x()) * m_zoom, height() / 2.0 - (p.y() - m_center.y()) * m_zoom};
}

QPointF EmbeddingView::widgetToMap(QPointF w) const
{
    return {m_center.x() + (w.x() - width() / 2.0) / m_zoom, m_center.y() - (w.y() - height() / 2.0) / m_zoom};
}

void EmbeddingView::applyFit(const std::vector<float>& positions)
{
    if (positions.size() < 2)
        return;
    double minX = DBL_MAX, minY = DBL_MAX, maxX = -DBL_MAX, maxY = -DBL_MAX;
    for (std::size_t i = 0; i + 1 < positions.size(); i += 2) {
        minX = std::min<double>(minX, positions[i]);
        maxX = std::max<double>(maxX, positions[i]);
        minY = std::min<double>(minY, positions[i + 1]);
        maxY = std::max<double>(maxY, positions[i + 1]);
    }
    const double bw = std::max(maxX - minX, 1e-9), bh = std::max(maxY - minY, 1e-9);
    const double w = std::max(1.0, width() - 2.0 * kFitMargin), h = std::max(1.0, height() - 2.0 * kFitMargin);
    m_zoom = std::min(w / bw, h / bh);
    m_center = QPointF((minX + maxX) / 2.0, (minY + maxY) / 2.0);
}

void EmbeddingView::fitAll()
{
    m_autoFit = true;
    applyFit(currentPositions());
    requestFrames();
}

void EmbeddingView::setPointSize(float px)
{
    m_pointSize = px;
    update();
}

float EmbeddingView::pointSize() const
{
    if (m_pointSize > 0.0f)
        return m_pointSize;
    const std::size_t n = m_items.size();
    return n <= 500 ? 9.0f : n <= 3000 ? 6.0f : n <= 20000 ? 4.0f : 3.0f;
}

void EmbeddingView::pointsChanged()
{
    m_indexDirty = true;
    m_selectionDirty = true;
}

void EmbeddingView::setSelectionModel(SelectionModel* selection)
{
    if (m_selection)
        disconnect(m_selection, nullptr, this, nullptr);
    m_selection = selection;
    if (m_selection)
        connect(m_selection, &SelectionModel::changed, this, [this] {
            m_selectionDirty = true;
            requestFrames();
        });
    m_selectionDirty = true;
    requestFrames();
}

const PointIndex& EmbeddingView::pointIndex() const
{
    if (m_indexDirty) {
        m_index.build(m_to.data(), m_items.size());
        m_indexDirty = false;
    }
    return m_index;
}

QRectF EmbeddingView::rubberBand() const
{
    return m_boxSelecting ? QRectF(m_pressPos, m_mousePos).normalized() : QRectF();
}

std::vector<std::int64_t> EmbeddingView::itemsIn(QRectF r) const
{
    const QPointF a = widgetToMap(r.topLeft()), b = widgetToMap(r.bottomRight());
    std::vector<std::int64_t> out;
    if (!animating()) {
        for (std::int64_t v : pointIndex().inRect(a.x(), a.y(), b.x(), b.y()))
            out.push_back(m_items[static_cast<std::size_t>(v)]);
    } else {
        const std::vector<float> p = currentPositions();
        const double x0 = std::min(a.x(), b.x()), x1 = std::max(a.x(), b.x());
        const double y0 = std::min(a.y(), b.y()), y1 = std::max(a.y(), b.y());
        for (std::size_t i = 0; i < m_items.size(); ++i)
            if (p[2 * i] >= x0 && p[2 * i] <= x1 && p[2 * i + 1] >= y0 && p[2 * i + 1] <= y1)
                out.push_back(m_items[i]);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::int64_t EmbeddingView::itemAt(QPointF widgetPos) const
{
    const double radius = pointSize() / 2.0 + kHoverSlackPx;
    if (!animating()) {
        // The drawn positions are the layout's: the grid over them answers in a few cells.
        // Widget distances are map distances times the zoom (same in x and y).
        const QPointF m = widgetToMap(widgetPos);
        const std::int64_t v = pointIndex().nearest(m.x(), m.y(), radius / m_zoom);
        return v < 0 ? -1 : m_items[static_cast<std::size_t>(v)];
    }
    const std::vector<float> p = currentPositions();
    double best = radius * radius;
    std::int64_t found = -1;
    for (std::size_t i = 0; i < m_items.size(); ++i) {
        const QPointF w = mapToWidget(QPointF(p[2 * i], p[2 * i + 1]));
        const double dx = w.x() - widgetPos.x(), dy = w.y() - widgetPos.y();
        const double d2 = dx * dx + dy * dy;
        if (d2 <= best) {
            best = d2;
            found = m_items[i];
        }
    }
    return found;
}

void EmbeddingView::setHovered(std::int64_t item)
{
    if (item == m_hovered)
        return;
    m_hovered = item;
    requestFrames();
    Q_EMIT hoveredChanged(item);
}

void EmbeddingView::requestFrames(int n)
{
    m_framesWanted = std::max(m_framesWanted, n);
    update();
}

// --- events ----------------------------------------------------------------------------

void EmbeddingView::mousePressEvent(QMouseEvent* e)
{
    const int button = e->button() == Qt::LeftButton ? 0 : e->button() == Qt::RightButton ? 1 : 2;
    m_imgui->mouseMove(e->position());
    m_imgui->mousePress(button);
    if (e->button() == Qt::LeftButton && !m_imgui->wantCaptureMouse()) {
        m_pressPos = e->position();
        m_mousePos = e->position();
        m_pressMoved = false;
        m_pressModifiers = e->modifiers();
        if (m_selection && (e->modifiers() & Qt::ShiftModifier)) {
            m_boxSelecting = true;
            setCursor(Qt::CrossCursor);
        } else {
            m_dragging = true;
            m_lastMouse = e->position();
            setCursor(Qt::ClosedHandCursor);
        }
    }
    requestFrames();
}

void EmbeddingView::mouseMoveEvent(QMouseEvent* e)
{
    m_mousePos = e->position();
    m_imgui->mouseMove(e->position());
    if ((m_dragging || m_boxSelecting) && QLineF(m_pressPos, e->position()).length() > kClickSlackPx)
        m_pressMoved = true;
    if (m_boxSelecting) {
        requestFrames(1);
        return;
    }
    if (m_dragging) {
        const QPointF d = e->position() - m_lastMouse;
        m_lastMouse = e->position();
        m_center += QPointF(-d.x() / m_zoom, d.y() / m_zoom);
        m_autoFit = false;
        requestFrames(1);
        return;
    }
    setHovered(m_imgui->wantCaptureMouse() ? -1 : itemAt(e->position()));
    if (m_imgui->wantCaptureMouse())
        requestFrames(1); // ImGui highlights what is under the mouse
}

void EmbeddingView::mouseReleaseEvent(QMouseEvent* e)
{
    const int button = e->button() == Qt::LeftButton ? 0 : e->button() == Qt::RightButton ? 1 : 2;
    m_imgui->mouseRelease(button);
    if (e->button() == Qt::LeftButton && m_boxSelecting) {
        m_boxSelecting = false;
        unsetCursor();
        const bool add = m_pressModifiers & Qt::ControlModifier;
        if (m_selection)
            m_selection->select(itemsIn(QRectF(m_pressPos, e->position()).normalized()),
                                add ? SelectionModel::Mode::Add : SelectionModel::Mode::Replace);
    } else if (e->button() == Qt::LeftButton && m_dragging) {
        m_dragging = false;
        unsetCursor();
        if (!m_pressMoved && m_selection) { // a click, not a pan
            const std::int64_t item = itemAt(e->position());
            if (m_pressModifiers & Qt::ControlModifier) {
                if (item >= 0)
                    m_selection->select({item}, SelectionModel::Mode::Toggle);
            } else {
                m_selection->select(item >= 0 ? std::vector<std::int64_t>{item} : std::vector<std::int64_t>{});
            }
        }
    }
    requestFrames();
}

void EmbeddingView::mouseDoubleClickEvent(QMouseEvent* e)
{
    if (e->button() == Qt::LeftButton && !m_imgui->wantCaptureMouse())
        fitAll();
}

void EmbeddingView::wheelEvent(QWheelEvent* e)
{
    const QPoint delta = e->angleDelta();
    if (m_imgui->wantCaptureMouse()) {
        m_imgui->wheel(delta.y() / 120.0f, delta.x() / 120.0f);
        requestFrames();
        return;
    }
    if (delta.y() == 0)
        return;
    // Keep the map point under the cursor where it is: about 1.2x per wheel notch.
    const QPointF pos = e->position();
    const QPointF anchor = widgetToMap(pos);
    m_zoom = std::clamp(m_zoom * std::pow(1.0015, static_cast<double>(delta.y())), 1e-9, 1e9);
    m_center = QPointF(anchor.x() - (pos.x() - width() / 2.0) / m_zoom, anchor.y() + (pos.y() - height() / 2.0) / m_zoom);
    m_autoFit = false;
    setHovered(itemAt(pos));
    requestFrames();
}

void EmbeddingView::leaveEvent(QEvent* e)
{
    m_imgui->mouseLeave();
    m_mousePos = QPointF(-1.0, -1.0);
    setHovered(-1);
    QOpenGLWidget::leaveEvent(e);
}

// --- GL --------------------------------------------------------------------------------

void EmbeddingView::initializeGL()
{
    if (!initializeOpenGLFunctions()) {
        m_glProblem = tr("OpenGL 3.3 core is not available (got %1.%2)")
                          .arg(context()->format().majorVersion())
                          .arg(context()->format().minorVersion());
        qWarning().noquote() << "setscope:" << m_glProblem;
        return;
    }
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
        makeCurrent();
        cleanupGL();
        doneCurrent();
    });
    if (!buildProgram())
        return;
    m_vao.create();
    m_vbo.create();
    m_vbo.setUsagePattern(QOpenGLBuffer::DynamicDraw);
    m_selectedIbo.create();
    m_selectedIbo.setUsagePattern(QOpenGLBuffer::DynamicDraw);
    {
        QOpenGLVertexArrayObject::Binder bind(&m_vao);
        m_vbo.bind();
        const auto stride = static_cast<GLsizei>(kFloatsPerVertex * sizeof(float));
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, nullptr);
        glEnableVertexAttribArray(1);
        glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(2 * sizeof(float)));
        glEnableVertexAttribArray(2);
        glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(4 * sizeof(float)));
        m_vbo.release();
    }
    glGenTextures(1, &m_thumbTexture);
    glBindTexture(GL_TEXTURE_2D, m_thumbTexture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, 0);
    m_thumbItem = -1;
    m_buffersDirty = true;
    pointsChanged();
    if (!m_imgui->initializeGL(QString::fromLatin1(kFontFile), 14.0f, devicePixelRatioF()))
        m_glProblem = tr("The Dear ImGui OpenGL 3 backend failed to initialise");
    m_glReady = true;
}

bool EmbeddingView::buildProgram()
{
    delete m_program;
    m_program = new QOpenGLShaderProgram;
    QString vertOrigin, fragOrigin;
    const QByteArray vert = ShaderSource::load(QStringLiteral("points.vert"), &vertOrigin);
    const QByteArray frag = ShaderSource::load(QStringLiteral("points.frag"), &fragOrigin);
    if (vert.isEmpty() || frag.isEmpty()) {
        m_glProblem = tr("Shader sources points.vert / points.frag not found");
    } else if (!m_program->addShaderFromSourceCode(QOpenGLShader::Vertex, vert)) {
        m_glProblem = tr("%1: %2").arg(vertOrigin, m_program->log());
    } else if (!m_program->addShaderFromSourceCode(QOpenGLShader::Fragment, frag)) {
        m_glProblem = tr("%1: %2").arg(fragOrigin, m_program->log());
    } else if (!m_program->link()) {
        m_glProblem = tr("Linking the point shaders failed: %1").arg(m_program->log());
    } else {
        return true;
    }
    qWarning().noquote() << "setscope:" << m_glProblem;
    delete m_program;
    m_program = nullptr;
    return false;
}

void EmbeddingView::cleanupGL()
{
    if (!m_glReady)
        return;
    m_imgui->shutdownGL();
    if (m_thumbTexture)
        glDeleteTextures(1, &m_thumbTexture);
    m_thumbTexture = 0;
    m_vbo.destroy();
    m_selectedIbo.destroy();
    m_vao.destroy();
    delete m_program;
    m_program = nullptr;
    m_glReady = false;
}

void EmbeddingView::resizeGL(int, int)
{
    if (m_autoFit)
        applyFit(currentPositions());
    m_framesWanted = std::max(m_framesWanted, 2);
}

void EmbeddingView::paintGL()
{
    QElapsedTimer frameClock;
    frameClock.start();
    const QColor bg = Palette::mapBackground();
    glClearColor(float(bg.redF()), float(bg.greenF()), float(bg.blueF()), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (!m_glReady)
        return;

    if (m_autoFit)
        applyFit(currentPositions());
    // Points move under a resting mouse (new layouts, animation, auto-fit): keep the hover
    // on whatever is under it now.
    if (m_hoverStale || animating()) {
        m_hoverStale = false;
        if (m_mousePos.x() >= 0.0 && !m_dragging && !m_imgui->wantCaptureMouse())
            setHovered(itemAt(m_mousePos));
    }
    drawPoints();
    drawOverlay();
    ++m_frames;
    m_lastFrameMs = static_cast<double>(frameClock.nsecsElapsed()) * 1e-6;

    // More frames only while something moves: the animation, or overlay windows that
    // ImGui sizes on their first frame and shows on the next.
    if (m_framesWanted > 0)
        --m_framesWanted;
    if (animating() || m_framesWanted > 0)
        update();
}

void EmbeddingView::drawPoints()
{
    if (!m_program || m_items.empty())
        return;
    if (m_buffersDirty) {
        std::vector<float> v(m_items.size() * kFloatsPerVertex);
        for (std::size_t i = 0; i < m_items.size(); ++i) {
            float* o = v.data() + i * kFloatsPerVertex;
            o[0] = m_from[2 * i];
            o[1] = m_from[2 * i + 1];
            o[2] = m_to[2 * i];
            o[3] = m_to[2 * i + 1];
            o[4] = m_classes.size() == m_items.size() ? m_classes[i] : -1.0f;
        }
        m_vbo.bind();
        m_vbo.allocate(v.data(), static_cast<int>(v.size() * sizeof(float)));
        m_vbo.release();
        m_buffersDirty = false;
    }

    const float dpr = static_cast<float>(devicePixelRatioF());
    glViewport(0, 0, static_cast<GLsizei>(width() * dpr), static_cast<GLsizei>(height() * dpr));
    glEnable(GL_PROGRAM_POINT_SIZE);
    glEnable(GL_BLEND);
    // Alpha stays 1 where a point covers the opaque background, so the widget composes right.
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_DEPTH_TEST);

    m_program->bind();
    m_program->setUniformValue("u_center", QVector2D(float(m_center.x()), float(m_center.y())));
    m_program->setUniformValue("u_scale", QVector2D(float(2.0 * m_zoom / width()), float(2.0 * m_zoom / height())));
    m_program->setUniformValue("u_t", animationT());
    m_program->setUniformValue("u_pointSize", pointSize() * dpr);
    m_program->setUniformValueArray("u_palette", Palette::rgb().data(), Palette::kSize, 3);
    m_program->setUniformValue("u_paletteSize", Palette::kSize);
    const QColor gray = Palette::unlabelled();
    m_program->setUniformValue("u_unlabelled", QVector3D(float(gray.redF()), float(gray.greenF()), float(gray.blueF())));

    if (m_selectionDirty) {
        std::vector<GLuint> vertices;
        if (m_selection && !m_selection->empty())
            for (std::size_t i = 0; i < m_items.size(); ++i)
                if (m_selection->contains(m_items[i]))
                    vertices.push_back(static_cast<GLuint>(i));
        m_selectedVertices = static_cast<int>(vertices.size());
        m_selectedIbo.bind();
        m_selectedIbo.allocate(vertices.data(), static_cast<int>(vertices.size() * sizeof(GLuint)));
        m_selectedIbo.release();
        m_selectionDirty = false;
    }

    int hoveredIndex = -1;
    if (m_hovered >= 0)
        if (auto it = std::find(m_items.begin(), m_items.end(), m_hovered); it != m_items.end())
            hoveredIndex = static_cast<int>(it - m_items.begin());
    {
        QOpenGLVertexArrayObject::Binder bind(&m_vao);
        m_program->setUniformValue("u_highlight", -1);
        m_program->setUniformValue("u_selected", 0);
        glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(m_items.size()));
        if (m_selectedVertices > 0) { // on top, larger, light rim
            m_program->setUniformValue("u_selected", 1);
            m_selectedIbo.bind();
            glDrawElements(GL_POINTS, m_selectedVertices, GL_UNSIGNED_INT, nullptr);
            m_selectedIbo.release();
            m_program->setUniformValue("u_selected", 0);
        }
        if (hoveredIndex >= 0) { // on top of its neighbours, larger
            m_program->setUniformValue("u_highlight", hoveredIndex);
            glDrawArrays(GL_POINTS, hoveredIndex, 1);
        }
    }
    m_program->release();
    glDisable(GL_BLEND);
    glDisable(GL_PROGRAM_POINT_SIZE);
}

// --- overlay ---------------------------------------------------------------------------

void EmbeddingView::drawOverlay()
{
    m_imgui->newFrame(size(), devicePixelRatioF());
    m_legendRect = QRectF();
    m_tooltipRect = QRectF();
    drawLegend();
    drawHoverTooltip();
    drawStats();
    drawRubberBand();
    m_imgui->render();
}

void EmbeddingView::drawRubberBand()
{
    const QRectF r = rubberBand();
    if (r.isNull())
        return;
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    const ImVec2 a(float(r.left()), float(r.top())), b(float(r.right()), float(r.bottom()));
    dl->AddRectFilled(a, b, IM_COL32(40, 90, 200, 40));
    dl->AddRect(a, b, IM_COL32(40, 90, 200, 220), 0.0f, 0, 1.5f);
}

void EmbeddingView::drawLegend()
{
    const float w = static_cast<float>(width());
    ImGui::SetNextWindowPos(ImVec2(w - 10.0f, 10.0f), ImGuiCond_Always, ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(120.0f, 0.0f), ImVec2(FLT_MAX, std::max(80.0f, height() * 0.7f)));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                   ImGuiWindowFlags_NoNav;
    if (!m_dataset) {
        if (ImGui::Begin("Legend###legend", nullptr, flags)) {
            ImGui::TextDisabled("No dataset open");
            m_legendRect = windowRect();
        }
        ImGui::End();
        return;
    }
    const data::LabelSet* ls = m_dataset->labelSet(m_colorBy.toStdString());
    if (!ls && !m_dataset->labelSets().empty())
        ls = &m_dataset->labelSets().front();
    const std::string title = (ls ? ls->name : std::string("no labels")) + "###legend";
    if (ImGui::Begin(title.c_str(), nullptr, flags)) {
        m_legendRect = windowRect();
        const ImGuiColorEditFlags swatch = ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoDragDrop |
                                           ImGuiColorEditFlags_NoBorder;
        const float box = ImGui::GetTextLineHeight();
        if (ls) {
            const std::vector<std::size_t> counts = ls->counts();
            if (ImGui::BeginTable("classes", 2, ImGuiTableFlags_SizingFixedFit)) {
                for (int c = 0; c < ls->numClasses(); ++c) {
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    ImGui::PushID(c);
                    ImGui::ColorButton("##c", toImVec4(Palette::color(c)), swatch, ImVec2(box, box));
                    ImGui::SameLine();
                    ImGui::TextUnformatted(ls->classNames[static_cast<std::size_t>(c)].c_str());
                    ImGui::PopID();
                    ImGui::TableNextColumn();
                    ImGui::TextDisabled("%zu", counts[static_cast<std::size_t>(c)]);
                }
                if (const std::size_t u = ls->unlabelledCount(); u > 0) {
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    ImGui::ColorButton("##u", toImVec4(Palette::unlabelled()), swatch, ImVec2(box, box));
                    ImGui::SameLine();
                    ImGui::TextUnformatted("unlabelled");
                    ImGui::TableNextColumn();
                    ImGui::TextDisabled("%zu", u);
                }
                ImGui::EndTable();
            }
        } else {
            ImGui::TextDisabled("This dataset has no label sets");
        }
    }
    ImGui::End();
}

void EmbeddingView::updateThumbnail()
{
    if (!m_dataset || !m_dataset->hasImages() || m_hovered < 0 || m_hovered == m_thumbItem || !m_thumbTexture)
        return;
    const data::ImageFormat& f = m_dataset->imageFormat();
    const std::uint8_t* px = m_dataset->image(static_cast<std::size_t>(m_hovered));
    std::vector<std::uint8_t> rgba(static_cast<std::size_t>(f.width) * f.height * 4);
    for (int i = 0; i < f.width * f.height; ++i) {
        const std::uint8_t* s = px + static_cast<std::size_t>(i) * f.channels;
        std::uint8_t* d = rgba.data() + static_cast<std::size_t>(i) * 4;
        d[0] = s[0];
        d[1] = f.channels >= 3 ? s[1] : s[0];
        d[2] = f.channels >= 3 ? s[2] : s[0];
        d[3] = 255;
    }
    glBindTexture(GL_TEXTURE_2D, m_thumbTexture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, f.width, f.height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    glBindTexture(GL_TEXTURE_2D, 0);
    m_thumbItem = m_hovered;
}

QStringList EmbeddingView::describeItem(std::int64_t item) const
{
    QStringList lines;
    if (item < 0 || !m_dataset || static_cast<std::size_t>(item) >= m_dataset->size())
        return lines;
    const auto i = static_cast<std::size_t>(item);
    lines << QStringLiteral("item %1  ·  %2").arg(item).arg(QString::fromLatin1(data::splitName(m_dataset->split(i))));
    for (const data::LabelSet& ls : m_dataset->labelSets()) {
        const std::int32_t l = ls.labels[i];
        lines << QStringLiteral("%1: %2").arg(QString::fromStdString(ls.name),
                                              l >= 0 ? QString::fromStdString(ls.classNames[static_cast<std::size_t>(l)])
                                                     : QStringLiteral("unlabelled"));
    }
    if (m_dataset->hasElementText()) {
        constexpr int kMaxChars = 160;
        // Heaviest elements first (for documents: the most frequent words), ties in order.
        QString words;
        const std::int64_t b = m_dataset->offsets()[i], e = m_dataset->offsets()[i + 1];
        std::vector<std::int64_t> order(static_cast<std::size_t>(e - b));
        for (std::size_t j = 0; j < order.size(); ++j)
            order[j] = b + static_cast<std::int64_t>(j);
        const auto& w = m_dataset->weights();
        std::stable_sort(order.begin(), order.end(), [&w](std::int64_t x, std::int64_t y) {
            return w[static_cast<std::size_t>(x)] > w[static_cast<std::size_t>(y)];
        });
        std::size_t k = 0;
        for (; k < order.size() && words.size() < kMaxChars; ++k) {
            const std::string& t = m_dataset->elementText(static_cast<std::size_t>(order[k]));
            if (t.empty())
                continue;
            if (!words.isEmpty())
                words += QLatin1Char(' ');
            words += QString::fromStdString(t);
        }
        if (k < order.size())
            words += QStringLiteral(" ...");
        lines << words;
    } else if (m_dataset->setSize(i) > 1) {
        lines << QStringLiteral("a set of %1 elements").arg(m_dataset->setSize(i));
    }
    return lines;
}

void EmbeddingView::drawHoverTooltip()
{
    const QStringList lines = describeItem(m_hovered);
    if (lines.isEmpty())
        return;
    const auto i = static_cast<std::size_t>(m_hovered);
    updateThumbnail();
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(lines.front().toStdString().c_str());
    ImGui::Separator();
    const float box = ImGui::GetTextLineHeight();
    const std::vector<data::LabelSet>& sets = m_dataset->labelSets();
    for (std::size_t s = 0; s < sets.size(); ++s) {
        const std::int32_t l = sets[s].labels[i];
        const std::string text = lines[static_cast<int>(s) + 1].toStdString();
        if (l >= 0) {
            ImGui::ColorButton("##l", toImVec4(Palette::color(l)), ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoBorder,
                               ImVec2(box, box));
            ImGui::SameLine();
            ImGui::TextUnformatted(text.c_str());
        } else {
            ImGui::TextDisabled("%s", text.c_str());
        }
    }
    if (m_dataset->hasImages() && m_thumbItem == m_hovered) {
        const data::ImageFormat& f = m_dataset->imageFormat();
        ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(m_thumbTexture)),
                     ImVec2(float(f.width * 3), float(f.height * 3)));
    }
    for (int k = static_cast<int>(sets.size()) + 1; k < lines.size(); ++k) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 22.0f);
        ImGui::TextUnformatted(lines[k].toStdString().c_str());
        ImGui::PopTextWrapPos();
    }
    m_tooltipRect = windowRect();
    ImGui::EndTooltip();
}

void EmbeddingView::drawStats()
{
    std::string line = QString::asprintf("%.1f ms  ·  %zu points", m_lastFrameMs, m_items.size()).toStdString();
    if (m_layout)
        line += m_layout->iteration > 0 ? QString::asprintf("  ·  t-SNE it %d", m_layout->iteration).toStdString()
                                        : std::string("  ·  PCA");
    if (m_trainingStep >= 0)
        line += QString::asprintf("  ·  step %lld", static_cast<long long>(m_trainingStep)).toStdString() +
                (m_trainingPhase.isEmpty() ? std::string() : "  ·  " + m_trainingPhase.toStdString());
    else if (m_layout)
        line += "  ·  raw vectors";
    std::string second;
    if (!m_glProblem.isEmpty())
        second = m_glProblem.toStdString();
    else if (m_dataset && m_items.empty())
        second = "computing the map...";

    // Sized from this frame's text: an auto-resizing window would lag one frame behind the
    // changing numbers and clip them.
    const ImGuiStyle& style = ImGui::GetStyle();
    ImVec2 size = ImGui::CalcTextSize(line.c_str());
    if (!second.empty()) {
        const ImVec2 s2 = ImGui::CalcTextSize(second.c_str());
        size.x = std::max(size.x, s2.x);
        size.y += style.ItemSpacing.y + s2.y;
    }
    size.x += 2.0f * style.WindowPadding.x + 2.0f;
    size.y += 2.0f * style.WindowPadding.y;
    ImGui::SetNextWindowPos(ImVec2(10.0f, static_cast<float>(height()) - 10.0f), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowSize(size, ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.6f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                   ImGuiWindowFlags_NoInputs;
    if (ImGui::Begin("##stats", nullptr, flags)) {
        ImGui::TextUnformatted(line.c_str());
        if (!m_glProblem.isEmpty())
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", second.c_str());
        else if (!second.empty())
            ImGui::TextDisabled("%s", second.c_str());
    }
    ImGui::End();
}

QImage EmbeddingView::grabMap()
{
    QImage img;
    for (int i = 0; i < 3; ++i)
        img = grabFramebuffer();
    return img;
}

} // namespace setscope::gui
