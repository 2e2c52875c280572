// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QColor>
#include <QPointF>
#include <QString>
#include <QWidget>

#include <vector>

namespace setscope::gui {

class SvgWriter;

/// Overlaid line series on shared axes (x: epoch or step; y: a metric), with a legend.
/// Non-finite values are skipped. QPainter; the same picture as SVG with drawSvg().
class LineChart final : public QWidget {
    Q_OBJECT
public:
    struct Series {
        QString name;
        QColor color;
        std::vector<QPointF> points; ///< ascending x
    };

    explicit LineChart(QWidget* parent = nullptr);
    void setSeries(std::vector<Series> series, const QString& xLabel, const QString& yLabel);
    const std::vector<Series>& series() const { return m_series; }
    /// The data range shown (after padding), for tests.
    QRectF dataRange() const { return m_range; }
    /// Widget position of a data point in the current size.
    QPointF toWidget(QPointF data) const;
    void drawSvg(SvgWriter& svg, const QRectF& box) const;
    QSize sizeHint() const override { return {480, 260}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    QRectF plotRect(const QRectF& box) const;
    QPointF toBox(QPointF data, const QRectF& plot) const;

    std::vector<Series> m_series;
    QString m_xLabel, m_yLabel;
    QRectF m_range{0, 0, 1, 1};
};

} // namespace setscope::gui
