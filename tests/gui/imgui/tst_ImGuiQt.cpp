// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/imgui/ImGuiQt.h"

#include <imgui.h>

#include <QtTest/QtTest>

#include <cfloat>

using setscope::gui::ImGuiQt;

namespace {

// The GL backend builds the font atlas; without GL the test builds it on the CPU.
void buildFonts(ImGuiQt& q)
{
    ImGui::SetCurrentContext(q.context());
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
}

} // namespace

class TestImGuiQt : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void frameGetsDisplaySizeScaleAndTime()
    {
        ImGuiQt q;
        buildFonts(q);
        q.newFrame(QSize(300, 200), 2.0);
        const ImGuiIO& io = ImGui::GetIO();
        QCOMPARE(io.DisplaySize.x, 300.0f);
        QCOMPARE(io.DisplaySize.y, 200.0f);
        QCOMPARE(io.DisplayFramebufferScale.x, 2.0f);
        QCOMPARE(io.DisplayFramebufferScale.y, 2.0f);
        QVERIFY(io.DeltaTime > 0.0f);
        QVERIFY(io.IniFilename == nullptr); // no imgui.ini in the user's folder
        q.render();
        QTest::qWait(30);
        q.newFrame(QSize(300, 200), 1.0);
        QVERIFY(ImGui::GetIO().DeltaTime >= 0.02f); // the real time between frames
        q.render();
        QCOMPARE(q.frameCount(), 2);
    }

    void mousePositionButtonsAndWheel()
    {
        ImGuiQt q;
        buildFonts(q);
        q.newFrame(QSize(300, 200), 1.0);
        QVERIFY(!ImGui::IsMousePosValid()); // no mouse seen yet
        q.render();

        q.mouseMove(QPointF(10.0, 20.0)); // ImGui floors positions to whole pixels
        q.mousePress(1);
        q.wheel(1.5f, -0.5f);
        q.newFrame(QSize(300, 200), 1.0);
        ImGuiIO& io = ImGui::GetIO();
        QCOMPARE(io.MousePos.x, 10.0f);
        QCOMPARE(io.MousePos.y, 20.0f);
        QVERIFY(io.MouseDown[1]);
        QVERIFY(!io.MouseDown[0]);
        QCOMPARE(io.MouseWheel, 1.5f);
        QCOMPARE(io.MouseWheelH, -0.5f);
        q.render();

        // Held: still down; the wheel is per frame.
        q.newFrame(QSize(300, 200), 1.0);
        QVERIFY(ImGui::GetIO().MouseDown[1]);
        QCOMPARE(ImGui::GetIO().MouseWheel, 0.0f);
        q.render();

        q.mouseRelease(1);
        q.mouseLeave();
        q.newFrame(QSize(300, 200), 1.0);
        QVERIFY(!ImGui::GetIO().MouseDown[1]);
        QCOMPARE(ImGui::GetIO().MousePos.x, -FLT_MAX);
        q.render();
    }

    // ImGui 1.86 samples the button state once per frame: a press and release between two
    // frames must still show as one frame of "down", so a quick click is not lost.
    void quickClickIsNotLost()
    {
        ImGuiQt q;
        buildFonts(q);
        q.mouseMove(QPointF(5, 5));
        q.mousePress(0);
        q.mouseRelease(0);
        q.newFrame(QSize(100, 100), 1.0);
        QVERIFY(ImGui::GetIO().MouseDown[0]);
        QVERIFY(ImGui::IsMouseClicked(0));
        q.render();
        q.newFrame(QSize(100, 100), 1.0);
        QVERIFY(!ImGui::GetIO().MouseDown[0]);
        QVERIFY(ImGui::IsMouseReleased(0));
        q.render();
    }

    void wantsMouseOnlyOverItsWindows()
    {
        ImGuiQt q;
        buildFonts(q);
        auto frame = [&](QPointF mouse) {
            q.mouseMove(mouse);
            q.newFrame(QSize(400, 300), 1.0);
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImVec2(100, 100));
            ImGui::Begin("panel");
            ImGui::TextUnformatted("hello");
            ImGui::End();
            q.render();
        };
        frame(QPointF(50, 50));
        frame(QPointF(50, 50));
        QVERIFY(q.wantCaptureMouse());
        frame(QPointF(250, 200));
        frame(QPointF(250, 200));
        QVERIFY(!q.wantCaptureMouse());
    }

    void contextsAreIndependent()
    {
        ImGuiQt a, b;
        buildFonts(a);
        buildFonts(b);
        QVERIFY(a.context() != b.context());
        a.mouseMove(QPointF(1, 2));
        b.mouseMove(QPointF(30, 40));
        a.newFrame(QSize(50, 50), 1.0);
        QCOMPARE(ImGui::GetIO().MousePos.x, 1.0f);
        a.render();
        b.newFrame(QSize(60, 60), 1.0);
        QCOMPARE(ImGui::GetIO().MousePos.x, 30.0f);
        QCOMPARE(ImGui::GetIO().DisplaySize.x, 60.0f);
        b.render();
        QCOMPARE(a.frameCount(), 1);
        QCOMPARE(b.frameCount(), 1);
    }
};

QTEST_MAIN(TestImGuiQt)
#include "tst_ImGuiQt.moc"
