// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/Palette.h"

namespace setscope::gui {

namespace {

// Tableau 10, then lighter companions: readable on the dark map, and the first ten are
// distinct for the common 10-class datasets.
constexpr std::array<unsigned, Palette::kSize> kColors = {
    0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac,
    0xa0cbe8, 0xffbe7d, 0x8cd17d, 0xb6992d, 0x499894, 0x86bcb6, 0xd37295, 0xfabfd2, 0xd4a6c8, 0x79706e,
};

} // namespace

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
