// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Numeric helpers: an index as std::size_t (sz) and +infinity. Shared by several translation units (one definition each, so that unity
// builds can put those units together).

#include <cstddef>
#include <cstdint>
#include <limits>

namespace setscope::util {

/// A non-negative index or count as std::size_t (for vector subscripts).
constexpr std::size_t sz(std::int64_t v) noexcept { return static_cast<std::size_t>(v); }

/// +infinity as a double.
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

} // namespace setscope::util
