// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace setscope::data {

enum class WordVectorFormat {
    Auto,           ///< detect from the content (see loadWordVectors)
    Word2VecBinary, ///< GoogleNews: "N D\n", then per word: word ' ' D float32 (LE) ['\n']
    Word2VecText,   ///< "N D" header line, then "word v1 .. vD" lines (also fastText .vec)
    GloveText,      ///< "word v1 .. vD" lines, no header
    FastTextBin,    ///< a fastText model (.bin), read through libfasttext
    Cache,          ///< setscope's own binary cache
};
const char* wordVectorFormatName(WordVectorFormat f);

struct WordVectorOptions {
    WordVectorFormat format = WordVectorFormat::Auto;
    /// Where parsed text files are cached; "" = $XDG_CACHE_HOME/setscope/wordvectors
    /// (or ~/.cache/setscope/wordvectors).
    std::string cacheDir;
    /// Cache parsed text formats (false: parse every time, write nothing).
    bool useCache = true;
    /// find() falls back to the first word whose lower-cased form equals the query
    /// (GoogleNews has "London", a lower-casing tokenizer asks for "london").
    bool lowercaseFallback = true;
};

/// A table of word vectors: size() words of dim() float32 each, row-major. Immutable after
/// loading; every const method may run on several threads. Move-only (it may own a fastText
/// model for subword vectors).
class WordVectors {
public:
    WordVectors();
    ~WordVectors();
    WordVectors(WordVectors&&) noexcept;
    WordVectors& operator=(WordVectors&&) noexcept;

    int dim() const { return m_dim; }
    std::size_t size() const { return m_words.size(); }
    const std::vector<std::string>& words() const { return m_words; }
    const float* vector(std::size_t i) const { return m_values.data() + i * static_cast<std::size_t>(m_dim); }
    const std::vector<float>& values() const { return m_values; }

    /// The vector of `word` (exact match, then the lower-case fallback when enabled);
    /// nullptr when the word is not in the table. Valid as long as this object lives.
    const float* find(std::string_view word) const;
    /// Index of `word` as find() resolves it, -1 when absent.
    std::int64_t indexOf(std::string_view word) const;

    /// True for a fastText model, which composes vectors of unknown words from their
    /// character n-grams.
    bool hasSubwords() const;
    /// Writes the subword vector of an out-of-vocabulary `word` into out[0..dim) and returns
    /// true; false when there is no subword model or none of the word's n-grams is known.
    bool subwordVector(std::string_view word, float* out) const;

    WordVectorFormat format() const { return m_format; }
    /// The file the vectors came from ("" when trained in memory).
    const std::string& source() const { return m_source; }
    /// True when the table was read from setscope's binary cache.
    bool fromCache() const { return m_fromCache; }
    /// Duplicate words found in the source (the first occurrence is kept).
    std::size_t duplicates() const { return m_duplicates; }
    /// A stable key of the table's content (for caches of derived data).
    const std::string& contentKey() const { return m_contentKey; }

    /// Builds a table from words and row-major values (words.size() x dim). Duplicates
    /// keep the first occurrence and are counted. Throws std::invalid_argument on a
    /// size mismatch.
    static WordVectors fromData(std::vector<std::string> words, std::vector<float> values, int dim,
                                bool lowercaseFallback = true);

private:
    friend WordVectors loadWordVectors(const std::string&, const WordVectorOptions&);
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    void buildIndex(bool lowercaseFallback);

    int m_dim = 0;
    std::vector<std::string> m_words;
    std::vector<float> m_values;
    std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> m_index;
    std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> m_lowerIndex;
    WordVectorFormat m_format = WordVectorFormat::Auto;
    std::string m_source;
    bool m_fromCache = false;
    std::size_t m_duplicates = 0;
    std::string m_contentKey;
    struct Model;
    std::shared_ptr<const Model> m_model; // fastText model for subword vectors, or null
};

/// Loads word vectors. Format detection (WordVectorFormat::Auto): a fastText model by its
/// magic number; setscope's cache by its magic; a first line "N D" (two integers) means
/// word2vec: text when the next line parses as a word and D numbers, binary otherwise; any
/// other first line means GloVe text (the dimension is that line's number of values).
/// Text formats are parsed once and cached in binary under options.cacheDir: one cache
/// file per source path (named by the hash of the absolute path) holding the source's
/// content hash (xxh3-128), which is checked on every load (one read of the source), so a
/// changed source is parsed again and its cache replaced. Binary formats are read directly. Blocking; run it on a worker thread.
/// Throws sdk::InputError naming the file and the line / record for: a truncated binary
/// file, a line or record with the wrong number of values, a header count that does not
/// match the data, NaN or infinite values, an empty file. Duplicate words keep the first
/// occurrence and are counted (duplicates()).
WordVectors loadWordVectors(const std::string& path, const WordVectorOptions& options = {});

/// setscope's per-user cache folder (util::userCacheDir()).
std::string setscopeCacheDir();

/// Writes `wv` in setscope's binary cache format (for tests and tools); atomic rename.
void writeWordVectorCache(const WordVectors& wv, const std::string& path, const std::string& sourceHash = {});

} // namespace setscope::data
