// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/map/MapRenderer.h"

#include "gui/views/Palette.h"
#include "gui/views/ShaderSource.h"

#include <QOpenGLFramebufferObject>
#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLShaderProgram>
#include <QVector2D>

#include <algorithm>
#include <cmath>
#include <limits>

namespace setscope::gui {

namespace {

/// Bounding box of n points (xy: n x 2) as plain min/max (left = min x, top = min y).
QRectF boundsOfPoints(const std::vector<float>& xy)
{
    if (xy.size() < 2)
        return {};
    float x0 = std::numeric_limits<float>::infinity(), y0 = x0, x1 = -x0, y1 = -x0;
    for (std::size_t i = 0; i + 1 < xy.size(); i += 2) {
        x0 = std::min(x0, xy[i]);
        x1 = std::max(x1, xy[i]);
        y0 = std::min(y0, xy[i + 1]);
        y1 = std::max(y1, xy[i + 1]);
    }
    return QRectF(QPointF(x0, y0), QPointF(x1, y1));
}

QRectF lerp(const QRectF& a, const QRectF& b, double t)
{
    auto mix = [t](double u, double v) { return u + (v - u) * t; };
    return QRectF(QPointF(mix(a.left(), b.left()), mix(a.top(), b.top())),
                  QPointF(mix(a.right(), b.right()), mix(a.bottom(), b.bottom())));
}

std::uint32_t unlabelledRgb() { return Palette::unlabelled().rgb() & 0xffffffu; }

} // namespace

MapRenderer::MapRenderer() = default;
MapRenderer::~MapRenderer() = default;

// --- points ----------------------------------------------------------------------------

void MapRenderer::clear() { setPoints({}, {}); }

void MapRenderer::setPoints(std::vector<std::int64_t> items, std::vector<float> xy)
{
    xy.resize(2 * items.size());
    // Known items start where they are drawn now.
    const float t = animationT();
    std::vector<float> from(xy);
    std::int64_t maxItem = -1;
    for (std::size_t i = 0; i < items.size(); ++i) {
        maxItem = std::max(maxItem, items[i]);
        const std::int64_t v = vertexOf(items[i]);
        if (v < 0)
            continue;
        const auto k = static_cast<std::size_t>(v);
        from[2 * i] = m_from[2 * k] + (m_to[2 * k] - m_from[2 * k]) * t;
        from[2 * i + 1] = m_from[2 * k + 1] + (m_to[2 * k + 1] - m_from[2 * k + 1]) * t;
    }
    m_vertexOf.assign(static_cast<std::size_t>(maxItem + 1), -1);
    for (std::size_t i = 0; i < items.size(); ++i)
        m_vertexOf[static_cast<std::size_t>(items[i])] = static_cast<std::int32_t>(i);
    m_items = std::move(items);
    m_from = std::move(from);
    m_to = std::move(xy);
    m_fromBounds = boundsOfPoints(m_from);
    m_toBounds = boundsOfPoints(m_to);
    m_animClock.start();
    m_colors.assign(m_items.size(), unlabelledRgb());
    m_sizes.clear();
    m_selectedVertices.clear();
    m_indexDirty = true;
    m_positionsDirty = m_styleDirty = m_selectionDirty = m_lodDirty = true;
    ++m_content;
}

std::int64_t MapRenderer::vertexOf(std::int64_t item) const
{
    if (item < 0 || static_cast<std::size_t>(item) >= m_vertexOf.size())
        return -1;
    return m_vertexOf[static_cast<std::size_t>(item)];
}

void MapRenderer::setColors(std::vector<std::uint32_t> rgb)
{
    if (rgb.size() != m_items.size())
        return;
    m_colors = std::move(rgb);
    m_styleDirty = true;
    ++m_content;
}

void MapRenderer::setSizes(std::vector<float> factors)
{
    if (!factors.empty() && factors.size() != m_items.size())
        return;
    m_sizes = std::move(factors);
    m_styleDirty = true;
    ++m_content;
}

// --- animation -------------------------------------------------------------------------

float MapRenderer::animationT() const
{
    if (m_animationMs <= 0 || !m_animClock.isValid())
        return 1.0f;
    const float t = std::clamp(static_cast<float>(m_animClock.elapsed()) / static_cast<float>(m_animationMs), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t); // ease in and out
}

std::vector<float> MapRenderer::currentPositions() const
{
    const float t = animationT();
    std::vector<float> p(m_to.size());
    for (std::size_t i = 0; i < p.size(); ++i)
        p[i] = m_from[i] + (m_to[i] - m_from[i]) * t;
    return p;
}

QRectF MapRenderer::currentBounds() const
{
    const float t = animationT();
    return t >= 1.0f ? m_toBounds : lerp(m_fromBounds, m_toBounds, t);
}

QRectF MapRenderer::boundsOf(const std::vector<std::int64_t>& items) const
{
    std::vector<float> xy;
    xy.reserve(2 * items.size());
    for (std::int64_t item : items)
        if (const std::int64_t v = vertexOf(item); v >= 0) {
            xy.push_back(m_to[2 * static_cast<std::size_t>(v)]);
            xy.push_back(m_to[2 * static_cast<std::size_t>(v) + 1]);
        }
    return boundsOfPoints(xy);
}

// --- picking ---------------------------------------------------------------------------

const PointIndex& MapRenderer::index() const
{
    if (m_indexDirty) {
        m_index.build(m_to.data(), m_items.size());
        m_indexDirty = false;
    }
    return m_index;
}

std::int64_t MapRenderer::itemAt(QPointF widgetPos, double radiusPx) const
{
    // Widget distances are map distances times the zoom (the same in x and y).
    const QPointF m = m_camera.widgetToMap(widgetPos);
    const std::int64_t v = index().nearest(m.x(), m.y(), radiusPx / m_camera.zoom());
    return v < 0 ? -1 : m_items[static_cast<std::size_t>(v)];
}

std::vector<std::int64_t> MapRenderer::itemsInRect(QRectF r) const
{
    const QPointF a = m_camera.widgetToMap(r.topLeft()), b = m_camera.widgetToMap(r.bottomRight());
    std::vector<std::int64_t> out;
    for (std::int64_t v : index().inRect(a.x(), a.y(), b.x(), b.y()))
        out.push_back(m_items[static_cast<std::size_t>(v)]);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::int64_t> MapRenderer::itemsInPolygon(const QPolygonF& polygon) const
{
    std::vector<double> xy;
    xy.reserve(2 * static_cast<std::size_t>(polygon.size()));
    for (const QPointF& w : polygon) {
        const QPointF m = m_camera.widgetToMap(w);
        xy.push_back(m.x());
        xy.push_back(m.y());
    }
    std::vector<std::int64_t> out;
    for (std::int64_t v : index().inPolygon(xy))
        out.push_back(m_items[static_cast<std::size_t>(v)]);
    std::sort(out.begin(), out.end());
    return out;
}

void MapRenderer::setSelectedItems(const std::vector<std::int64_t>& items)
{
    m_selectedVertices.clear();
    for (std::int64_t item : items)
        if (const std::int64_t v = vertexOf(item); v >= 0)
            m_selectedVertices.push_back(static_cast<std::uint32_t>(v));
    m_selectionDirty = true;
    ++m_content;
}

// --- GL --------------------------------------------------------------------------------

bool MapRenderer::initializeGL(QOpenGLFunctions_3_3_Core* gl, QString* problem)
{
    auto program = std::make_unique<QOpenGLShaderProgram>();
    QString vertOrigin, fragOrigin;
    const QByteArray vert = ShaderSource::load(QStringLiteral("points.vert"), &vertOrigin);
    const QByteArray frag = ShaderSource::load(QStringLiteral("points.frag"), &fragOrigin);
    QString error;
    if (vert.isEmpty() || frag.isEmpty())
        error = QStringLiteral("Shader sources points.vert / points.frag not found");
    else if (!program->addShaderFromSourceCode(QOpenGLShader::Vertex, vert))
        error = QStringLiteral("%1: %2").arg(vertOrigin, program->log());
    else if (!program->addShaderFromSourceCode(QOpenGLShader::Fragment, frag))
        error = QStringLiteral("%1: %2").arg(fragOrigin, program->log());
    else if (!program->link())
        error = QStringLiteral("Linking the point shaders failed: %1").arg(program->log());
    if (!error.isEmpty()) {
        if (problem)
            *problem = error;
        return false;
    }
    m_program = std::move(program);
    m_gl = gl;
    m_vao.create();
    for (QOpenGLBuffer* b : {&m_positions, &m_style, &m_selectedIbo, &m_lodIbo}) {
        b->create();
        b->setUsagePattern(QOpenGLBuffer::DynamicDraw);
    }
    {
        QOpenGLVertexArrayObject::Binder bind(&m_vao);
        m_positions.bind(); // from.xy, to.xy
        gl->glEnableVertexAttribArray(0);
        gl->glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), nullptr);
        gl->glEnableVertexAttribArray(1);
        gl->glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), reinterpret_cast<void*>(2 * sizeof(float)));
        m_style.bind(); // rgba8 colour, float size factor
        gl->glEnableVertexAttribArray(2);
        gl->glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, 8, nullptr);
        gl->glEnableVertexAttribArray(3);
        gl->glVertexAttribPointer(3, 1, GL_FLOAT, GL_FALSE, 8, reinterpret_cast<void*>(4));
        m_style.release();
    }
    m_positionsDirty = m_styleDirty = m_selectionDirty = m_lodDirty = true;
    m_layerValid = m_fillingActive = false;
    return true;
}

