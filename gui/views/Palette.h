// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QColor>

#include <array>

namespace setscope::gui {

/// Class colours shared by the map, its legend and the dataset panel's table, so a class
/// has one colour everywhere. Class c gets colour c mod size(); unlabelled items are gray.
class Palette {
public:
    static constexpr int kSize = 20;

    /// Colour of class `classId` (kUnlabelled / negative: unlabelled()).
    static QColor color(int classId);
    static QColor unlabelled();
    /// RGB in [0, 1], kSize entries, for a shader's uniform array.
    static const std::array<float, 3 * kSize>& rgb();
    /// Sequential colour map for numeric columns: viridis (its 9 evenly spaced samples,
    /// interpolated linearly in RGB), t in [0, 1] (clamped); NaN: unlabelled().
    static QColor sequential(double t);
    /// Background of the map (also what tests look for).
    static QColor mapBackground();
};

} // namespace setscope::gui
