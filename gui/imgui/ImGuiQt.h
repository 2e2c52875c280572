// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QElapsedTimer>
#include <QPointF>
#include <QSize>
#include <QString>

struct ImGuiContext;

namespace setscope::gui {

/// Dear ImGui (1.86) platform glue for one Qt OpenGL surface (a QOpenGLWindow or a
/// QOpenGLWidget: it takes positions and sizes, not a widget), plus the OpenGL 3 renderer
/// backend from Debian's libimgui. Owns one ImGui context, so several views can each have
/// their own overlay. ImGui 1.86 polls input state once per frame (io.MousePos,
/// io.MouseDown[], io.MouseWheel; the event API came in 1.87): the view forwards Qt
/// events here, and newFrame() copies the state into io. A press and release between two
/// frames still shows as one frame of "down", so quick clicks are not lost.
///
/// GUI thread only. GL calls (initializeGL, render, shutdownGL) need the surface's GL
/// context current.
class ImGuiQt {
public:
    ImGuiQt();
    /// Destroys the ImGui context. Call shutdownGL() before, with the GL context current.
    ~ImGuiQt();
    ImGuiQt(const ImGuiQt&) = delete;
    ImGuiQt& operator=(const ImGuiQt&) = delete;

    /// Creates the renderer's GL objects (shaders "#version 330", font texture). `fontFile`
    /// is a TTF file (empty or missing: ImGui's built-in font), rasterised at
    /// `fontPixels` x `devicePixelRatio` and drawn at `fontPixels` logical pixels.
    bool initializeGL(const QString& fontFile = {}, float fontPixels = 15.0f, qreal devicePixelRatio = 1.0);
    /// Deletes the GL objects (context current). Safe to call more than once.
    void shutdownGL();
    bool glInitialized() const { return m_glReady; }

    /// Makes this context ImGui's current one and starts a frame: display size in logical
    /// pixels, framebuffer scale = device pixel ratio, delta time since the last frame,
    /// mouse state gathered since then. Build windows with ImGui:: calls, then render().
    void newFrame(QSize logicalSize, qreal devicePixelRatio);
    /// Ends the frame and draws it into the bound framebuffer.
    void render();

    // Input, in the surface's coordinates (logical pixels, y down).
    void mouseMove(QPointF pos);
    void mousePress(int button); ///< 0 left, 1 right, 2 middle
    void mouseRelease(int button);
    /// Wheel steps (one notch = 1.0; Qt's angleDelta / 120).
    void wheel(float vertical, float horizontal = 0.0f);
    void mouseLeave();

    /// Whether the last frame's overlay wants the mouse (it is over an ImGui window or
    /// dragging one): the view then leaves the event to ImGui instead of panning.
    bool wantCaptureMouse() const;
    /// Frames rendered so far.
    int frameCount() const;
    ImGuiContext* context() const { return m_ctx; }

private:
    void makeCurrent() const;

    ImGuiContext* m_ctx = nullptr;
    bool m_glReady = false;
    QElapsedTimer m_clock;
    qint64 m_lastFrameNs = 0;
    QPointF m_mousePos{-1.0, -1.0};
    bool m_mouseInside = false;
    bool m_down[3] = {false, false, false};
    bool m_clicked[3] = {false, false, false};
    float m_wheel = 0.0f;
    float m_wheelH = 0.0f;
};

} // namespace setscope::gui