void MapRenderer::cleanupGL()
{
    if (!m_gl)
        return;
    m_positions.destroy();
    m_style.destroy();
    m_selectedIbo.destroy();
    m_lodIbo.destroy();
    m_layer.reset();
    m_filling.reset();
    m_layerValid = m_fillingActive = false;
    m_vao.destroy();
    m_program.reset();
    m_gl = nullptr;
}

void MapRenderer::uploadPositions()
{
    std::vector<float> v(4 * m_items.size());
    for (std::size_t i = 0; i < m_items.size(); ++i) {
        v[4 * i] = m_from[2 * i];
        v[4 * i + 1] = m_from[2 * i + 1];
        v[4 * i + 2] = m_to[2 * i];
        v[4 * i + 3] = m_to[2 * i + 1];
    }
    m_positions.bind();
    m_positions.allocate(v.data(), static_cast<int>(v.size() * sizeof(float)));
    m_positions.release();
    m_positionsDirty = false;
}

void MapRenderer::uploadStyle()
{
    struct Style {
        std::uint8_t rgba[4];
        float size;
    };
    static_assert(sizeof(Style) == 8);
    std::vector<Style> v(m_items.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::uint32_t c = i < m_colors.size() ? m_colors[i] : unlabelledRgb();
        v[i] = Style{{std::uint8_t(c >> 16), std::uint8_t(c >> 8), std::uint8_t(c), 255},
                     m_sizes.empty() ? 1.0f : m_sizes[i]};
    }
    m_style.bind();
    m_style.allocate(v.data(), static_cast<int>(v.size() * sizeof(Style)));
    m_style.release();
    m_styleDirty = false;
}

