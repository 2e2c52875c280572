// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The one UTF-8 rule (core/util/Utf8.h) against RFC 3629's definition, enumerated: a byte string
// of one to three bytes (every one of them), or a four-byte one with a 0xF0..0xFF lead and
// continuation bytes after it, is valid exactly when it is the concatenation of shortest-form
// encodings of scalar values (U+0000..U+10FFFF without the surrogates), and decoding gives
// those values back. The encodings are built here from the RFC's table, not by the header.
#include "core/util/Utf8.h"

#include <QtTest>

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>

using namespace setscope;

namespace {

/// RFC 3629 §3's table: the shortest form of scalar value `cp`.
std::string rfcEncode(std::uint32_t cp)
{
    std::string s;
    if (cp <= 0x7F) {
        s += char(cp);
    } else if (cp <= 0x7FF) {
        s += char(0xC0 + (cp >> 6));
        s += char(0x80 + (cp & 0x3F));
    } else if (cp <= 0xFFFF) {
        s += char(0xE0 + (cp >> 12));
        s += char(0x80 + ((cp >> 6) & 0x3F));
        s += char(0x80 + (cp & 0x3F));
    } else {
        s += char(0xF0 + (cp >> 18));
        s += char(0x80 + ((cp >> 12) & 0x3F));
        s += char(0x80 + ((cp >> 6) & 0x3F));
        s += char(0x80 + (cp & 0x3F));
    }
    return s;
}

bool scalar(std::uint32_t cp) { return cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF); }

} // namespace

class TestUtf8 : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyScalarValueRoundTrips();
    void shortStringsAreValidExactlyWhenTheRfcSaysSo();
    void fourByteSequences();
    void invalidBytesResynchronise();
};

void TestUtf8::everyScalarValueRoundTrips()
{
    for (std::uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
        if (!scalar(cp))
            continue;
        const std::string s = rfcEncode(cp);
        char32_t got = 0;
        const int n = util::decodeUtf8(s, 0, got);
        if (n != int(s.size()) || got != cp)
            QFAIL(qPrintable(QString("U+%1: length %2, decoded %3").arg(cp, 0, 16).arg(n).arg(std::uint32_t(got), 0, 16)));
        std::string back;
        util::appendUtf8(back, cp);
        QCOMPARE(back, s);
    }
}

void TestUtf8::shortStringsAreValidExactlyWhenTheRfcSaysSo()
{
    // The encodings of U+0000..U+FFFF (surrogates left out), keyed by their bytes and length; a
    // string is valid when it splits into such encodings (at most three pieces here).
    std::unordered_set<std::uint32_t> encodings;
    const auto key = [](std::string_view piece) {
        std::uint32_t k = std::uint32_t(piece.size()) << 24;
        for (std::size_t i = 0; i < piece.size(); ++i)
            k |= std::uint32_t(static_cast<unsigned char>(piece[i])) << (8 * i);
        return k;
    };
    for (std::uint32_t cp = 0; cp <= 0xFFFF; ++cp)
        if (scalar(cp))
            encodings.insert(key(rfcEncode(cp)));
    const std::function<bool(std::string_view)> splits = [&](std::string_view rest) {
        if (rest.empty())
            return true;
        for (std::size_t n = 1; n <= rest.size() && n <= 3; ++n)
            if (encodings.count(key(rest.substr(0, n))) && splits(rest.substr(n)))
                return true;
        return false;
    };
    std::size_t checked = 0, accepted = 0;
    std::string s;
    for (int len = 1; len <= 3; ++len) {
        const std::uint32_t count = 1u << (8 * len);
        s.assign(std::size_t(len), '\0');
        for (std::uint32_t v = 0; v < count; ++v) {
            for (int k = 0; k < len; ++k)
                s[std::size_t(k)] = char((v >> (8 * k)) & 0xFF);
            const bool expected = splits(s);
            const bool got = util::isValidUtf8(s);
            ++checked;
            accepted += got;
            if (got != expected)
                QFAIL(qPrintable(QString("%1: expected %2").arg(QString(QByteArray(s.data(), int(s.size())).toHex(' '))).arg(expected)));
        }
    }
    // 128 + (128^2 + 1920) + (128^3 + 2 * 128 * 1920 + 61440) valid strings (61440: U+0800..U+FFFF
    // without the 2048 surrogates).
    QCOMPARE(accepted, std::size_t(128 + (16384 + 1920) + (2097152 + 491520 + 61440)));
    qInfo("%zu strings of 1-3 bytes checked, %zu valid", checked, accepted);
}

void TestUtf8::fourByteSequences()
{
    // Every 4-byte string with a lead byte 0xF0..0xFF and three continuation bytes: valid for
    // leads 0xF0..0xF4 exactly when it encodes U+10000..U+10FFFF in shortest form.
    std::set<std::string> valid;
    for (std::uint32_t cp = 0x10000; cp <= 0x10FFFF; ++cp)
        valid.insert(rfcEncode(cp));
    std::string s(4, '\0');
    std::size_t accepted = 0;
    for (int lead = 0xF0; lead <= 0xFF; ++lead)
        for (int b1 = 0x80; b1 <= 0xBF; ++b1)
            for (int b2 = 0x80; b2 <= 0xBF; ++b2)
                for (int b3 = 0x80; b3 <= 0xBF; ++b3) {
                    s[0] = char(lead), s[1] = char(b1), s[2] = char(b2), s[3] = char(b3);
                    const bool got = util::isValidUtf8(s);
                    accepted += got;
                    if (got != (valid.count(s) > 0))
                        QFAIL(qPrintable(QString(QByteArray(s.data(), 4).toHex(' '))));
                }
    QCOMPARE(accepted, valid.size());
}

void TestUtf8::invalidBytesResynchronise()
{
    // Each invalid byte is one invalid code point of length 1; decoding goes on at the next
    // byte: an overlong '/' (C0 AF), a surrogate (ED A0 80), a truncated euro sign (E2 82) then 'x'.
    const std::string s = "a\xC0\xAF" "b\xED\xA0\x80" "c\xE2\x82x";
    std::vector<char32_t> cps;
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp;
        i += std::size_t(util::decodeUtf8(s, i, cp));
        cps.push_back(cp);
    }
    const char32_t X = util::kInvalidCodePoint;
    const std::vector<char32_t> expected{U'a', X, X, U'b', X, X, X, U'c', X, X, U'x'};
    QCOMPARE(cps.size(), expected.size());
    for (std::size_t k = 0; k < cps.size(); ++k)
        QCOMPARE(std::uint32_t(cps[k]), std::uint32_t(expected[k]));
}

QTEST_MAIN(TestUtf8)
#include "tst_Utf8.moc"
