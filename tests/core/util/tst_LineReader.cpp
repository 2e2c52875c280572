// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// util::LineReader, the one line reader: hand-worked cases of its rule ("\n", "\r\n" or a lone
// "\r" ends a line), then random texts split by an independent reference (normalise the
// terminators to "\n", split) and read whole and in chunks of 1 to 7 bytes, positions included;
// the length bound of chunked sources.
#include "core/util/LineReader.h"

#include <QtTest>

#include <cstring>
#include <memory>
#include <random>

using namespace setscope;

namespace {

std::vector<std::string> readAll(util::LineReader& r, std::vector<std::uint64_t>* positions = nullptr)
{
    std::vector<std::string> out;
    std::string_view line;
    while (r.next(line)) {
        out.emplace_back(line);
        if (positions)
            positions->push_back(r.position());
    }
    return out;
}

std::vector<std::string> whole(std::string_view text)
{
    util::LineReader r(text);
    return readAll(r);
}

util::LineReader chunked(const std::string& text, std::size_t chunk, std::uint64_t maxLine = UINT64_MAX)
{
    auto at = std::make_shared<std::size_t>(0);
    return util::LineReader(
        [text, at, chunk](char* b, std::size_t cap) {
            const std::size_t n = std::min({chunk, cap, text.size() - *at});
            std::memcpy(b, text.data() + *at, n);
            *at += n;
            return n;
        },
        maxLine, chunk);
}

/// The reference: every "\r\n", then every "\r", made "\n"; split at "\n"; a terminator at the
/// very end opens no further line.
std::vector<std::string> reference(std::string t, std::vector<std::uint64_t>* ends)
{
    std::vector<std::string> out;
    std::string norm;
    std::vector<std::uint64_t> after; // offset in t just past each "\n" of norm
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '\r' && i + 1 < t.size() && t[i + 1] == '\n')
            continue; // the "\n" that follows ends the line
        norm += t[i] == '\r' ? '\n' : t[i];
        if (norm.back() == '\n')
            after.push_back(i + 1);
    }
    std::size_t start = 0, k = 0;
    for (std::size_t i = 0; i < norm.size(); ++i)
        if (norm[i] == '\n') {
            out.push_back(norm.substr(start, i - start));
            ends->push_back(after[k++]);
            start = i + 1;
        }
    if (start < norm.size()) {
        out.push_back(norm.substr(start));
        ends->push_back(t.size());
    }
    return out;
}

} // namespace

class TestLineReader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theRule();
    void positionsAndNumbers();
    void randomTextsWholeAndChunked();
    void longLinesOfAChunkedSource();
};

void TestLineReader::theRule()
{
    using V = std::vector<std::string>;
    QCOMPARE(whole(""), V{});
    QCOMPARE(whole("\n"), V{""});
    QCOMPARE(whole("a"), V{"a"});
    QCOMPARE(whole("a\n"), V{"a"});
    QCOMPARE(whole("a\r\nb"), (V{"a", "b"}));
    QCOMPARE(whole("a\rb\r"), (V{"a", "b"}));
    QCOMPARE(whole("a\n\rb"), (V{"a", "", "b"}));
    QCOMPARE(whole("a\r\r\nb"), (V{"a", "", "b"}));
    QCOMPARE(whole("\r\n\r\n"), (V{"", ""}));
    // The same through a source of one byte at a time ("\r" and "\n" in different chunks).
    for (const char* t : {"a\r\nb", "a\rb\r", "a\r\r\nb", "\r\n\r\n"}) {
        util::LineReader r = chunked(t, 1);
        QCOMPARE(readAll(r), whole(t));
    }
}

void TestLineReader::positionsAndNumbers()
{
    const std::string t = "ply\r\nformat binary\nend_header\n\x01\x02";
    util::LineReader r(t);
    std::string_view line;
    QVERIFY(r.next(line) && line == "ply" && r.lineNumber() == 1 && r.position() == 5);
    QVERIFY(r.next(line) && line == "format binary" && r.lineNumber() == 2 && r.position() == 19);
    QVERIFY(r.next(line) && line == "end_header" && r.lineNumber() == 3);
    QCOMPARE(t.substr(r.position()), std::string("\x01\x02")); // where a binary body starts
    std::string s;
    QVERIFY(r.next(s) && s == "\x01\x02");
    QVERIFY(!r.next(s));
    QCOMPARE(r.lineNumber(), std::uint64_t(4));
}

void TestLineReader::randomTextsWholeAndChunked()
{
    std::mt19937_64 rng(11);
    const char alphabet[] = {'a', 'b', ' ', '\r', '\n', '\r', '\n', 'x'};
    for (int trial = 0; trial < 400; ++trial) {
        std::string t(rng() % 40, ' ');
        for (char& c : t)
            c = alphabet[rng() % sizeof alphabet];
        std::vector<std::uint64_t> ends;
        const std::vector<std::string> expected = reference(t, &ends);
        std::vector<std::uint64_t> positions;
        util::LineReader w(t);
        QCOMPARE(readAll(w, &positions), expected);
        QCOMPARE(positions, ends);
        for (std::size_t chunk = 1; chunk <= 7; ++chunk) {
            std::vector<std::uint64_t> cp;
            util::LineReader c = chunked(t, chunk);
            QCOMPARE(readAll(c, &cp), expected);
            QCOMPARE(cp, ends);
        }
    }
}

void TestLineReader::longLinesOfAChunkedSource()
{
    const std::string ok = std::string(50, 'a') + "\n" + std::string(50, 'b');
    util::LineReader r = chunked(ok, 8, 50);
    QCOMPARE(readAll(r), (std::vector<std::string>{std::string(50, 'a'), std::string(50, 'b')}));
    const std::string tooLong = "short\n" + std::string(100, 'c') + "\n";
    util::LineReader l = chunked(tooLong, 8, 50);
    std::string_view line;
    QVERIFY(l.next(line) && line == "short");
    try {
        l.next(line);
        QFAIL("a line of 100 bytes passed a bound of 50");
    } catch (const util::LineTooLong& e) {
        QCOMPARE(e.line(), std::uint64_t(2));
        QVERIFY(e.offset() > 50 && e.offset() <= tooLong.size());
    }
}

QTEST_GUILESS_MAIN(TestLineReader)
#include "tst_LineReader.moc"