void MapRenderer::setUniforms(QSize fb, float dpr, float pointSizePx)
{
    QOpenGLFunctions_3_3_Core* gl = m_gl;
    gl->glViewport(0, 0, fb.width(), fb.height());
    gl->glEnable(GL_PROGRAM_POINT_SIZE);
    gl->glEnable(GL_BLEND);
    // Alpha stays 1 where a point covers the opaque background, so the widget composes right.
    gl->glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    gl->glDisable(GL_DEPTH_TEST);
    const QSizeF vp = m_camera.viewport();
    m_program->bind();
    m_program->setUniformValue("u_center", QVector2D(float(m_camera.center().x()), float(m_camera.center().y())));
    m_program->setUniformValue("u_scale", QVector2D(float(2.0 * m_camera.zoom() / vp.width()),
                                                    float(2.0 * m_camera.zoom() / vp.height())));
    m_program->setUniformValue("u_t", animationT());
    m_program->setUniformValue("u_pointSize", pointSizePx * dpr);
    m_program->setUniformValue("u_highlight", -1);
    m_program->setUniformValue("u_selected", 0);
}

void MapRenderer::drawRange(std::size_t first, std::size_t count)
{
    QOpenGLVertexArrayObject::Binder bind(&m_vao);
    m_gl->glDrawArrays(GL_POINTS, static_cast<GLint>(first), static_cast<GLsizei>(count));
}

