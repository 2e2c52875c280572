// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace setscope::gui {

/// A uniform grid over 2-D points (map coordinates) for picking and rubber-band selection
/// without a scan of every point per mouse move: about two points per cell, so a pick
/// looks at the few cells a small disc overlaps. Built in O(n) (a counting sort of the
/// points by cell); a million points take tens of milliseconds, once per new layout.
/// Plain C++, no Qt; the points are copied (the caller's buffer may change afterwards).
/// Whether (x, y) lies inside the polygon `xy` (m x 2, closed implicitly), even-odd rule.
/// Points exactly on an edge may go either way.
bool pointInPolygon(double x, double y, const double* xy, std::size_t m);

class PointIndex {
public:
    /// Indexes n points (xy: n x 2, row-major). Non-finite points are never found.
    void build(const float* xy, std::size_t n);
    std::size_t size() const { return m_n; }
    bool empty() const { return m_n == 0; }

    /// The point nearest to (x, y) within `radius` (inclusive), or -1. Among equally near
    /// points the one with the highest index wins: it is drawn last, so on top.
    std::int64_t nearest(double x, double y, double radius) const;
    /// The points inside the axis-aligned rectangle (corners in any order, edges
    /// inclusive), ascending.
    std::vector<std::int64_t> inRect(double x0, double y0, double x1, double y1) const;
    /// The points inside the polygon `xy` (m vertices, m x 2 row-major, closed implicitly;
    /// even-odd rule, so a self-crossing lasso works as drawn), ascending. Only the cells
    /// the polygon's bounding box overlaps are looked at. Fewer than 3 vertices: none.
    std::vector<std::int64_t> inPolygon(const std::vector<double>& xy) const;
    /// The k points nearest to point i (i itself excluded; non-finite points never found),
    /// nearest first, ties by index. Looks at rings of cells around i's cell until the k-th
    /// distance is inside the rings searched; fewer than k when there are fewer points.
    std::vector<std::int64_t> kNearest(std::size_t i, std::size_t k) const;

private:
    int cellX(double x) const;
    int cellY(double y) const;

    std::size_t m_n = 0;
    std::vector<float> m_xy;
    double m_minX = 0, m_minY = 0, m_cell = 1;
    int m_cols = 0, m_rows = 0;
    std::vector<std::uint32_t> m_cellStart; ///< m_cols * m_rows + 1 offsets into m_order
    std::vector<std::uint32_t> m_order;     ///< point indices grouped by cell, ascending within a cell
};

/// For each of n points (xy: n x 2), the share of its k nearest other points
/// (PointIndex::kNearest) whose label equals its own (`labels`: one per point, < 0 =
/// unlabelled). NaN for unlabelled points and points without neighbours. `stop`, when set,
/// is asked every 4 096 points; when it returns true the result is empty. A million points
/// take seconds: call it off the GUI thread.
std::vector<float> neighbourAgreement(const float* xy, const std::vector<std::int32_t>& labels, std::size_t k,
                                      const std::function<bool()>& stop = {});

} // namespace setscope::gui
