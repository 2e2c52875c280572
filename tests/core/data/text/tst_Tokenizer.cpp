// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/text/Tokenizer.h"

#include <setscope/sdk/Errors.h>

#include <QtTest>

#include <fstream>

using namespace setscope::data;

Q_DECLARE_METATYPE(std::vector<std::string>)

namespace {

TokenizerOptions plain()
{
    TokenizerOptions o;
    o.removeStopWords = false;
    return o;
}

std::vector<std::string> toks(std::initializer_list<const char*> xs) { return {xs.begin(), xs.end()}; }

} // namespace

class TestTokenizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cases_data();
    void cases();
    void stopWords();
    void builtinListIsRealEnglish();
    void userStopWordFile();
    void userStopWordFileErrors();
    void numbers_data();
    void numbers();
    void splitOptions();
    void minLength();
    void utf8NeverSplitsACharacter();
    void validUtf8();
};

void TestTokenizer::cases_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<std::vector<std::string>>("expected");
    QTest::newRow("empty") << "" << toks({});
    QTest::newRow("only punctuation") << " ,.;!? -- ' " << toks({});
    QTest::newRow("lower case and punctuation") << "Hello, World! (Again.)" << toks({"hello", "world", "again"});
    QTest::newRow("apostrophe inside a word") << "Don't stop O'Brien's" << toks({"don't", "stop", "o'brien's"});
    QTest::newRow("quotes around words") << "'quoted' words'" << toks({"quoted", "words"});
    QTest::newRow("typographic apostrophe") << QString::fromUtf8("don\xE2\x80\x99t") << toks({"don't"});
    QTest::newRow("hyphen inside a word") << "state-of-the-art - dash -x y-" << toks({"state-of-the-art", "dash", "x", "y"});
    QTest::newRow("em dash separates") << QString::fromUtf8("one\xE2\x80\x94two") << toks({"one", "two"});
    QTest::newRow("latin-1 lower case") << QString::fromUtf8("\xC3\x89T\xC3\x89 \xC3\x9C" "BER Stra\xC3\x9F" "e")
                                        << toks({"\xC3\xA9t\xC3\xA9", "\xC3\xBC" "ber", "stra\xC3\x9F" "e"});
    QTest::newRow("greek kept as is") << QString::fromUtf8("\xCE\xB1\xCE\xB2\xCE\xB3, x") << toks({"\xCE\xB1\xCE\xB2\xCE\xB3", "x"});
    QTest::newRow("cjk punctuation separates") << QString::fromUtf8("\xE4\xB8\xAD\xE3\x80\x82\xE6\x96\x87")
                                               << toks({"\xE4\xB8\xAD", "\xE6\x96\x87"});
    QTest::newRow("underscore is a word char") << "foo_bar baz" << toks({"foo_bar", "baz"});
    QTest::newRow("times sign separates") << QString::fromUtf8("a\xC3\x97" "b") << toks({"a", "b"});
    QTest::newRow("emoji separates") << QString::fromUtf8("good\xF0\x9F\x98\x80mood") << toks({"good", "mood"});
    QTest::newRow("tabs and newlines") << "a\tb\nc\r\nd" << toks({"a", "b", "c", "d"});
    QTest::newRow("mixed letters and digits") << "mp3 covid19" << toks({"mp3", "covid19"});
}

void TestTokenizer::cases()
{
    QFETCH(QString, text);
    QFETCH(std::vector<std::string>, expected);
    const Tokenizer t(plain());
    const std::string utf8 = text.toUtf8().toStdString();
    QCOMPARE(t.tokenize(utf8), expected);
}

void TestTokenizer::stopWords()
{
    const Tokenizer t; // built-in English list
    QCOMPARE(t.tokenize("The cat and THE dog didn't sit on a mat"), toks({"cat", "dog", "sit", "mat"}));
    QVERIFY(t.isStopWord("the"));
    QVERIFY(t.isStopWord("didn't"));
    QVERIFY(!t.isStopWord("cat"));
    // Lower-casing off: the list still matches case-insensitively, kept words keep their case.
    TokenizerOptions o;
    o.lowercase = false;
    QCOMPARE(Tokenizer(o).tokenize("The Cat"), toks({"Cat"}));
}

void TestTokenizer::builtinListIsRealEnglish()
{
    const auto& words = builtinStopWords();
    QVERIFY2(words.size() >= 300 && words.size() <= 600, std::to_string(words.size()).c_str());
    QVERIFY(std::is_sorted(words.begin(), words.end()));
    for (const char* w : {"a", "about", "the", "and", "of", "which", "you're", "themselves", "wouldn't"})
        QVERIFY2(std::binary_search(words.begin(), words.end(), std::string(w)), w);
    // Comment lines of the data file are not words.
    for (const auto& w : words) {
        QVERIFY2(w.find('#') == std::string::npos && w.find(' ') == std::string::npos, w.c_str());
        QVERIFY(!w.empty());
    }
    for (const char* w : {"cat", "government", "music", "spdx-license-identifier"})
        QVERIFY2(!std::binary_search(words.begin(), words.end(), std::string(w)), w);
}

