// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

namespace setscope::gui {

/// A standalone SVG 1.1 document built from shapes (Qt's SVG module is not part of the
/// stack here, so the views write their vector form with this). Coordinates in pixels, y down.
class SvgWriter {
public:
    SvgWriter(double width, double height, const QColor& background = Qt::white);

    void line(QPointF a, QPointF b, const QColor& color, double width, double opacity = 1.0);
    void circle(QPointF centre, double radius, const QColor& fill, const QColor& stroke = Qt::transparent,
                double strokeWidth = 0.0, double opacity = 1.0);
    void rect(const QRectF& r, const QColor& fill, const QColor& stroke = Qt::transparent, double strokeWidth = 0.0);
    /// `anchor`: "start", "middle" or "end"; `bold` for headers.
    void text(QPointF at, const QString& text, double size = 12.0, const QColor& color = Qt::black,
              const QString& anchor = QStringLiteral("start"), bool bold = false);
    /// A polyline through `points`.
    void polyline(const std::vector<QPointF>& points, const QColor& color, double width);

    /// A table: a bold header row, then rows; `rowColors` (may be shorter) tints row i.
    /// Returns the height used. Column widths from the longest cell (7 px per character).
    double table(QPointF topLeft, const QString& title, const QStringList& headers, const std::vector<QStringList>& rows,
                 const std::vector<QColor>& rowColors = {});

    QString finish() const;

    static QString escape(const QString& text);
    static QString color(const QColor& c);

private:
    double m_width, m_height;
    QString m_body;
};

} // namespace setscope::gui
