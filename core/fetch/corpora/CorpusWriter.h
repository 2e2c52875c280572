// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/fetch/corpora/Corpora.h"

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::fetch::corpora {

/// Collects documents in output order and writes the corpus file (internal to the three
/// converters). Text is cleaned on add(): control characters and tabs become spaces, white
/// space collapses, invalid UTF-8 bytes become U+FFFD (counted and noted).
class CorpusWriter {
public:
    struct Document {
        std::string label;
        std::string text;
        std::string key; ///< stable identity for the balanced subset (synset, package, file)
    };

    /// Returns false (and adds nothing) when the cleaned text is empty.
    bool add(std::string label, const std::string& text, std::string key);

    /// Keeps at most `perClass` documents of each label (0 = all): those with the smallest
    /// hash of (seed, key), in their original order. Returns how many were removed.
    std::size_t capPerClass(std::size_t perClass, std::uint64_t seed);

    std::vector<Document>& documents() { return m_docs; }

    /// Writes `# header` and the documents to outTsv (through outTsv.part and a rename) and
    /// fills stats.documents and stats.perLabel. Creates missing parent folders.
    void write(const std::string& outTsv, const std::string& header, CorpusStats& stats) const;

    std::size_t replacedBytes() const { return m_replacedBytes; }
    /// Carries the count over when documents move from one writer into another.
    void addReplacedBytes(std::size_t n) { m_replacedBytes += n; }

    /// Text cleaning as add() does it; `replaced` counts invalid UTF-8 bytes.
    static std::string clean(const std::string& text, std::size_t& replaced);
    /// Number of white-space separated tokens.
    static std::size_t wordCount(const std::string& text);

private:
    std::vector<Document> m_docs;
    std::size_t m_replacedBytes = 0;
};

/// Deterministic 64-bit hash of a string with a seed (FNV-1a then a splitmix64 finaliser).
std::uint64_t stableHash(const std::string& s, std::uint64_t seed);

} // namespace setscope::fetch::corpora
