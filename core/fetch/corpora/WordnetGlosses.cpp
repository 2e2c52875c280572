// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/corpora/Corpora.h"
#include "core/fetch/corpora/CorpusWriter.h"
#include "core/fetch/corpora/LineReader.h"

#include <setscope/sdk/Errors.h>

#include <array>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <unordered_map>

namespace fs = std::filesystem;

namespace setscope::fetch::corpora {

using sdk::InputError;

namespace {

struct LexFile {
    std::string name;
    int category = 0; ///< 1 noun, 2 verb, 3 adjective, 4 adverb (lexnames(5WN))
};

/// lexnames(5WN), WordNet 3.0: file number -> name and syntactic category.
std::vector<LexFile> builtinLexnames()
{
    static const std::array<const char*, 45> names = {
        "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
        "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling",
        "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
        "noun.phenomenon", "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation",
        "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition",
        "verb.communication", "verb.competition", "verb.consumption", "verb.contact", "verb.creation",
        "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social", "verb.stative",
        "verb.weather", "adj.ppl"};
    std::vector<LexFile> table;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string n = names[i];
        const int cat = n.rfind("noun.", 0) == 0 ? 1 : n.rfind("verb.", 0) == 0 ? 2 : n.rfind("adj.", 0) == 0 ? 3 : 4;
        table.push_back({n, cat});
    }
    return table;
}

bool allDigits(const std::string& s)
{
    if (s.empty())
        return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    return true;
}

bool allHex(const std::string& s)
{
    if (s.empty())
        return false;
    for (char c : s)
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            return false;
    return true;
}

/// The `lexnames` file: "NN<TAB>name<TAB>category" per line.
std::vector<LexFile> readLexnames(const std::string& path)
{
    std::vector<LexFile> table;
    LineReader in(path);
    std::string line;
    while (in.next(line)) {
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        std::istringstream fields(line);
        std::string num, name, cat;
        fields >> num >> name >> cat;
        // At most 4 digits, so that std::stoul cannot throw std::out_of_range (a 23-digit
        // number escaped as one: found for issue 12's fetch_lists target).
        if (!allDigits(num) || num.size() > 4 || name.empty() || !allDigits(cat) || cat.size() != 1 || cat[0] < '1' ||
            cat[0] > '4')
            throw InputError(path, InputError::atLine(in.lineNumber()),
                             "expected \"<file number> <name> <category 1-4>\", got \"" + line + "\"");
        const std::size_t n = std::stoul(num);
        if (n > 1000)
            throw InputError(path, InputError::atLine(in.lineNumber()), "file number " + num + " is out of range");
        if (table.size() <= n)
            table.resize(n + 1);
        if (!table[n].name.empty())
            throw InputError(path, InputError::atLine(in.lineNumber()), "file number " + num + " appears twice");
        table[n] = {name, cat[0] - '0'};
    }
    if (table.empty())
        throw InputError(path, "", "the lexnames file lists no lexicographer files");
    return table;
}

int categoryOf(char ssType)
{
    switch (ssType) {
    case 'n': return 1;
    case 'v': return 2;
    case 'a':
    case 's': return 3;
    case 'r': return 4;
    default: return 0;
    }
}

struct Synset {
    std::string label;
    std::string words; ///< "dog, domestic dog"
    std::string gloss;
    std::string key;   ///< "n00001740"
};

/// Parses one data.* line (wndb(5WN)):
///   offset lex_filenum ss_type w_cnt {word lex_id} p_cnt {ptr_symbol offset pos src/tgt}
///   [f_cnt {+ f_num w_num}] | gloss
Synset parseSynset(const std::string& line, const std::string& file, std::uint64_t lineNo,
                   const std::vector<LexFile>& lexnames, char filePos)
{
    const std::string where = InputError::atLine(lineNo);
    const std::size_t bar = line.find(" | ");
    const bool endsInBar = line.size() >= 2 && line.compare(line.size() - 2, 2, " |") == 0;
    if (bar == std::string::npos && !endsInBar)
        throw InputError(file, where, "synset line has no \" | \" before the gloss (truncated line?)");
    const std::string head = line.substr(0, bar == std::string::npos ? line.size() - 2 : bar);
    std::istringstream in(head);
    std::vector<std::string> f;
    for (std::string t; in >> t;)
        f.push_back(t);
    std::size_t i = 0;
    auto need = [&](std::size_t n, const char* what) {
        if (i + n > f.size())
            throw InputError(file, where,
                             "synset line ends after " + std::to_string(f.size()) + " fields, expected " + what +
                                 " (truncated line?)");
    };
    need(4, "offset, lexicographer file, type and word count");
    const std::string& offset = f[0];
    if (offset.size() != 8 || !allDigits(offset))
        throw InputError(file, where, "synset offset \"" + offset + "\" is not 8 digits");
    if (f[1].size() != 2 || !allDigits(f[1]))
        throw InputError(file, where, "lexicographer file number \"" + f[1] + "\" is not 2 digits");
    const std::size_t lex = std::stoul(f[1]);
    if (lex >= lexnames.size() || lexnames[lex].name.empty())
        throw InputError(file, where,
                         "unknown lexicographer file number " + f[1] + " (lexnames lists 00.." +
                             std::to_string(lexnames.size() - 1) + ")");
    if (f[2].size() != 1 || categoryOf(f[2][0]) == 0)
        throw InputError(file, where, "synset type \"" + f[2] + "\" is not one of n v a s r");
    const char ssType = f[2][0];
    if (categoryOf(ssType) != categoryOf(filePos))
        throw InputError(file, where, std::string("synset type '") + ssType + "' does not belong in this file");
    if (categoryOf(ssType) != lexnames[lex].category)
        throw InputError(file, where,
                         std::string("synset type '") + ssType + "' contradicts lexicographer file " +
                             lexnames[lex].name);
    if (!allHex(f[3]) || f[3].size() != 2)
        throw InputError(file, where, "word count \"" + f[3] + "\" is not 2 hex digits");
    const std::size_t wCnt = std::stoul(f[3], nullptr, 16);
    if (wCnt == 0)
        throw InputError(file, where, "synset has no words");
    i = 4;
    Synset s;
    need(2 * wCnt, "the synset's words");
    for (std::size_t w = 0; w < wCnt; ++w, i += 2) {
        std::string word = f[i];
        const std::size_t paren = word.find('('); // adjective markers: (a) (p) (ip)
        if (paren != std::string::npos && paren > 0)
            word.resize(paren);
        for (char& c : word)
            if (c == '_')
                c = ' ';
        if (!allHex(f[i + 1]))
            throw InputError(file, where, "lex_id \"" + f[i + 1] + "\" of word \"" + f[i] + "\" is not hex");
        if (!s.words.empty())
            s.words += ", ";
        s.words += word;
    }
    need(1, "the pointer count");
    if (f[i].size() != 3 || !allDigits(f[i]))
        throw InputError(file, where, "pointer count \"" + f[i] + "\" is not 3 digits");
    const std::size_t pCnt = std::stoul(f[i++]);
    need(4 * pCnt, "the synset's pointers");
    for (std::size_t p = 0; p < pCnt; ++p, i += 4)
        if (f[i + 1].size() != 8 || !allDigits(f[i + 1]) || f[i + 3].size() != 4 || !allHex(f[i + 3]))
            throw InputError(file, where, "pointer " + std::to_string(p + 1) + " is malformed");
    if (ssType == 'v') {
        need(1, "the verb frame count");
        // wndb(5WN): "f_cnt" is a two-digit decimal number (more would overflow std::stoul and
        // 3 x f_cnt).
        if (!allDigits(f[i]) || f[i].size() > 2)
            throw InputError(file, where, "verb frame count \"" + f[i] + "\" is not a number of at most 2 digits");
        const std::size_t fCnt = std::stoul(f[i++]);
        need(3 * fCnt, "the verb frames");
        for (std::size_t k = 0; k < fCnt; ++k, i += 3)
            if (f[i] != "+")
                throw InputError(file, where, "verb frame " + std::to_string(k + 1) + " does not start with '+'");
    }
    if (i != f.size())
        throw InputError(file, where,
                         std::to_string(f.size() - i) + " unexpected fields before the gloss (counts do not match)");
    s.label = lexnames[lex].name;
    s.gloss = bar == std::string::npos ? std::string() : line.substr(bar + 3);
    s.key = std::string(1, filePos) + offset;
    return s;
}

} // namespace

