// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>

namespace setscope::gui {

/// Where a 2-D map is looked at from: the map point at the viewport's centre and the zoom
/// (logical pixels per map unit, the same in x and y). "Map" coordinates have y up;
/// "widget" coordinates are logical pixels with y down and (0, 0) at the top-left:
/// mapToWidget(p) = viewport centre + (p - center()) * zoom(), y flipped.
/// A plain value (no Qt object, no GL): any view that shows points on a plane can hold one.
class MapCamera {
public:
    /// Fit leaves this many logical pixels between the outermost points and the edge.
    static constexpr double kFitMargin = 40.0;

    void setViewport(QSizeF logicalSize) { m_viewport = logicalSize; }
    QSizeF viewport() const { return m_viewport; }
    QPointF center() const { return m_center; }
    double zoom() const { return m_zoom; }
    void setCenter(QPointF c) { m_center = c; }
    /// Clamped to [1e-9, 1e9].
    void setZoom(double zoom);

    QPointF mapToWidget(QPointF p) const;
    QPointF widgetToMap(QPointF w) const;

    /// Centres the map rectangle `bounds` (x0 = left(), x1 = right(), y0 = top(), y1 =
    /// bottom(): plain min/max, whatever the y direction) and zooms so that it fills the
    /// viewport minus `margin` on each side. An empty extent counts as 1e-9 wide.
    void fit(const QRectF& bounds, double margin = kFitMargin);
    /// Moves the map with the mouse: a drag of `widgetDelta` pixels.
    void panBy(QPointF widgetDelta);
    /// Multiplies the zoom by `factor`, keeping the map point under `widgetPos` in place.
    void zoomAbout(QPointF widgetPos, double factor);

private:
    QSizeF m_viewport{1.0, 1.0};
    QPointF m_center{0.0, 0.0};
    double m_zoom = 1.0;
};

} // namespace setscope::gui
