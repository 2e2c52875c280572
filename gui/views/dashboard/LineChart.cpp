// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/dashboard/LineChart.h"

#include "gui/views/export/Svg.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

namespace setscope::gui {

namespace {

/// A tick label with enough digits to tell ticks `step` apart (0.0998 vs 0.1003, not 0.1 twice).
QString tick(double v, double step)
{
    const double mag = std::max(std::abs(v), std::abs(step));
    const int digits = step > 0 && mag > 0 ? static_cast<int>(std::ceil(std::log10(mag / step))) + 2 : 4;
    return QString::number(v, 'g', std::clamp(digits, 3, 10));
}

} // namespace

LineChart::LineChart(QWidget* parent)
    : QWidget(parent)
{
    setMinimumSize(260, 160);
}

void LineChart::setSeries(std::vector<Series> series, const QString& xLabel, const QString& yLabel)
{
    for (Series& s : series)
        std::erase_if(s.points, [](QPointF p) { return !std::isfinite(p.x()) || !std::isfinite(p.y()); });
    m_series = std::move(series);
    m_xLabel = xLabel;
    m_yLabel = yLabel;
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const Series& s : m_series)
        for (QPointF p : s.points) {
            x0 = std::min(x0, p.x());
            x1 = std::max(x1, p.x());
            y0 = std::min(y0, p.y());
            y1 = std::max(y1, p.y());
        }
    if (!std::isfinite(x0)) {
        x0 = y0 = 0;
        x1 = y1 = 1;
    }
    if (x1 - x0 < 1e-12)
        x1 = x0 + 1;
    const double pad = (y1 - y0) < 1e-12 ? std::max(1e-3, std::abs(y0) * 0.05) : (y1 - y0) * 0.05;
    m_range = QRectF(QPointF(x0, y0 - pad), QPointF(x1, y1 + pad));
    update();
}

QRectF LineChart::plotRect(const QRectF& box) const { return box.adjusted(56, 14, -150, -34); }

QPointF LineChart::toBox(QPointF d, const QRectF& plot) const
{
    return {plot.left() + (d.x() - m_range.left()) / m_range.width() * plot.width(),
            plot.bottom() - (d.y() - m_range.top()) / m_range.height() * plot.height()};
}

QPointF LineChart::toWidget(QPointF data) const { return toBox(data, plotRect(QRectF(rect()))); }

void LineChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), Qt::white);
    const QRectF plot = plotRect(QRectF(rect()));
    p.setPen(QPen(Qt::gray, 1));
    p.drawRect(plot);
    p.setPen(Qt::darkGray);
    for (int t = 0; t <= 4; ++t) {
        const double fx = m_range.left() + m_range.width() * t / 4, fy = m_range.top() + m_range.height() * t / 4;
        const QPointF bx = toBox({fx, m_range.top()}, plot), by = toBox({m_range.left(), fy}, plot);
        p.drawText(QRectF(bx.x() - 40, plot.bottom() + 2, 80, 14), Qt::AlignHCenter, tick(fx, m_range.width() / 4));
        p.drawText(QRectF(2, by.y() - 7, 52, 14), Qt::AlignRight, tick(fy, m_range.height() / 4));
    }
    p.drawText(QRectF(plot.left(), plot.bottom() + 16, plot.width(), 16), Qt::AlignHCenter, m_xLabel);
    p.drawText(QRectF(plot.left(), 0, plot.width(), 14), Qt::AlignLeft, m_yLabel);
    p.setClipRect(plot.adjusted(-2, -2, 2, 2));
    for (const Series& s : m_series) {
        if (s.points.empty())
            continue;
        QPainterPath path(toBox(s.points.front(), plot));
        for (std::size_t i = 1; i < s.points.size(); ++i)
            path.lineTo(toBox(s.points[i], plot));
        p.setPen(QPen(s.color, 2));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setBrush(s.color);
        for (QPointF d : s.points)
            p.drawEllipse(toBox(d, plot), 2.5, 2.5);
    }
    p.setClipping(false);
    double ly = plot.top();
    for (const Series& s : m_series) {
        p.fillRect(QRectF(plot.right() + 10, ly + 3, 12, 8), s.color);
        p.setPen(Qt::black);
        p.drawText(QRectF(plot.right() + 26, ly - 2, 130, 16), Qt::AlignLeft, s.name);
        ly += 16;
    }
}

void LineChart::drawSvg(SvgWriter& svg, const QRectF& box) const
{
    const QRectF plot = plotRect(box);
    svg.rect(plot, Qt::transparent, Qt::gray, 1);
    for (int t = 0; t <= 4; ++t) {
        const double fx = m_range.left() + m_range.width() * t / 4, fy = m_range.top() + m_range.height() * t / 4;
        const QPointF bx = toBox({fx, m_range.top()}, plot), by = toBox({m_range.left(), fy}, plot);
        svg.text(QPointF(bx.x(), plot.bottom() + 14), tick(fx, m_range.width() / 4), 10, Qt::darkGray, QStringLiteral("middle"));
        svg.text(QPointF(plot.left() - 4, by.y() + 4), tick(fy, m_range.height() / 4), 10, Qt::darkGray, QStringLiteral("end"));
    }
    svg.text(QPointF(plot.center().x(), plot.bottom() + 28), m_xLabel, 11, Qt::darkGray, QStringLiteral("middle"));
    svg.text(QPointF(plot.left(), plot.top() - 3), m_yLabel, 11, Qt::darkGray);
    double ly = plot.top();
    for (const Series& s : m_series) {
        std::vector<QPointF> pts;
        for (QPointF d : s.points)
            pts.push_back(toBox(d, plot));
        svg.polyline(pts, s.color, 2);
        for (QPointF q : pts)
            svg.circle(q, 2.5, s.color);
        svg.rect(QRectF(plot.right() + 10, ly + 3, 12, 8), s.color);
        svg.text(QPointF(plot.right() + 26, ly + 11), s.name, 11);
        ly += 16;
    }
}

} // namespace setscope::gui
