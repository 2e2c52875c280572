// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/map/MapWindow.h"

#include "gui/views/map/EmbeddingView.h"

#include <QEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QWheelEvent>

namespace setscope::gui {

namespace {

/// Whether this platform gives an OpenGL context at all (asked once per process).
bool openGlAvailable()
{
    static const bool ok = [] {
        QOpenGLContext probe;
        return probe.create();
    }();
    return ok;
}

} // namespace

MapWindow::MapWindow(EmbeddingView* view)
    : QOpenGLWindow(QOpenGLWindow::NoPartialUpdate)
    , m_view(view)
{
}

void MapWindow::initializeGL()
{
    if (m_view)
        m_view->initializeSurface();
}

void MapWindow::resizeGL(int, int)
{
    if (m_view)
        m_view->surfaceResized();
}

void MapWindow::paintGL()
{
    if (m_view)
        m_view->paintSurface(defaultFramebufferObject());
}

bool MapWindow::event(QEvent* e)
{
    if (m_view && e->type() == QEvent::Leave)
        m_view->surfaceLeft();
    // Without OpenGL (QT_QPA_PLATFORM=offscreen without a display) QOpenGLWindow's paint
    // path uses the context it failed to create and crashes: no frames then (the view's
    // glProblem() says why, its grabs are null images).
    const QEvent::Type t = e->type();
    if ((t == QEvent::Expose || t == QEvent::UpdateRequest || t == QEvent::Paint) && !openGlAvailable())
        return true;
    return QOpenGLWindow::event(e);
}

void MapWindow::mousePressEvent(QMouseEvent* e)
{
    if (m_view)
        m_view->surfaceMousePress(e);
}

void MapWindow::mouseMoveEvent(QMouseEvent* e)
{
    if (m_view)
        m_view->surfaceMouseMove(e);
}

void MapWindow::mouseReleaseEvent(QMouseEvent* e)
{
    if (m_view)
        m_view->surfaceMouseRelease(e);
}

void MapWindow::mouseDoubleClickEvent(QMouseEvent* e)
{
    if (m_view)
        m_view->surfaceMouseDoubleClick(e);
}

void MapWindow::wheelEvent(QWheelEvent* e)
{
    if (m_view)
        m_view->surfaceWheel(e);
}

void MapWindow::keyPressEvent(QKeyEvent* e)
{
    // The view's keys (L, Ctrl+F); the view's widget shortcuts do not see keys typed into a
    // native child window, which has the focus after a click on the map.
    if (m_view)
        m_view->surfaceKeyPress(e);
    else
        QOpenGLWindow::keyPressEvent(e);
}

} // namespace setscope::gui
