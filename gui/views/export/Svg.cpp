// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/export/Svg.h"

#include <algorithm>

namespace setscope::gui {

namespace {
QString num(double v) { return QString::number(v, 'f', 2); }
} // namespace

SvgWriter::SvgWriter(double width, double height, const QColor& background)
    : m_width(width)
    , m_height(height)
{
    if (background.alpha() > 0)
        rect(QRectF(0, 0, width, height), background);
}

QString SvgWriter::escape(const QString& text) { return text.toHtmlEscaped(); }

QString SvgWriter::color(const QColor& c) { return c.name(QColor::HexRgb); }

void SvgWriter::line(QPointF a, QPointF b, const QColor& c, double width, double opacity)
{
    m_body += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%4\" stroke=\"%5\" stroke-width=\"%6\" "
                             "stroke-opacity=\"%7\" stroke-linecap=\"round\"/>\n")
                  .arg(num(a.x()), num(a.y()), num(b.x()), num(b.y()), color(c), num(width), num(opacity * c.alphaF()));
}

void SvgWriter::circle(QPointF centre, double radius, const QColor& fill, const QColor& stroke, double strokeWidth,
                       double opacity)
{
    m_body += QStringLiteral("<circle cx=\"%1\" cy=\"%2\" r=\"%3\" fill=\"%4\" fill-opacity=\"%5\"")
                  .arg(num(centre.x()), num(centre.y()), num(radius), color(fill), num(opacity * fill.alphaF()));
    if (stroke.alpha() > 0 && strokeWidth > 0)
        m_body += QStringLiteral(" stroke=\"%1\" stroke-width=\"%2\"").arg(color(stroke), num(strokeWidth));
    m_body += QStringLiteral("/>\n");
}

void SvgWriter::rect(const QRectF& r, const QColor& fill, const QColor& stroke, double strokeWidth)
{
    m_body += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" fill=\"%5\" fill-opacity=\"%6\"")
                  .arg(num(r.x()), num(r.y()), num(r.width()), num(r.height()),
                       fill.alpha() > 0 ? color(fill) : QStringLiteral("none"), num(fill.alphaF()));
    if (stroke.alpha() > 0 && strokeWidth > 0)
        m_body += QStringLiteral(" stroke=\"%1\" stroke-width=\"%2\"").arg(color(stroke), num(strokeWidth));
    m_body += QStringLiteral("/>\n");
}

void SvgWriter::text(QPointF at, const QString& t, double size, const QColor& c, const QString& anchor, bool bold)
{
    m_body += QStringLiteral("<text x=\"%1\" y=\"%2\" font-family=\"sans-serif\" font-size=\"%3\" fill=\"%4\" "
                             "text-anchor=\"%5\"%6>%7</text>\n")
                  .arg(num(at.x()), num(at.y()), num(size), color(c), anchor,
                       bold ? QStringLiteral(" font-weight=\"bold\"") : QString(), escape(t));
}

void SvgWriter::polyline(const std::vector<QPointF>& points, const QColor& c, double width)
{
    if (points.size() < 2)
        return;
    QString pts;
    for (const QPointF& p : points)
        pts += num(p.x()) + QLatin1Char(',') + num(p.y()) + QLatin1Char(' ');
    m_body += QStringLiteral("<polyline points=\"%1\" fill=\"none\" stroke=\"%2\" stroke-width=\"%3\" "
                             "stroke-linejoin=\"round\"/>\n")
                  .arg(pts.trimmed(), color(c), num(width));
}

double SvgWriter::table(QPointF topLeft, const QString& title, const QStringList& headers,
                        const std::vector<QStringList>& rows, const std::vector<QColor>& rowColors)
{
    constexpr double kRow = 18.0, kChar = 7.0, kPad = 10.0;
    std::vector<double> widths(static_cast<std::size_t>(headers.size()), 0.0);
    auto measure = [&](const QStringList& cells) {
        for (qsizetype c = 0; c < cells.size() && c < headers.size(); ++c)
            widths[static_cast<std::size_t>(c)] =
                std::max(widths[static_cast<std::size_t>(c)], static_cast<double>(cells[c].size()) * kChar + kPad);
    };
    measure(headers);
    for (const QStringList& r : rows)
        measure(r);
    double y = topLeft.y();
    if (!title.isEmpty()) {
        text(QPointF(topLeft.x(), y + 14), title, 13, Qt::black, QStringLiteral("start"), true);
        y += kRow + 4;
    }
    auto rowText = [&](const QStringList& cells, double at, bool bold) {
        double x = topLeft.x();
        for (qsizetype c = 0; c < cells.size() && c < headers.size(); ++c) {
            text(QPointF(x + 3, at + 13), cells[c], 11, Qt::black, QStringLiteral("start"), bold);
            x += widths[static_cast<std::size_t>(c)];
        }
    };
    double total = 0;
    for (double w : widths)
        total += w;
    rect(QRectF(topLeft.x(), y, total, kRow), QColor(0xe8, 0xe8, 0xe8));
    rowText(headers, y, true);
    y += kRow;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (r < rowColors.size() && rowColors[r].alpha() > 0)
            rect(QRectF(topLeft.x(), y, total, kRow), rowColors[r]);
        rowText(rows[r], y, false);
        y += kRow;
    }
    return y - topLeft.y();
}

QString SvgWriter::finish() const
{
    return QStringLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%1\" height=\"%2\" "
                          "viewBox=\"0 0 %1 %2\">\n%3</svg>\n")
        .arg(num(m_width), num(m_height), m_body);
}

} // namespace setscope::gui
