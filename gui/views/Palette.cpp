// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/Palette.h"

#include <algorithm>
#include <cmath>

namespace setscope::gui {

namespace {

// Tableau 10, then lighter companions: readable on the dark map, and the first ten are
// distinct for the common 10-class datasets.
constexpr std::array<unsigned, Palette::kSize> kColors = {
    0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac,
    0xa0cbe8, 0xffbe7d, 0x8cd17d, 0xb6992d, 0x499894, 0x86bcb6, 0xd37295, 0xfabfd2, 0xd4a6c8, 0x79706e,
};

// viridis at 0, 1/8, ..., 1 (matplotlib's map, as R's viridisLite::viridis(9) lists it).
constexpr std::array<unsigned, 9> kViridis = {0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21908c,
                                              0x27ad81, 0x5dc863, 0xaadc32, 0xfde725};

} // namespace

QColor Palette::sequential(double t)
{
    if (!(t == t))
        return unlabelled();
    t = std::clamp(t, 0.0, 1.0) * double(kViridis.size() - 1);
    const std::size_t k = std::min(static_cast<std::size_t>(t), kViridis.size() - 2);
    const double f = t - double(k);
    const QColor a = QColor::fromRgb(kViridis[k]), b = QColor::fromRgb(kViridis[k + 1]);
    auto mix = [f](int u, int v) { return static_cast<int>(std::lround(u + (v - u) * f)); };
    return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

QColor Palette::color(int classId)
{
    if (classId < 0)
        return unlabelled();
    return QColor::fromRgb(kColors[static_cast<std::size_t>(classId % kSize)]);
}

QColor Palette::unlabelled() { return QColor(110, 112, 118); }

const std::array<float, 3 * Palette::kSize>& Palette::rgb()
{
    static const std::array<float, 3 * kSize> values = [] {
        std::array<float, 3 * kSize> v{};
        for (int i = 0; i < kSize; ++i) {
            const QColor c = QColor::fromRgb(kColors[static_cast<std::size_t>(i)]);
            v[static_cast<std::size_t>(3 * i)] = static_cast<float>(c.redF());
            v[static_cast<std::size_t>(3 * i + 1)] = static_cast<float>(c.greenF());
            v[static_cast<std::size_t>(3 * i + 2)] = static_cast<float>(c.blueF());
        }
        return v;
    }();
    return values;
}

QColor Palette::mapBackground() { return QColor(28, 30, 36); }

} // namespace setscope::gui
