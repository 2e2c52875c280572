// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/workspace/SetFlow.h"

#include <QWidget>

#include <optional>

namespace setscope::gui {

class SvgWriter;

/// Two sets in their shared 2-D projection with the optimal flow between them: the first
/// set's elements blue, the second's orange (disc area by weight), one line per arc of the
/// flow, its width by f_ij. Hovering an element brings its arcs forward (the others fade)
/// and lists them in the tooltip; words label the elements of documents (up to
/// kMaxLabels of them, the heaviest first).
class FlowCanvas final : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxLabels = 30;
    /// Which element: set 0 (the first) or 1, and its index.
    struct Element {
        int set = -1;
        int index = -1;
        bool valid() const { return set >= 0; }
        bool operator==(const Element&) const = default;
    };

    explicit FlowCanvas(QWidget* parent = nullptr);
    void setFlow(std::optional<workspace::SetFlow> flow);
    const std::optional<workspace::SetFlow>& flow() const { return m_flow; }

    /// Widget position of an element in the current size; the element under `pos` (within a
    /// few pixels) or an invalid one.
    QPointF position(Element e) const;
    Element elementAt(QPointF pos) const;
    Element hovered() const { return m_hovered; }
    void setHovered(Element e);
    /// The tooltip lines for an element: its name, then "→ name: amount (cost d)" per arc.
    QStringList describe(Element e) const;

    void drawSvg(SvgWriter& svg, const QRectF& box) const;
    QSize sizeHint() const override { return {420, 360}; }

Q_SIGNALS:
    void hoveredChanged();

protected:
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    QRectF plotBox() const;
    QPointF place(float x, float y, const QRectF& box) const;
    double radius(int set, int index) const;
    bool arcTouches(const workspace::FlowArc& a, Element e) const;
    std::vector<bool> labelled(int set) const;

    std::optional<workspace::SetFlow> m_flow;
    Element m_hovered;
    float m_minX = 0, m_maxX = 1, m_minY = 0, m_maxY = 1;
    double m_maxWeight = 1, m_maxAmount = 1;
};

} // namespace setscope::gui
