// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Frame times of the embedding map (gui/views/map/EmbeddingView) at 1 000 000 points, the
// number issue 10 §3 asks to stay interactive under xvfb-run with Mesa (llvmpipe). There is
// no reference tool for this number: it prints the times, docs/BENCHMARKS.md records them.
//
//   xvfb-run -a -s "-screen 0 1600x1000x24" env LIBGL_ALWAYS_SOFTWARE=1 build/bench/gui/bench_map_frames [--points N] [--frames F]
//
// A frame is timed from the request to the end of the GPU work: update() on the map's surface
// (a QOpenGLWindow inside the view), the event loop until the frame has been drawn and
// swapped, then glFinish(), so a lazily executing driver cannot hide its work. Scenarios: a static redraw, pan/zoom (a drag
// step or a wheel notch per frame), hover picking (a mouse move to a random place per frame:
// the pick itself is timed separately, then the frame that shows the hover card), and an
// animated transition between two layouts (the upload of the new layout is timed once, then
// the frames while it animates).
#include "bench/BenchUtil.h"

#include "core/data/Dataset.h"
#include "core/layout/LayoutJob.h"
#include "gui/views/map/EmbeddingView.h"

#include <QApplication>
#include <QTest>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QOpenGLWindow>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace setscope;

namespace {

struct Stats {
    double median = 0, p95 = 0, max = 0;
};

Stats stats(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    if (v.empty())
        return {};
    auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<std::size_t>(q * (v.size() - 1) + 0.5))]; };
    return {at(0.5), at(0.95), v.back()};
}

void print(const char* what, const std::vector<double>& ms, const char* path = "")
{
    const Stats s = stats(ms);
    std::printf("  %-36s median %8.2f ms   p95 %8.2f ms   max %8.2f ms   (%zu)  %s\n", what, s.median, s.p95, s.max,
                ms.size(), path);
    std::fflush(stdout);
}

const char* pathName(gui::MapRenderer::DrawPath p)
{
    using P = gui::MapRenderer::DrawPath;
    switch (p) {
    case P::None: return "none";
    case P::Animated: return "animated (every k-th point)";
    case P::LayerFill: return "filling the layer";
    case P::LayerCopy: return "layer copy";
    case P::LayerPreview: return "layer moved/scaled";
    }
    return "?";
}

/// n items of dimension 2 in 10 classes (the map needs a dataset to index; the vectors are
/// not used by the view).
std::shared_ptr<const data::Dataset> makeDataset(std::size_t n)
{
    data::DatasetBuilder b("bench");
    b.setName("bench map");
    b.setDimension(2);
    b.reserve(n, n);
    std::vector<std::string> classes;
    for (int c = 0; c < 10; ++c)
        classes.push_back("class " + std::to_string(c));
    b.defineLabelSet("class", classes);
    const float v[2] = {0.0f, 0.0f};
    for (std::size_t i = 0; i < n; ++i)
        b.setLabel("class", b.addItem(v, nullptr, 1, data::Split::Train), static_cast<std::int32_t>(i % 10));
    return std::make_shared<const data::Dataset>(b.finish());
}

/// Ten Gaussian blobs (class c around a point of a circle), shifted by `phase`.
std::shared_ptr<const layout::Layout> makeLayout(std::size_t n, double phase, unsigned seed)
{
    auto l = std::make_shared<layout::Layout>();
    l->items.resize(n);
    l->xy.resize(2 * n);
    std::mt19937 rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    for (std::size_t i = 0; i < n; ++i) {
        const double a = 2.0 * M_PI * static_cast<double>(i % 10) / 10.0 + phase;
        l->items[i] = static_cast<std::int64_t>(i);
        l->xy[2 * i] = static_cast<float>(10.0 * std::cos(a)) + 2.0f * g(rng);
        l->xy[2 * i + 1] = static_cast<float>(10.0 * std::sin(a)) + 2.0f * g(rng);
    }
    l->iteration = 1;
    return l;
}

void send(QWindow* w, QEvent::Type type, QPointF pos, Qt::MouseButton button, Qt::MouseButtons buttons)
{
    QMouseEvent e(type, pos, w->mapToGlobal(pos), button, buttons, Qt::NoModifier);
    QCoreApplication::sendEvent(w, &e);
}

} // namespace

