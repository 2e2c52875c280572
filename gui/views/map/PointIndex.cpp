// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/map/PointIndex.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace setscope::gui {

void PointIndex::build(const float* xy, std::size_t n)
{
    if (n > std::numeric_limits<std::uint32_t>::max() - 1)
        throw std::length_error("PointIndex: too many points");
    m_n = n;
    m_xy.assign(xy, xy + 2 * n);
    double minX = std::numeric_limits<double>::infinity(), minY = minX;
    double maxX = -minX, maxY = -minX;
    std::size_t finite = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double x = m_xy[2 * i], y = m_xy[2 * i + 1];
        if (!std::isfinite(x) || !std::isfinite(y))
            continue;
        ++finite;
        minX = std::min(minX, x);
        maxX = std::max(maxX, x);
        minY = std::min(minY, y);
        maxY = std::max(maxY, y);
    }
    if (finite == 0) {
        m_cols = m_rows = 0;
        m_cellStart.assign(1, 0);
        m_order.clear();
        return;
    }
    // Square cells, about two points per cell over the bounding box, at most 4096 a side.
    const double w = std::max(maxX - minX, 1e-12), h = std::max(maxY - minY, 1e-12);
    const double cells = std::max(1.0, static_cast<double>(finite) / 2.0);
    m_cell = std::max(std::sqrt(w * h / cells), std::max(w, h) / 4096.0);
    m_minX = minX;
    m_minY = minY;
    m_cols = std::clamp(static_cast<int>(std::floor(w / m_cell)) + 1, 1, 4097);
    m_rows = std::clamp(static_cast<int>(std::floor(h / m_cell)) + 1, 1, 4097);

    // Counting sort by cell; within a cell the indices stay ascending.
    const std::size_t nc = static_cast<std::size_t>(m_cols) * static_cast<std::size_t>(m_rows);
    m_cellStart.assign(nc + 1, 0);
    std::vector<std::uint32_t> cellOf(n, std::numeric_limits<std::uint32_t>::max());
    for (std::size_t i = 0; i < n; ++i) {
        const double x = m_xy[2 * i], y = m_xy[2 * i + 1];
        if (!std::isfinite(x) || !std::isfinite(y))
            continue;
        const std::size_t c = static_cast<std::size_t>(cellY(y)) * static_cast<std::size_t>(m_cols) + cellX(x);
        cellOf[i] = static_cast<std::uint32_t>(c);
        ++m_cellStart[c + 1];
    }
    for (std::size_t c = 0; c < nc; ++c)
        m_cellStart[c + 1] += m_cellStart[c];
    m_order.assign(finite, 0);
    std::vector<std::uint32_t> fill(m_cellStart.begin(), m_cellStart.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
        if (cellOf[i] != std::numeric_limits<std::uint32_t>::max())
            m_order[fill[cellOf[i]]++] = static_cast<std::uint32_t>(i);
}

// Clamped in double first: a query far outside the map (a rubber band past the edge of a
// zoomed view) would overflow the int conversion.
int PointIndex::cellX(double x) const
{
    return static_cast<int>(std::clamp(std::floor((x - m_minX) / m_cell), 0.0, double(m_cols - 1)));
}

int PointIndex::cellY(double y) const
{
    return static_cast<int>(std::clamp(std::floor((y - m_minY) / m_cell), 0.0, double(m_rows - 1)));
}

std::int64_t PointIndex::nearest(double x, double y, double radius) const
{
    if (m_cols == 0 || !(radius >= 0.0) || !std::isfinite(x) || !std::isfinite(y))
        return -1;
    // Cells the disc's bounding box overlaps (clamped: points outside the grid do not exist).
    const double maxX = m_minX + m_cols * m_cell, maxY = m_minY + m_rows * m_cell;
    if (x + radius < m_minX || x - radius > maxX || y + radius < m_minY || y - radius > maxY)
        return -1;
    const int c0 = cellX(x - radius), c1 = cellX(x + radius);
    const int r0 = cellY(y - radius), r1 = cellY(y + radius);
    double best = radius * radius;
    std::int64_t found = -1;
    for (int r = r0; r <= r1; ++r)
        for (int c = c0; c <= c1; ++c) {
            const std::size_t cell = static_cast<std::size_t>(r) * static_cast<std::size_t>(m_cols) + c;
            for (std::uint32_t k = m_cellStart[cell]; k < m_cellStart[cell + 1]; ++k) {
                const std::uint32_t i = m_order[k];
                const double dx = m_xy[2 * i] - x, dy = m_xy[2 * i + 1] - y;
                const double d2 = dx * dx + dy * dy;
                if (d2 < best || (d2 == best && static_cast<std::int64_t>(i) > found)) {
                    best = d2;
                    found = i;
                }
            }
        }
    return found;
}

