// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/text/Tokenizer.h"

#include "core/util/Utf8.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace setscope::data {

extern const std::string_view kStopWordsEnText; // generated from resources/text/stopwords-en.txt

namespace {

// One UTF-8 rule for every reader (core/util/Utf8.h).
using util::decodeUtf8;

void encode(char32_t cp, std::string& out) { util::appendUtf8(out, static_cast<std::uint32_t>(cp)); }

constexpr char32_t kInvalid = util::kInvalidCodePoint;

bool isDigit(char32_t c) { return c >= '0' && c <= '9'; }

bool isWordChar(char32_t c)
{
    if (c == kInvalid)
        return false;
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == '_';
    if (c <= 0xBF)
        return c == 0xAA || c == 0xB5 || c == 0xBA; // ª µ º are letters; the rest is punctuation / symbols
    if (c == 0xD7 || c == 0xF7)
        return false; // × ÷
    if (c >= 0x2000 && c <= 0x206F)
        return false; // General Punctuation: spaces, dashes, quotes, ellipsis
    if (c >= 0x20A0 && c <= 0x20CF)
        return false; // currency
    if ((c >= 0x2190 && c <= 0x23FF) || (c >= 0x2500 && c <= 0x27BF) || (c >= 0x2B00 && c <= 0x2BFF))
        return false; // arrows, mathematical operators, technical, box drawing, shapes, dingbats
    if (c >= 0x3000 && c <= 0x303F)
        return false; // CJK punctuation
    if ((c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40)
        || (c >= 0xFF5B && c <= 0xFF65))
        return false; // full-width ASCII punctuation
    if ((c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF)
        return false; // variation selectors, BOM
    if (c >= 0x1F000 && c <= 0x1FAFF)
        return false; // emoji and pictographs
    return true;
}

bool isApostrophe(char32_t c) { return c == '\'' || c == 0x2019; }
bool isHyphen(char32_t c) { return c == '-' || c == 0x2010 || c == 0x2011; }

char32_t lower(char32_t c)
{
    if (c >= 'A' && c <= 'Z')
        return c + 32;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7)
        return c + 0x20;
    return c;
}

std::string lowerString(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp;
        const int n = decodeUtf8(s, i, cp);
        if (cp == kInvalid)
            out.push_back(s[i]);
        else
            encode(lower(cp), out);
        i += static_cast<std::size_t>(n);
    }
    return out;
}

std::size_t codePoints(std::string_view s)
{
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp;
        i += static_cast<std::size_t>(decodeUtf8(s, i, cp));
        ++n;
    }
    return n;
}

std::vector<std::string> parseStopWords(std::string_view text)
{
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        if (const auto hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front())))
            line.remove_prefix(1);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
            line.remove_suffix(1);
        if (line.empty())
            continue;
        std::string w = lowerString(line);
        // U+2019 written as ' so that the list matches tokens.
        for (std::size_t p; (p = w.find("\xE2\x80\x99")) != std::string::npos;)
            w.replace(p, 3, "'");
        out.push_back(std::move(w));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace

std::string lowerCaseUtf8(std::string_view s) { return lowerString(s); }

NumberMode parseNumberMode(std::string_view name)
{
    if (name == "drop")
        return NumberMode::Drop;
    if (name == "keep")
        return NumberMode::Keep;
    if (name == "hash")
        return NumberMode::Hash;
    throw std::invalid_argument("unknown number mode '" + std::string(name) + "' (drop, keep, hash)");
}

bool isValidUtf8(std::string_view s) { return util::isValidUtf8(s); }

const std::vector<std::string>& builtinStopWords()
{
    static const std::vector<std::string> words = parseStopWords(kStopWordsEnText);
    return words;
}

std::vector<std::string> readStopWordFile(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw sdk::InputError(path, "", std::string("cannot open stop-word file: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    if (!isValidUtf8(text))
        throw sdk::InputError(path, "", "stop-word file is not UTF-8 text");
    return parseStopWords(text);
}

Tokenizer::Tokenizer(TokenizerOptions options)
    : m_options(std::move(options))
{
    if (m_options.removeStopWords) {
        const std::vector<std::string> words
            = m_options.stopWordFile.empty() ? builtinStopWords() : readStopWordFile(m_options.stopWordFile);
        m_stop.insert(words.begin(), words.end());
    }
}

bool Tokenizer::isStopWord(std::string_view word) const { return m_stop.count(std::string(word)) > 0; }

void Tokenizer::emit(std::string& token, bool numeric, std::vector<std::string>& out) const
{
    if (token.empty())
        return;
    if (numeric) {
        if (m_options.numbers == NumberMode::Drop) {
            token.clear();
            return;
        }
        if (m_options.numbers == NumberMode::Hash)
            std::replace_if(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }, '#');
    }
    if (static_cast<int>(codePoints(token)) < m_options.minLength) {
        token.clear();
        return;
    }
    if (!m_stop.empty()) {
        const bool stop = m_options.lowercase ? m_stop.count(token) > 0 : m_stop.count(lowerString(token)) > 0;
        if (stop) {
            token.clear();
            return;
        }
    }
    out.push_back(std::move(token));
    token.clear();
}

std::vector<std::string> Tokenizer::tokenize(std::string_view text) const
{
    std::vector<std::string> out;
    std::string token;
    bool numeric = true;        // token so far made of digits (and joiners between digits)
    bool lastDigit = false;     // last code point appended was a digit
    std::size_t i = 0;
    auto peek = [&](std::size_t at, char32_t& cp) -> int { return at < text.size() ? decodeUtf8(text, at, cp) : 0; };
    while (i < text.size()) {
        char32_t cp;
        const int n = decodeUtf8(text, i, cp);
        if (isWordChar(cp)) {
            encode(m_options.lowercase ? lower(cp) : cp, token);
            lastDigit = isDigit(cp);
            if (!lastDigit)
                numeric = false;
            i += static_cast<std::size_t>(n);
            continue;
        }
        // A joiner between two word characters may stay inside the token.
        bool join = false;
        char32_t next = kInvalid;
        if (!token.empty() && peek(i + static_cast<std::size_t>(n), next) > 0 && isWordChar(next)) {
            if (isApostrophe(cp))
                join = !m_options.splitApostrophes && !lastDigit && !isDigit(next);
            else if (isHyphen(cp))
                join = !m_options.splitHyphens;
            else if (cp == '.' || cp == ',')
                join = numeric && lastDigit && isDigit(next);
        }
        if (join) {
            token.push_back(isApostrophe(cp) ? '\'' : isHyphen(cp) ? '-' : static_cast<char>(cp));
            if (!(cp == '.' || cp == ','))
                numeric = false;
            lastDigit = false;
        } else {
            emit(token, numeric, out);
            numeric = true;
            lastDigit = false;
        }
        i += static_cast<std::size_t>(n);
    }
    emit(token, numeric, out);
    return out;
}

} // namespace setscope::data