int main(int argc, char** argv)
{
    std::size_t n = 1000000;
    int frames = 60;
    float pointSize = 0.0f; // the view's default
    for (int i = 1; i + 1 < argc; ++i) {
        if (!std::strcmp(argv[i], "--point-size"))
            pointSize = std::stof(argv[++i]);
        else if (!std::strcmp(argv[i], "--points"))
            n = std::stoul(argv[++i]);
        else if (!std::strcmp(argv[i], "--frames"))
            frames = std::stoi(argv[++i]);
    }
    QApplication app(argc, argv);
    gui::EmbeddingView view;
    view.resize(1600, 1000);
    view.setAnimationDuration(0);
    view.show();
    QElapsedTimer clock;
    clock.start();
    while (!view.isVisible() || view.frameCount() == 0) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        if (clock.elapsed() > 20000)
            break;
    }
    QOpenGLWindow* surface = view.surface();
    std::printf("bench_map_frames: %zu points, %d frames per scenario, view %dx%d, map surface %dx%d, dpr %.1f\n", n,
                frames, view.width(), view.height(), view.mapSize().width(), view.mapSize().height(),
                surface->devicePixelRatio());
    {
        surface->makeCurrent();
        QOpenGLFunctions* f = surface->context()->functions();
        std::printf("  GL: %s | %s | %s\n", reinterpret_cast<const char*>(f->glGetString(GL_RENDERER)),
                    reinterpret_cast<const char*>(f->glGetString(GL_VERSION)),
                    view.glProblem().isEmpty() ? "no problem reported" : qPrintable(view.glProblem()));
        surface->doneCurrent();
    }
    std::printf("  point diameter: %s\n", pointSize > 0.0f ? std::to_string(pointSize).c_str() : "the view's default");
    std::printf("  load average before: %s\n", bench::loadAverage().c_str());

    clock.restart();
    const auto ds = makeDataset(n);
    const auto a = makeLayout(n, 0.0, 1), b = makeLayout(n, 0.6, 2);
    std::printf("  synthetic dataset and two layouts: %.0f ms\n", double(clock.nsecsElapsed()) * 1e-6);

    auto finish = [&] {
        surface->makeCurrent();
        surface->context()->functions()->glFinish();
        surface->doneCurrent();
    };
    // One frame through the normal path: update() posts the request, the event loop runs
    // paintGL and swaps the surface's buffers; then glFinish().
    auto draw = [&] {
        const int before = view.frameCount();
        surface->update();
        while (view.frameCount() == before)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        finish();
    };
    auto frame = [&] {
        QElapsedTimer t;
        t.start();
        draw();
        return double(t.nsecsElapsed()) * 1e-6;
    };

    view.setDataset(ds);
    if (pointSize > 0.0f)
        view.setPointSize(pointSize);
    clock.restart();
    view.setLayout(a);
    const double setLayoutMs = double(clock.nsecsElapsed()) * 1e-6;
    // Until the retained layer is complete: the first frame uploads the buffers, each frame
    // draws MapRenderer::kChunk points into the layer.
    auto fillLayer = [&](const char* what) {
        std::vector<double> fill;
        QElapsedTimer total;
        total.start();
        do
            fill.push_back(frame());
        while (view.lastDrawPath() == gui::MapRenderer::DrawPath::LayerFill && view.animating() == false &&
               fill.size() < 100 && !(fill.size() > 1 && view.lastDrawPath() != gui::MapRenderer::DrawPath::LayerFill));
        // The frame that completes the layer is a LayerFill too; one more shows the copy.
        std::printf("  %s: %zu frames, %.0f ms in all\n", what, fill.size(), double(total.nsecsElapsed()) * 1e-6);
        print("    per frame", fill, pathName(gui::MapRenderer::DrawPath::LayerFill));
    };
    fillLayer("first picture (buffer upload, then the layer filled chunk by chunk)");
    clock.restart();
    view.itemAt(QPointF(800, 500)); // builds the grid index
    const double indexMs = double(clock.nsecsElapsed()) * 1e-6;
    std::printf("  first layout: setLayout %.1f ms, grid index %.1f ms\n", setLayoutMs, indexMs);
    for (int i = 0; i < 3; ++i)
        frame(); // warm-up

    std::vector<double> ms, cpu;
    for (int i = 0; i < frames; ++i) {
        ms.push_back(frame());
        cpu.push_back(view.lastFrameMs());
    }
    print("static redraw", ms, pathName(view.lastDrawPath()));
    print("  of which paintGL (CPU side)", cpu);

    // Pan: a drag of 3 px per frame; zoom: a wheel notch per frame, in then out.
    ms.clear();
    QPointF p(800, 500);
    send(surface, QEvent::MouseButtonPress, p, Qt::LeftButton, Qt::LeftButton);
    for (int i = 0; i < frames; ++i) {
        QElapsedTimer t;
        t.start();
        p += QPointF(3, 1);
        send(surface, QEvent::MouseMove, p, Qt::NoButton, Qt::LeftButton);
        draw();
        ms.push_back(double(t.nsecsElapsed()) * 1e-6);
    }
    send(surface, QEvent::MouseButtonRelease, p, Qt::LeftButton, Qt::NoButton);
    print("pan (drag step + frame)", ms, pathName(view.lastDrawPath()));
    auto settle = [&](const char* what) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < gui::EmbeddingView::kSettleMs + 50)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        fillLayer(what);
    };
    settle("after the pan: the full picture at the new camera");
    ms.clear();
    for (int i = 0; i < frames; ++i) {
        QElapsedTimer t;
        t.start();
        const QPointF at(700 + 5 * (i % 40), 480);
        QWheelEvent wheel(at, surface->mapToGlobal(at), QPoint(), QPoint(0, i < frames / 2 ? 120 : -120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(surface, &wheel);
        draw();
        ms.push_back(double(t.nsecsElapsed()) * 1e-6);
    }
    print("zoom (wheel notch + frame)", ms, pathName(view.lastDrawPath()));
    settle("after the zoom: the full picture at the new camera");
    view.fitAll();
    fillLayer("fit all");

    // Hover: the pick alone (the mouse-move handler: a grid lookup), then the frame.
    std::vector<double> pick;
    ms.clear();
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> ux(100, 1500), uy(100, 900);
    int hits = 0;
    for (int i = 0; i < frames; ++i) {
        const QPointF at(ux(rng), uy(rng));
        QElapsedTimer t;
        t.start();
        send(surface, QEvent::MouseMove, at, Qt::NoButton, Qt::NoButton);
        pick.push_back(double(t.nsecsElapsed()) * 1e-6);
        hits += view.hoveredItem() >= 0;
        draw();
        ms.push_back(double(t.nsecsElapsed()) * 1e-6);
    }
    print("hover: pick per mouse move", pick);
    print("hover: pick + frame with card", ms, pathName(view.lastDrawPath()));
    std::printf("  (hover found a point on %d of %d moves)\n", hits, frames);
    send(surface, QEvent::MouseMove, QPointF(-10, -10), Qt::NoButton, Qt::NoButton);

    // Animated transition a -> b: long enough that every timed frame is mid-animation.
    view.setAnimationDuration(3600 * 1000);
    clock.restart();
    view.setLayout(b);
    const double switchMs = double(clock.nsecsElapsed()) * 1e-6;
    const double uploadFrame = frame();
    ms.clear();
    for (int i = 0; i < frames; ++i)
        ms.push_back(frame());
    std::printf("  new layout: setLayout %.1f ms, first frame (buffer upload) %.1f ms, still animating: %s\n", switchMs,
                uploadFrame, view.animating() ? "yes" : "no");
    print("animated transition", ms, pathName(view.lastDrawPath()));
    view.setAnimationDuration(1); // ends it
    QTest::qWait(5);
    fillLayer("after the animation: the full picture");
    // The built-in kNN-agreement column: a k-nearest-neighbour search per point on the grid.
    // It runs on a thread of its own: the GUI thread's share is the call, the wait is not.
    QSignalSpy computed(&view, &gui::EmbeddingView::agreementComputed);
    clock.restart();
    view.setColorBy(QString::fromLatin1(gui::EmbeddingView::kAgreementColumn));
    const double callMs = double(clock.nsecsElapsed()) * 1e-6;
    computed.wait(600000);
    std::printf("  colour by \"%s\": %.0f ms on the GUI thread, values after %.0f ms (own thread)\n",
                gui::EmbeddingView::kAgreementColumn, callMs, double(clock.nsecsElapsed()) * 1e-6);
    std::printf("  load average after: %s\n", bench::loadAverage().c_str());
    return 0;
}
