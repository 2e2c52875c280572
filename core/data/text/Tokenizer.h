// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace setscope::data {

/// What the tokenizer does with a token made only of digits (and '.' or ',' between digits,
/// as in "3.14" or "1,000").
enum class NumberMode {
    Drop, ///< removed (default: numbers carry little topic and most have no word vector)
    Keep, ///< kept as written
    Hash, ///< every digit replaced by '#', the GoogleNews word2vec convention ("1999" -> "####")
};

/// Parses "drop" / "keep" / "hash"; throws std::invalid_argument otherwise.
NumberMode parseNumberMode(std::string_view name);

struct TokenizerOptions {
    /// Lower-case ASCII letters and the Latin-1 supplement letters (À..Þ -> à..þ). Other
    /// scripts are kept as written.
    bool lowercase = true;
    bool removeStopWords = true;
    /// A stop-word file (one word per line, '#' comments) replacing the built-in English
    /// list; "" = the built-in list (resources/text/stopwords-en.txt, compiled in).
    std::string stopWordFile;
    NumberMode numbers = NumberMode::Drop;
    /// An apostrophe (' or U+2019) between two letters stays inside the word ("don't",
    /// "o'brien"); true splits there instead. U+2019 is written as '.
    bool splitApostrophes = false;
    /// A hyphen between two letters or digits stays inside the word ("state-of-the-art");
    /// true splits there instead.
    bool splitHyphens = false;
    /// Tokens shorter than this many code points are dropped.
    int minLength = 1;
};

/// Splits UTF-8 text into word tokens. A token is a maximal run of word characters: ASCII
/// letters and digits, '_' and every code point >= U+0080 that is not punctuation or a
/// symbol of the Latin-1 supplement, General Punctuation (U+2000..U+206F), CJK punctuation
/// or the full-width ASCII punctuation. Everything else (ASCII punctuation, white space,
/// control characters, invalid UTF-8 bytes) separates tokens; a multi-byte character is
/// never split. Immutable after construction: tokenize() may run on several threads.
class Tokenizer {
public:
    /// Throws sdk::InputError when the stop-word file cannot be read.
    explicit Tokenizer(TokenizerOptions options = {});

    std::vector<std::string> tokenize(std::string_view text) const;
    /// True when `word` (already lower-cased) is in the stop-word list.
    bool isStopWord(std::string_view word) const;
    std::size_t stopWordCount() const { return m_stop.size(); }
    const TokenizerOptions& options() const { return m_options; }

private:
    void emit(std::string& token, bool numeric, std::vector<std::string>& out) const;

    TokenizerOptions m_options;
    std::unordered_set<std::string> m_stop;
};

/// The built-in English stop words (sorted, lower case).
const std::vector<std::string>& builtinStopWords();

/// Reads a stop-word file: one word per line, '#' starts a comment, blank lines ignored,
/// words lower-cased. Throws sdk::InputError when it cannot be read or is not UTF-8.
std::vector<std::string> readStopWordFile(const std::string& path);

/// `s` with ASCII and Latin-1 supplement letters lower-cased (the tokenizer's rule);
/// other bytes are copied unchanged.
std::string lowerCaseUtf8(std::string_view s);

/// True when `s` is valid UTF-8 (no overlong forms, no surrogates, <= U+10FFFF).
bool isValidUtf8(std::string_view s);

} // namespace setscope::data