std::vector<std::int64_t> PointIndex::inRect(double x0, double y0, double x1, double y1) const
{
    std::vector<std::int64_t> out;
    if (x0 > x1)
        std::swap(x0, x1);
    if (y0 > y1)
        std::swap(y0, y1);
    if (m_cols == 0 || !std::isfinite(x0) || !std::isfinite(x1) || !std::isfinite(y0) || !std::isfinite(y1))
        return out;
    const double maxX = m_minX + m_cols * m_cell, maxY = m_minY + m_rows * m_cell;
    if (x1 < m_minX || x0 > maxX || y1 < m_minY || y0 > maxY)
        return out;
    const int c0 = cellX(x0), c1 = cellX(x1), r0 = cellY(y0), r1 = cellY(y1);
    for (int r = r0; r <= r1; ++r)
        for (int c = c0; c <= c1; ++c) {
            const std::size_t cell = static_cast<std::size_t>(r) * static_cast<std::size_t>(m_cols) + c;
            for (std::uint32_t k = m_cellStart[cell]; k < m_cellStart[cell + 1]; ++k) {
                const std::uint32_t i = m_order[k];
                const double x = m_xy[2 * i], y = m_xy[2 * i + 1];
                if (x >= x0 && x <= x1 && y >= y0 && y <= y1)
                    out.push_back(i);
            }
        }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::int64_t> PointIndex::kNearest(std::size_t i, std::size_t k) const
{
    std::vector<std::int64_t> out;
    if (i >= m_n || k == 0 || m_cols == 0)
        return out;
    const double x = m_xy[2 * i], y = m_xy[2 * i + 1];
    if (!std::isfinite(x) || !std::isfinite(y))
        return out;
    const int cx = cellX(x), cy = cellY(y);
    std::vector<std::pair<double, std::uint32_t>> cand;
    auto visit = [&](int c, int r) {
        if (c < 0 || r < 0 || c >= m_cols || r >= m_rows)
            return;
        const std::size_t cell = static_cast<std::size_t>(r) * static_cast<std::size_t>(m_cols) + c;
        for (std::uint32_t q = m_cellStart[cell]; q < m_cellStart[cell + 1]; ++q) {
            const std::uint32_t j = m_order[q];
            if (j == i)
                continue;
            const double dx = m_xy[2 * j] - x, dy = m_xy[2 * j + 1] - y;
            cand.emplace_back(dx * dx + dy * dy, j);
        }
    };
    const int maxRing = std::max(m_cols, m_rows);
    for (int ring = 0; ring <= maxRing; ++ring) {
        if (ring == 0) {
            visit(cx, cy);
        } else {
            for (int c = cx - ring; c <= cx + ring; ++c) {
                visit(c, cy - ring);
                visit(c, cy + ring);
            }
            for (int r = cy - ring + 1; r <= cy + ring - 1; ++r) {
                visit(cx - ring, r);
                visit(cx + ring, r);
            }
        }
        // Every point outside rings 0..ring is at least ring cells away from (x, y).
        if (cand.size() >= k) {
            std::nth_element(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(k - 1), cand.end());
            const double reach = ring * m_cell;
            if (cand[k - 1].first <= reach * reach)
                break;
        }
    }
    std::sort(cand.begin(), cand.end());
    for (std::size_t q = 0; q < std::min(k, cand.size()); ++q)
        out.push_back(cand[q].second);
    return out;
}

bool pointInPolygon(double x, double y, const double* xy, std::size_t m)
{
    bool inside = false;
    for (std::size_t i = 0, j = m - 1; i < m; j = i++) {
        const double xi = xy[2 * i], yi = xy[2 * i + 1], xj = xy[2 * j], yj = xy[2 * j + 1];
        if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi)
            inside = !inside;
    }
    return inside;
}

std::vector<std::int64_t> PointIndex::inPolygon(const std::vector<double>& xy) const
{
    const std::size_t m = xy.size() / 2;
    if (m < 3)
        return {};
    double x0 = xy[0], x1 = xy[0], y0 = xy[1], y1 = xy[1];
    for (std::size_t i = 1; i < m; ++i) {
        x0 = std::min(x0, xy[2 * i]);
        x1 = std::max(x1, xy[2 * i]);
        y0 = std::min(y0, xy[2 * i + 1]);
        y1 = std::max(y1, xy[2 * i + 1]);
    }
    std::vector<std::int64_t> out = inRect(x0, y0, x1, y1);
    std::erase_if(out, [&](std::int64_t i) {
        return !pointInPolygon(m_xy[2 * static_cast<std::size_t>(i)], m_xy[2 * static_cast<std::size_t>(i) + 1], xy.data(), m);
    });
    return out;
}

std::vector<float> neighbourAgreement(const float* xy, const std::vector<std::int32_t>& labels, std::size_t k,
                                      const std::function<bool()>& stop)
{
    const std::size_t n = labels.size();
    std::vector<float> out(n, std::numeric_limits<float>::quiet_NaN());
    PointIndex index;
    index.build(xy, n);
    for (std::size_t v = 0; v < n; ++v) {
        if (stop && v % 4096 == 0 && stop())
            return {};
        const std::int32_t label = labels[v];
        if (label < 0)
            continue;
        const std::vector<std::int64_t> nn = index.kNearest(v, k);
        if (nn.empty())
            continue;
        std::size_t same = 0;
        for (const std::int64_t u : nn)
            same += labels[static_cast<std::size_t>(u)] == label;
        out[v] = static_cast<float>(same) / static_cast<float>(nn.size());
    }
    return out;
}

} // namespace setscope::gui
