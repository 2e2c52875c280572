// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/corpora/CorpusWriter.h"

#include "core/util/Utf8.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace setscope::fetch::corpora {

using sdk::InputError;

std::uint64_t stableHash(const std::string& s, std::uint64_t seed)
{
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    std::uint64_t z = h + seed + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

namespace {

/// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid (the one
/// rule of core/util/Utf8.h: no overlong forms, surrogates or code points above U+10FFFF).
std::size_t utf8Length(const std::string& s, std::size_t i)
{
    char32_t cp;
    const int n = util::decodeUtf8(s, i, cp);
    return cp == util::kInvalidCodePoint ? 0 : static_cast<std::size_t>(n);
}

} // namespace

std::string CorpusWriter::clean(const std::string& text, std::size_t& replaced)
{
    std::string out;
    out.reserve(text.size());
    bool pendingSpace = false;
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f || c == ' ') {
            pendingSpace = true;
            ++i;
            continue;
        }
        if (pendingSpace && !out.empty())
            out += ' ';
        pendingSpace = false;
        const std::size_t n = utf8Length(text, i);
        if (n == 0) {
            out += "\xef\xbf\xbd"; // U+FFFD
            ++replaced;
            ++i;
        } else {
            out.append(text, i, n);
            i += n;
        }
    }
    return out;
}

std::size_t CorpusWriter::wordCount(const std::string& text)
{
    std::size_t n = 0;
    bool in = false;
    for (char c : text) {
        const bool space = c == ' ' || c == '\t' || c == '\n';
        if (!space && !in)
            ++n;
        in = !space;
    }
    return n;
}

bool CorpusWriter::add(std::string label, const std::string& text, std::string key)
{
    std::string cleaned = clean(text, m_replacedBytes);
    if (cleaned.empty())
        return false;
    std::size_t ignored = 0;
    m_docs.push_back({clean(label, ignored), std::move(cleaned), std::move(key)});
    return true;
}

std::size_t CorpusWriter::capPerClass(std::size_t perClass, std::uint64_t seed)
{
    if (perClass == 0)
        return 0;
    std::map<std::string, std::vector<std::size_t>> byLabel;
    for (std::size_t i = 0; i < m_docs.size(); ++i)
        byLabel[m_docs[i].label].push_back(i);
    std::vector<bool> keep(m_docs.size(), true);
    for (auto& [label, idx] : byLabel) {
        if (idx.size() <= perClass)
            continue;
        std::vector<std::pair<std::uint64_t, std::size_t>> ranked;
        ranked.reserve(idx.size());
        for (std::size_t i : idx)
            ranked.emplace_back(stableHash(m_docs[i].key, seed), i);
        std::sort(ranked.begin(), ranked.end());
        for (std::size_t r = perClass; r < ranked.size(); ++r)
            keep[ranked[r].second] = false;
    }
    std::vector<Document> kept;
    kept.reserve(m_docs.size());
    for (std::size_t i = 0; i < m_docs.size(); ++i)
        if (keep[i])
            kept.push_back(std::move(m_docs[i]));
    const std::size_t removed = m_docs.size() - kept.size();
    m_docs = std::move(kept);
    return removed;
}

void CorpusWriter::write(const std::string& outTsv, const std::string& header, CorpusStats& stats) const
{
    const fs::path out(outTsv);
    std::error_code ec;
    if (out.has_parent_path())
        fs::create_directories(out.parent_path(), ec);
    const std::string part = outTsv + ".part";
    {
        std::ofstream f(part, std::ios::binary | std::ios::trunc);
        if (!f)
            throw InputError(part, "", std::string("cannot write: ") + std::strerror(errno));
        std::size_t dummy = 0;
        f << "# " << clean(header, dummy) << '\n';
        for (const Document& d : m_docs)
            f << d.label << '\t' << d.text << '\n';
        f.flush();
        if (!f)
            throw InputError(part, "", std::string("write failed: ") + std::strerror(errno));
    }
    fs::rename(part, out, ec);
    if (ec)
        throw InputError(outTsv, "", "cannot move the finished file into place: " + ec.message());
    stats.documents = m_docs.size();
    stats.perLabel.clear();
    for (const Document& d : m_docs)
        ++stats.perLabel[d.label];
    if (m_replacedBytes > 0)
        stats.notes.push_back(std::to_string(m_replacedBytes) +
                              " bytes that were not valid UTF-8 were replaced by U+FFFD");
}

} // namespace setscope::fetch::corpora
