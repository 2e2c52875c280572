// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Overflow-checked arithmetic for sizes read from files. A reader multiplies counts and
// dimensions a header declares; a crafted header makes the plain product wrap around to
// a small number that passes every later check. Every such product goes through here.

#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

namespace setscope::util {

/// a * b, or nullopt when the exact product does not fit in T.
template <class T>
constexpr std::optional<T> checkedMul(T a, T b) noexcept
{
    static_assert(std::is_integral_v<T>);
    T r{};
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

/// a + b, or nullopt when the exact sum does not fit in T.
template <class T>
constexpr std::optional<T> checkedAdd(T a, T b) noexcept
{
    static_assert(std::is_integral_v<T>);
    T r{};
    if (__builtin_add_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

/// The exact product of all `factors` (1 for none), or nullopt when it does not fit in T.
/// A zero factor makes the product 0 wherever it stands (the answer does not depend on
/// the order of the factors).
template <class T>
constexpr std::optional<T> checkedProduct(std::span<const T> factors) noexcept
{
    static_assert(std::is_integral_v<T>);
    for (T f : factors)
        if (f == 0)
            return T{0};
    T r{1};
    for (T f : factors) {
        const std::optional<T> next = checkedMul(r, f);
        if (!next)
            return std::nullopt;
        r = *next;
    }
    return r;
}

/// `v` converted to To when its value is representable there (no truncation, no change
/// of sign), else nullopt. For file-provided sizes headed for an int.
template <class To, class From>
constexpr std::optional<To> checkedCast(From v) noexcept
{
    static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
    if (!std::in_range<To>(v))
        return std::nullopt;
    return static_cast<To>(v);
}

/// True when `count` records of at least `minBytesEach` bytes fit in `available` bytes
/// (false when count * minBytesEach overflows). The bound a reader checks before it
/// allocates room for `count` records because a header says so.
constexpr bool fitsInBytes(std::uint64_t count, std::uint64_t minBytesEach, std::uint64_t available) noexcept
{
    const std::optional<std::uint64_t> need = checkedMul(count, minBytesEach);
    return need && *need <= available;
}

} // namespace setscope::util