void MapRenderer::drawSelected()
{
    if (m_selectedCount <= 0)
        return;
    QOpenGLVertexArrayObject::Binder bind(&m_vao);
    m_program->setUniformValue("u_selected", 1); // on top, larger, light rim
    m_selectedIbo.bind();
    m_gl->glDrawElements(GL_POINTS, m_selectedCount, GL_UNSIGNED_INT, nullptr);
    m_selectedIbo.release();
    m_program->setUniformValue("u_selected", 0);
}

void MapRenderer::drawHovered(std::int64_t vertex)
{
    if (vertex < 0)
        return;
    QOpenGLVertexArrayObject::Binder bind(&m_vao);
    m_program->setUniformValue("u_highlight", static_cast<int>(vertex)); // on top of its neighbours, larger
    m_gl->glDrawArrays(GL_POINTS, static_cast<GLint>(vertex), 1);
    m_program->setUniformValue("u_highlight", -1);
}

void MapRenderer::blitLayer(GLuint targetFbo, QSize fb, float dpr, bool transformed)
{
    QOpenGLFunctions_3_3_Core* gl = m_gl;
    gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, m_layer->handle());
    gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, targetFbo);
    if (!transformed) {
        gl->glBlitFramebuffer(0, 0, fb.width(), fb.height(), 0, 0, fb.width(), fb.height(), GL_COLOR_BUFFER_BIT, GL_NEAREST);
    } else {
        // Where the layer's corners are under the current camera. Framebuffer y points up,
        // like map y: a map point p is at size/2 + (p - centre) * zoom * dpr in both axes.
        const double z0 = m_layerKey.zoom * dpr, z1 = m_camera.zoom() * dpr;
        const QPointF c0 = m_layerKey.center, c1 = m_camera.center();
        auto to = [&](double pixel, double half, double centre0, double centre1) {
            return half + ((pixel - half) / z0 + centre0 - centre1) * z1;
        };
        const double hw = fb.width() / 2.0, hh = fb.height() / 2.0;
        const double x0 = to(0, hw, c0.x(), c1.x()), x1 = to(fb.width(), hw, c0.x(), c1.x());
        const double y0 = to(0, hh, c0.y(), c1.y()), y1 = to(fb.height(), hh, c0.y(), c1.y());
        gl->glBlitFramebuffer(0, 0, fb.width(), fb.height(), GLint(std::lround(x0)), GLint(std::lround(y0)),
                              GLint(std::lround(x1)), GLint(std::lround(y1)), GL_COLOR_BUFFER_BIT, GL_LINEAR);
    }
    gl->glBindFramebuffer(GL_FRAMEBUFFER, targetFbo);
}

