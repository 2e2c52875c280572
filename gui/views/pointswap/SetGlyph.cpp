// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/pointswap/SetGlyph.h"

#include "gui/views/export/Svg.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace setscope::gui {

SetGlyph::SetGlyph(QWidget* parent)
    : QWidget(parent)
{
    setMinimumSize(160, 140);
}

void SetGlyph::setPoints(std::vector<Point> points, const QString& caption)
{
    m_points = std::move(points);
    m_caption = caption;
    m_minX = m_minY = 0;
    m_maxX = m_maxY = 1;
    m_maxWeight = 1;
    if (!m_points.empty()) {
        m_minX = m_maxX = m_points.front().x;
        m_minY = m_maxY = m_points.front().y;
        m_maxWeight = 0;
        for (const Point& p : m_points) {
            m_minX = std::min(m_minX, p.x);
            m_maxX = std::max(m_maxX, p.x);
            m_minY = std::min(m_minY, p.y);
            m_maxY = std::max(m_maxY, p.y);
            m_maxWeight = std::max(m_maxWeight, p.weight);
        }
        if (m_maxWeight <= 0)
            m_maxWeight = 1;
    }
    update();
}

QPointF SetGlyph::place(const Point& p, const QRectF& box) const
{
    // One scale for both axes (shapes keep their aspect), centred; y up.
    const double w = std::max(1e-9f, m_maxX - m_minX), h = std::max(1e-9f, m_maxY - m_minY);
    const double s = std::min(box.width() / w, box.height() / h);
    const double cx = 0.5 * (m_minX + m_maxX), cy = 0.5 * (m_minY + m_maxY);
    return {box.center().x() + (p.x - cx) * s, box.center().y() - (p.y - cy) * s};
}

double SetGlyph::radius(const Point& p) const
{
    return 2.0 + 5.0 * std::sqrt(std::max(0.0f, p.weight) / m_maxWeight);
}

QPointF SetGlyph::position(std::size_t i) const
{
    const QRectF box = QRectF(rect()).adjusted(12, 12, -12, -26);
    return i < m_points.size() ? place(m_points[i], box) : QPointF();
}

void SetGlyph::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), Qt::white);
    const QRectF box = QRectF(rect()).adjusted(12, 12, -12, -26);
    // Unmarked first, marked on top.
    for (int pass = 0; pass < 2; ++pass)
        for (const Point& pt : m_points) {
            if (pt.marked != (pass == 1))
                continue;
            const double r = radius(pt);
            p.setBrush(pt.color);
            p.setPen(pt.marked ? QPen(Qt::black, 1.5) : Qt::NoPen);
            p.drawEllipse(place(pt, box), r, r);
        }
    p.setPen(Qt::darkGray);
    p.drawText(QRectF(rect()).adjusted(6, 0, -6, -4), Qt::AlignBottom | Qt::AlignLeft, m_caption);
}

void SetGlyph::drawSvg(SvgWriter& svg, const QRectF& area) const
{
    svg.rect(area, Qt::white, Qt::lightGray, 1);
    const QRectF box = area.adjusted(12, 12, -12, -26);
    for (int pass = 0; pass < 2; ++pass)
        for (const Point& pt : m_points)
            if (pt.marked == (pass == 1))
                svg.circle(place(pt, box), radius(pt), pt.color, pt.marked ? QColor(Qt::black) : QColor(Qt::transparent),
                           pt.marked ? 1.5 : 0);
    svg.text(QPointF(area.left() + 6, area.bottom() - 8), m_caption, 11, Qt::darkGray);
}

} // namespace setscope::gui
