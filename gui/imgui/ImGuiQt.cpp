// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/imgui/ImGuiQt.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <QFileInfo>

#include <algorithm>
#include <cfloat>

namespace setscope::gui {

ImGuiQt::ImGuiQt()
{
    ImGuiContext* previous = ImGui::GetCurrentContext();
    m_ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_ctx);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr; // no imgui.ini in the user's working directory
    io.LogFilename = nullptr;
    io.BackendPlatformName = "setscope_qt";
    io.ConfigWindowsMoveFromTitleBarOnly = true;
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.WindowBorderSize = 0.0f;
    style.WindowPadding = ImVec2(8.0f, 6.0f);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.10f, 0.12f, 0.90f);
    style.Colors[ImGuiCol_PopupBg] = ImVec4(0.13f, 0.14f, 0.17f, 0.96f);
    m_clock.start();
    ImGui::SetCurrentContext(previous ? previous : m_ctx);
}

ImGuiQt::~ImGuiQt()
{
    if (m_ctx) {
        ImGuiContext* previous = ImGui::GetCurrentContext();
        ImGui::DestroyContext(m_ctx); // also clears the current context when it was this one
        if (previous && previous != m_ctx)
            ImGui::SetCurrentContext(previous);
    }
}

void ImGuiQt::makeCurrent() const { ImGui::SetCurrentContext(m_ctx); }

bool ImGuiQt::initializeGL(const QString& fontFile, float fontPixels, qreal devicePixelRatio)
{
    makeCurrent();
    if (m_glReady)
        shutdownGL();
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    const float dpr = static_cast<float>(std::max<qreal>(1.0, devicePixelRatio));
    ImFont* font = nullptr;
    if (!fontFile.isEmpty() && QFileInfo::exists(fontFile))
        font = io.Fonts->AddFontFromFileTTF(fontFile.toLocal8Bit().constData(), fontPixels * dpr);
    if (!font) {
        ImFontConfig cfg;
        cfg.SizePixels = 13.0f * dpr;
        io.Fonts->AddFontDefault(&cfg);
    }
    io.FontGlobalScale = 1.0f / dpr;
    m_glReady = ImGui_ImplOpenGL3_Init("#version 330");
    return m_glReady;
}

void ImGuiQt::shutdownGL()
{
    if (!m_glReady)
        return;
    makeCurrent();
    ImGui_ImplOpenGL3_Shutdown();
    m_glReady = false;
}

void ImGuiQt::newFrame(QSize logicalSize, qreal devicePixelRatio)
{
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(std::max(1, logicalSize.width())),
                            static_cast<float>(std::max(1, logicalSize.height())));
    const float dpr = static_cast<float>(devicePixelRatio);
    io.DisplayFramebufferScale = ImVec2(dpr, dpr);

    const qint64 now = m_clock.nsecsElapsed();
    // ImGui asserts DeltaTime > 0; frames are event driven, so a long gap is normal.
    io.DeltaTime = std::clamp(static_cast<float>(now - m_lastFrameNs) * 1e-9f, 1e-4f, 1.0f);
    m_lastFrameNs = now;

    io.MousePos = m_mouseInside ? ImVec2(static_cast<float>(m_mousePos.x()), static_cast<float>(m_mousePos.y()))
                                : ImVec2(-FLT_MAX, -FLT_MAX);
    for (int b = 0; b < 3; ++b) {
        io.MouseDown[b] = m_down[b] || m_clicked[b];
        m_clicked[b] = false;
    }
    io.MouseWheel = m_wheel;
    io.MouseWheelH = m_wheelH;
    m_wheel = m_wheelH = 0.0f;

    if (m_glReady)
        ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
}

void ImGuiQt::render()
{
    makeCurrent();
    ImGui::Render();
    if (m_glReady)
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void ImGuiQt::mouseMove(QPointF pos)
{
    m_mousePos = pos;
    m_mouseInside = true;
}

void ImGuiQt::mousePress(int button)
{
    if (button < 0 || button > 2)
        return;
    m_down[button] = true;
    m_clicked[button] = true;
}

void ImGuiQt::mouseRelease(int button)
{
    if (button < 0 || button > 2)
        return;
    m_down[button] = false;
}

void ImGuiQt::wheel(float vertical, float horizontal)
{
    m_wheel += vertical;
    m_wheelH += horizontal;
}

void ImGuiQt::mouseLeave() { m_mouseInside = false; }

bool ImGuiQt::wantCaptureMouse() const
{
    makeCurrent();
    return ImGui::GetIO().WantCaptureMouse;
}

int ImGuiQt::frameCount() const
{
    makeCurrent();
    return ImGui::GetFrameCount();
}

} // namespace setscope::gui
