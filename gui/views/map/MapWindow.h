// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLWindow>

namespace setscope::gui {

class EmbeddingView;

/// The OpenGL side of EmbeddingView: a QOpenGLWindow (shown in the view through
/// QWidget::createWindowContainer) that owns the GL context and forwards its GL hooks
/// (initializeGL, resizeGL, paintGL) and its input events (mouse, wheel, keys, enter /
/// leave) to the view. A native window is composed by the window system, not copied into the
/// widget window's backing store on every frame as a QOpenGLWidget is (the cost that made
/// a frame of the map slow under Mesa; docs/BENCHMARKS.md). Its coordinates (logical pixels,
/// y down, origin top-left) are the view's "widget" coordinates. Not part of the view's
/// public API (EmbeddingView::surface() exposes it as a QOpenGLWindow for tests).
///
/// GUI thread only. The view outlives the surface's use: it detaches itself (detach())
/// before its children, the window among them, are destroyed.
class MapWindow final : public QOpenGLWindow, public QOpenGLFunctions_3_3_Core {
    Q_OBJECT
public:
    explicit MapWindow(EmbeddingView* view);
    /// Stops forwarding (the view is being destroyed).
    void detach() { m_view = nullptr; }

protected:
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void paintGL() override;
    bool event(QEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    EmbeddingView* m_view;
};

} // namespace setscope::gui
