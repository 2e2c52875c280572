// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

namespace setscope::gui {

class SvgWriter;

/// A set drawn as points in 2-D (its elements' first two principal axes, or their
/// coordinates): each element a disc of area by weight, in a colour of its own; marked
/// elements get a rim. For point clouds and pixel sets, where words would say nothing.
class SetGlyph final : public QWidget {
    Q_OBJECT
public:
    struct Point {
        float x = 0, y = 0;
        float weight = 1;
        QColor color;
        bool marked = false;
    };

    explicit SetGlyph(QWidget* parent = nullptr);
    void setPoints(std::vector<Point> points, const QString& caption = {});
    const std::vector<Point>& points() const { return m_points; }
    /// Widget position of point i in the last layout (for tests).
    QPointF position(std::size_t i) const;
    /// Draws the same picture into `svg` inside `box`.
    void drawSvg(SvgWriter& svg, const QRectF& box) const;
    QSize sizeHint() const override { return {260, 220}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    QPointF place(const Point& p, const QRectF& box) const;
    double radius(const Point& p) const;

    std::vector<Point> m_points;
    QString m_caption;
    float m_minX = 0, m_maxX = 1, m_minY = 0, m_maxY = 1, m_maxWeight = 1;
};

} // namespace setscope::gui