void TestTokenizer::userStopWordFile()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("stop.txt").toStdString();
    std::ofstream(path) << "# my list\nCat\n\n  dog  # trailing comment\nhe\xE2\x80\x99s\n";
    const auto words = readStopWordFile(path);
    QCOMPARE(words, toks({"cat", "dog", "he's"}));
    TokenizerOptions o;
    o.stopWordFile = path;
    const Tokenizer t(o);
    QCOMPARE(t.stopWordCount(), std::size_t(3));
    // "the" is no longer a stop word: the user's list replaces the built-in one.
    QCOMPARE(t.tokenize("The cat, the dog, he's here"), toks({"the", "the", "here"}));
}

void TestTokenizer::userStopWordFileErrors()
{
    QTemporaryDir dir;
    TokenizerOptions o;
    o.stopWordFile = dir.filePath("missing.txt").toStdString();
    QVERIFY_THROWS_EXCEPTION(setscope::sdk::InputError, Tokenizer{o});
    const std::string bad = dir.filePath("bad.txt").toStdString();
    std::ofstream(bad) << "ok\n\xFF\xFE\n";
    o.stopWordFile = bad;
    QVERIFY_THROWS_EXCEPTION(setscope::sdk::InputError, Tokenizer{o});
}

void TestTokenizer::numbers_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<std::vector<std::string>>("expected");
    QTest::newRow("drop") << "drop" << toks({"in", "mp3", "v2"});
    QTest::newRow("keep") << "keep" << toks({"in", "1999", "3.14", "1,000", "mp3", "v2", "7"});
    QTest::newRow("hash") << "hash" << toks({"in", "####", "#.##", "#,###", "mp3", "v2", "#"});
}

void TestTokenizer::numbers()
{
    QFETCH(QString, mode);
    QFETCH(std::vector<std::string>, expected);
    TokenizerOptions o = plain();
    o.numbers = parseNumberMode(mode.toStdString());
    // "7." ends a sentence: the period is not inside the number.
    QCOMPARE(Tokenizer(o).tokenize("in 1999, 3.14 1,000 mp3 v2 7."), expected);
}

void TestTokenizer::splitOptions()
{
    TokenizerOptions o = plain();
    o.splitApostrophes = true;
    o.splitHyphens = true;
    QCOMPARE(Tokenizer(o).tokenize("don't state-of-the-art"), toks({"don", "t", "state", "of", "the", "art"}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseNumberMode("words"));
}

void TestTokenizer::minLength()
{
    TokenizerOptions o = plain();
    o.minLength = 2;
    // Length counts code points: "é" is one code point of two bytes and is dropped.
    QCOMPARE(Tokenizer(o).tokenize(QString::fromUtf8("a \xC3\xA9 ab \xC3\xA9t").toStdString()),
             toks({"ab", "\xC3\xA9t"}));
}

void TestTokenizer::utf8NeverSplitsACharacter()
{
    const Tokenizer t(plain());
    // Invalid bytes separate tokens; a truncated multi-byte sequence at the end is dropped,
    // and every token is valid UTF-8.
    const std::string text = std::string("ab\xFF" "cd \xC3\xA9t\xC3\xA9 x\xE2\x82") + "";
    const auto out = t.tokenize(text);
    QCOMPARE(out, toks({"ab", "cd", "\xC3\xA9t\xC3\xA9", "x"}));
    for (const auto& w : out)
        QVERIFY(isValidUtf8(w));
    // A lone continuation byte and an overlong encoding are separators too.
    QCOMPARE(t.tokenize("a\x80" "b \xC0\xAF" "c"), toks({"a", "b", "c"}));
}

void TestTokenizer::validUtf8()
{
    QVERIFY(isValidUtf8(""));
    QVERIFY(isValidUtf8("plain"));
    QVERIFY(isValidUtf8("\xE2\x82\xAC \xF0\x9F\x98\x80"));
    QVERIFY(!isValidUtf8("\xC3"));
    QVERIFY(!isValidUtf8("\xED\xA0\x80")); // surrogate
    QVERIFY(!isValidUtf8("\xF4\x90\x80\x80")); // > U+10FFFF
    QVERIFY(!isValidUtf8("\xE0\x80\x80")); // overlong
}

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_Tokenizer.moc"
