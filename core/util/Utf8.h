// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// UTF-8 under one rule (RFC 3629 §3): a code point is encoded in its shortest form, is at most
// U+10FFFF and is not a UTF-16 surrogate (U+D800..U+DFFF); a sequence cut short by the end of
// the text or by a byte that is not a continuation byte is invalid. Every reader of outside
// text (the tokenizer, the fetchers, the corpus writer, word vectors) decodes through here.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace setscope::util {

/// What decodeUtf8() gives for a byte that does not start a valid sequence.
inline constexpr char32_t kInvalidCodePoint = static_cast<char32_t>(-1);

/// Decodes the code point that starts at s[i] (i < s.size()). Returns its length in bytes (1 to
/// 4) with `cp` set; for an invalid byte returns 1 with cp = kInvalidCodePoint, so that a
/// caller that goes on resynchronises at the next byte.
inline int decodeUtf8(std::string_view s, std::size_t i, char32_t& cp)
{
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    int len = 0;
    char32_t v = 0;
    char32_t min = 0;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2;
        v = b0 & 0x1F;
        min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3;
        v = b0 & 0x0F;
        min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4;
        v = b0 & 0x07;
        min = 0x10000;
    } else { // a continuation byte, or 0xF8..0xFF
        cp = kInvalidCodePoint;
        return 1;
    }
    if (i + static_cast<std::size_t>(len) > s.size()) {
        cp = kInvalidCodePoint;
        return 1;
    }
    for (int k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
        if ((b & 0xC0) != 0x80) {
            cp = kInvalidCodePoint;
            return 1;
        }
        v = (v << 6) | (b & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        cp = kInvalidCodePoint;
        return 1;
    }
    cp = v;
    return len;
}

/// True when all of `s` is valid UTF-8 under decodeUtf8()'s rule.
inline bool isValidUtf8(std::string_view s)
{
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp;
        i += static_cast<std::size_t>(decodeUtf8(s, i, cp));
        if (cp == kInvalidCodePoint)
            return false;
    }
    return true;
}

/// Appends code point `cp` (at most U+10FFFF) to `out` as UTF-8.
inline void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

} // namespace setscope::util