bool MapRenderer::draw(GLuint targetFbo, QSize fb, float dpr, float pointSizePx, std::int64_t hoveredItem, bool interacting)
{
    m_lastPath = DrawPath::None;
    if (!m_gl || m_items.empty() || fb.isEmpty())
        return false;
    QOpenGLFunctions_3_3_Core* gl = m_gl;
    if (m_positionsDirty)
        uploadPositions();
    if (m_styleDirty)
        uploadStyle();
    if (m_selectionDirty) {
        m_selectedIbo.bind();
        m_selectedIbo.allocate(m_selectedVertices.data(), static_cast<int>(m_selectedVertices.size() * sizeof(std::uint32_t)));
        m_selectedIbo.release();
        m_selectedCount = static_cast<int>(m_selectedVertices.size());
        m_selectionDirty = false;
    }
    const std::int64_t hovered = vertexOf(hoveredItem);
    const std::size_t n = m_items.size();
    bool more = false;

    if (animating()) {
        // Mid-animation nothing is final: draw at most kAnimationPoints (every k-th point).
        if (m_lodDirty) {
            std::vector<std::uint32_t> lod;
            if (n > kAnimationPoints) {
                const std::size_t k = (n + kAnimationPoints - 1) / kAnimationPoints;
                lod.reserve(n / k + 1);
                for (std::size_t v = 0; v < n; v += k)
                    lod.push_back(static_cast<std::uint32_t>(v));
            }
            m_lodIbo.bind();
            m_lodIbo.allocate(lod.data(), static_cast<int>(lod.size() * sizeof(std::uint32_t)));
            m_lodIbo.release();
            m_lodCount = static_cast<int>(lod.size());
            m_lodDirty = false;
        }
        setUniforms(fb, dpr, pointSizePx);
        if (n > kAnimationPoints) {
            QOpenGLVertexArrayObject::Binder bind(&m_vao);
            m_lodIbo.bind();
            gl->glDrawElements(GL_POINTS, m_lodCount, GL_UNSIGNED_INT, nullptr);
            m_lodIbo.release();
        } else {
            drawRange(0, n);
        }
        if (m_selectedCount <= static_cast<int>(kAnimationPoints))
            drawSelected();
        drawHovered(hovered);
        m_lastPath = DrawPath::Animated;
        more = true;
    } else {
        const LayerKey key{m_camera.center(), m_camera.zoom(), fb, pointSizePx * dpr, m_content};
        if (m_layerValid && m_layerKey == key) {
            blitLayer(targetFbo, fb, dpr, false);
            m_lastPath = DrawPath::LayerCopy;
        } else if (interacting && n > m_chunk && m_layerValid && m_layerKey.size == fb &&
                   m_layerKey.content == m_content) {
            blitLayer(targetFbo, fb, dpr, true);
            m_lastPath = DrawPath::LayerPreview;
        } else {
            // Fill the layer for this camera, m_chunk points per frame. Drawing the points in
            // order in several calls blends exactly as one call would.
            if (!m_fillingActive || !(m_fillingKey == key)) {
                if (!m_filling || m_filling->size() != fb)
                    m_filling = std::make_unique<QOpenGLFramebufferObject>(fb);
                m_fillingKey = key;
                m_fillingActive = true;
                m_filled = 0;
                m_filling->bind();
                const QColor bg = Palette::mapBackground();
                gl->glClearColor(float(bg.redF()), float(bg.greenF()), float(bg.blueF()), 1.0f);
                gl->glClear(GL_COLOR_BUFFER_BIT);
            }
            m_filling->bind();
            setUniforms(fb, dpr, pointSizePx);
            const std::size_t count = std::min(m_chunk, n - m_filled);
            drawRange(m_filled, count);
            m_filled += count;
            if (m_filled == n) {
                drawSelected();
                std::swap(m_layer, m_filling);
                m_layerKey = key;
                m_layerValid = true;
                m_fillingActive = false;
            }
            gl->glBindFramebuffer(GL_FRAMEBUFFER, targetFbo);
            if (m_layerValid && m_layerKey == key) {
                blitLayer(targetFbo, fb, dpr, false);
            } else {
                // Not complete yet: show what is filled so far.
                gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, m_filling->handle());
                gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, targetFbo);
                gl->glBlitFramebuffer(0, 0, fb.width(), fb.height(), 0, 0, fb.width(), fb.height(), GL_COLOR_BUFFER_BIT,
                                      GL_NEAREST);
                gl->glBindFramebuffer(GL_FRAMEBUFFER, targetFbo);
                more = true;
            }
            m_lastPath = DrawPath::LayerFill;
        }
        setUniforms(fb, dpr, pointSizePx);
        drawHovered(hovered);
    }
    m_program->release();
    gl->glDisable(GL_BLEND);
    gl->glDisable(GL_PROGRAM_POINT_SIZE);
    return more;
}

} // namespace setscope::gui