CorpusStats writeWordnetGlosses(const std::string& wordnetDictDir, const std::string& outTsv,
                                const WordnetOptions& options)
{
    CorpusStats stats;
    const fs::path dir(wordnetDictDir);
    std::vector<LexFile> lexnames;
    std::string lexSource;
    if (fs::exists(dir / "lexnames")) {
        lexnames = readLexnames((dir / "lexnames").string());
        lexSource = "lexnames file";
    } else {
        lexnames = builtinLexnames();
        lexSource = "lexnames(5WN) table";
    }

    CorpusWriter writer;
    std::size_t filesRead = 0;
    std::size_t emptyGlosses = 0;
    const std::array<std::pair<const char*, char>, 4> files = {
        {{"data.noun", 'n'}, {"data.verb", 'v'}, {"data.adj", 'a'}, {"data.adv", 'r'}}};
    for (const auto& [name, pos] : files) {
        const fs::path path = dir / name;
        if (!fs::exists(path)) {
            stats.notes.push_back(std::string(name) + " not found in " + wordnetDictDir + ": left out");
            continue;
        }
        ++filesRead;
        LineReader in(path.string());
        std::string line;
        std::size_t synsets = 0;
        while (in.next(line)) {
            if (line.rfind("  ", 0) == 0) // the licence header: lines start with two spaces
                continue;
            if (line.empty())
                continue;
            Synset s = parseSynset(line, path.string(), in.lineNumber(), lexnames, pos);
            ++synsets;
            std::string text = options.includeSynsetWords ? s.words + ": " + s.gloss : s.gloss;
            if (!writer.add(std::move(s.label), s.gloss.find_first_not_of(' ') == std::string::npos ? "" : text,
                            std::move(s.key)))
                ++emptyGlosses;
        }
        if (synsets == 0)
            throw InputError(path.string(), "", "holds no synset lines");
    }
    if (filesRead == 0)
        throw InputError(wordnetDictDir, "", "no WordNet data files (data.noun, data.verb, data.adj, data.adv) here");
    if (emptyGlosses > 0) {
        stats.dropped += emptyGlosses;
        stats.notes.push_back(std::to_string(emptyGlosses) + " synsets without a gloss dropped");
    }
    // Some synsets share a gloss word for word; they stay (each is its own synset), but the
    // figure is reported since identical documents sit on both sides of any split.
    std::unordered_map<std::string, std::string> firstLabel;
    std::size_t repeated = 0, repeatedAcrossLabels = 0;
    for (const auto& d : writer.documents()) {
        const auto [it, fresh] = firstLabel.emplace(d.text, d.label);
        if (!fresh) {
            ++repeated;
            if (it->second != d.label)
                ++repeatedAcrossLabels;
        }
    }
    if (repeated > 0)
        stats.notes.push_back(std::to_string(repeated) + " synsets repeat the text of an earlier synset (kept; " +
                              std::to_string(repeatedAcrossLabels) + " of them under another label)");
    const std::size_t capped = writer.capPerClass(options.balancedPerClass, options.seed);
    if (capped > 0) {
        stats.dropped += capped;
        stats.notes.push_back(std::to_string(capped) + " synsets left out by the balanced subset (at most " +
                              std::to_string(options.balancedPerClass) + " per class, seed " +
                              std::to_string(options.seed) + ")");
    }
    std::string header = "setscope corpus wordnet-glosses: WordNet 3.0 synset glosses from " + wordnetDictDir +
                         ", label = lexicographer file (" + lexSource + ")";
    header += options.includeSynsetWords ? ", text = synset words + gloss" : ", text = gloss";
    if (options.balancedPerClass > 0)
        header += ", at most " + std::to_string(options.balancedPerClass) + " per class (seed " +
                  std::to_string(options.seed) + ")";
    writer.write(outTsv, header, stats);
    return stats;
}

} // namespace setscope::fetch::corpora
