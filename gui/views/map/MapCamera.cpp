// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/map/MapCamera.h"

#include <algorithm>

namespace setscope::gui {

void MapCamera::setZoom(double zoom) { m_zoom = std::clamp(zoom, 1e-9, 1e9); }

QPointF MapCamera::mapToWidget(QPointF p) const
{
    return {m_viewport.width() / 2.0 + (p.x() - m_center.x()) * m_zoom,
            m_viewport.height() / 2.0 - (p.y() - m_center.y()) * m_zoom};
}

QPointF MapCamera::widgetToMap(QPointF w) const
{
    return {m_center.x() + (w.x() - m_viewport.width() / 2.0) / m_zoom,
            m_center.y() - (w.y() - m_viewport.height() / 2.0) / m_zoom};
}

void MapCamera::fit(const QRectF& bounds, double margin)
{
    const double bw = std::max(bounds.width(), 1e-9), bh = std::max(bounds.height(), 1e-9);
    const double w = std::max(1.0, m_viewport.width() - 2.0 * margin);
    const double h = std::max(1.0, m_viewport.height() - 2.0 * margin);
    m_zoom = std::min(w / bw, h / bh);
    m_center = QPointF((bounds.left() + bounds.right()) / 2.0, (bounds.top() + bounds.bottom()) / 2.0);
}

void MapCamera::panBy(QPointF d) { m_center += QPointF(-d.x() / m_zoom, d.y() / m_zoom); }

void MapCamera::zoomAbout(QPointF pos, double factor)
{
    const QPointF anchor = widgetToMap(pos);
    setZoom(m_zoom * factor);
    m_center = QPointF(anchor.x() - (pos.x() - m_viewport.width() / 2.0) / m_zoom,
                       anchor.y() + (pos.y() - m_viewport.height() / 2.0) / m_zoom);
}

} // namespace setscope::gui
