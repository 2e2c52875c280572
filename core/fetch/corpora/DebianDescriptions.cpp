// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/corpora/Corpora.h"
#include "core/fetch/corpora/CorpusWriter.h"
#include "core/fetch/corpora/LineReader.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fs = std::filesystem;

namespace setscope::fetch::corpora {

using sdk::InputError;

const std::vector<std::string>& nonTopicalDebianSections()
{
    // Sections that group packages by their packaging role rather than by what they are
    // about; their descriptions would teach a model "is a library" or "is documentation".
    static const std::vector<std::string> kSections = {
        "libs",             // shared libraries (the topic is the program that uses them)
        "oldlibs",          // obsolete libraries and transitional packages
        "libdevel",         // headers and static libraries for libs
        "debug",            // debug symbols
        "doc",              // documentation of another package
        "metapackages",     // empty packages that only depend on others
        "tasks",            // tasksel tasks: metapackages again
        "localization",     // language packs
        "translations",     // ditto (older archives)
        "introspection",    // GObject introspection typelibs
        "debian-installer", // installer components (udebs)
        "misc",             // "miscellaneous": no topic by definition
    };
    return kSections;
}

namespace {

struct Stanza {
    std::map<std::string, std::string> fields; ///< name -> value; continuation lines joined by '\n'
    std::uint64_t line = 0;                     ///< first line of the stanza
};

/// Reads deb822 stanzas (Packages, Translation-en) one at a time.
class StanzaReader {
public:
    explicit StanzaReader(const std::string& path)
        : m_in(path)
    {
    }

    bool next(Stanza& s)
    {
        s.fields.clear();
        s.line = 0;
        std::string line;
        std::string* last = nullptr;
        while (m_in.next(line)) {
            if (line.find_first_not_of(" \t") == std::string::npos) {
                if (!s.fields.empty())
                    return true;
                continue;
            }
            if (line[0] == ' ' || line[0] == '\t') {
                if (!last)
                    throw InputError(m_in.path(), InputError::atLine(m_in.lineNumber()),
                                     "continuation line with no field before it");
                *last += '\n';
                last->append(line, 1, std::string::npos);
                continue;
            }
            if (line[0] == '#')
                continue;
            const std::size_t colon = line.find(':');
            if (colon == std::string::npos || colon == 0)
                throw InputError(m_in.path(), InputError::atLine(m_in.lineNumber()),
                                 "expected \"Field: value\", got \"" + line.substr(0, 60) + "\"");
            if (s.fields.empty())
                s.line = m_in.lineNumber();
            std::string value = line.substr(colon + 1);
            const std::size_t b = value.find_first_not_of(" \t");
            value = b == std::string::npos ? std::string() : value.substr(b);
            while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
                value.pop_back();
            last = &(s.fields[line.substr(0, colon)] = std::move(value));
        }
        return !s.fields.empty();
    }

    const std::string& path() const { return m_in.path(); }

private:
    LineReader m_in;
};

const std::string* field(const Stanza& s, const char* name)
{
    const auto it = s.fields.find(name);
    return it == s.fields.end() ? nullptr : &it->second;
}

/// "<name>_Packages" or "<name>_Translation-en", optionally with a compression suffix.
bool listNameMatches(const std::string& n, const std::string& kind)
{
    static const char* const kSuffixes[] = {"", ".gz", ".xz", ".lz4", ".bz2", ".zst", ".lzma"};
    for (const char* suf : kSuffixes) {
        const std::string want = "_" + kind + suf;
        if (n.size() > want.size() && n.compare(n.size() - want.size(), want.size(), want) == 0)
            return true;
    }
    return false;
}

struct Description {
    std::string synopsis;
    std::string body; ///< the long description, paragraphs joined by spaces
};

/// Splits a deb822 Description value: the synopsis line, then continuation lines where
/// "." is an empty line (paragraph break).
Description splitDescription(const std::string& value)
{
    Description d;
    const std::size_t nl = value.find('\n');
    d.synopsis = value.substr(0, nl);
    if (nl == std::string::npos)
        return d;
    std::size_t pos = nl + 1;
    while (pos <= value.size()) {
        std::size_t end = value.find('\n', pos);
        if (end == std::string::npos)
            end = value.size();
        std::string l = value.substr(pos, end - pos);
        const std::size_t b = l.find_first_not_of(" \t");
        if (b != std::string::npos && !(l.compare(b, std::string::npos, ".") == 0)) {
            if (!d.body.empty())
                d.body += ' ';
            d.body += l.substr(b);
        }
        pos = end + 1;
    }
    return d;
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool isTransitional(const std::string& synopsis)
{
    const std::string s = lower(synopsis);
    return s.find("transitional") != std::string::npos || s.find("dummy package") != std::string::npos;
}

/// Binary packages that accompany the main one; a poorer representative of the source.
bool isAuxiliary(const std::string& package)
{
    static const char* const kSuffixes[] = {"-doc", "-data", "-common", "-dbg", "-examples", "-tests", "-dev"};
    for (const char* suf : kSuffixes) {
        const std::size_t n = std::strlen(suf);
        if (package.size() > n && package.compare(package.size() - n, n, suf) == 0)
            return true;
    }
    return false;
}

std::string stripArea(const std::string& section)
{
    const std::size_t slash = section.rfind('/');
    return slash == std::string::npos ? section : section.substr(slash + 1);
}

struct Group {
    std::map<std::string, std::string> sectionOf; ///< package -> section (first seen)
    std::map<std::string, std::string> sourceOf;  ///< package -> source package
    std::string fullDescription;                  ///< from Packages, when it holds the long text
};

std::string formatCounts(const std::map<std::string, std::size_t>& counts)
{
    std::string s;
    for (const auto& [k, v] : counts)
        s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v);
    return s;
}

} // namespace

CorpusStats writeDebianDescriptions(const std::string& aptListsDir, const std::string& outTsv,
                                    const DebianDescriptionsOptions& options)
{
    const fs::path dir(aptListsDir);
    if (!fs::is_directory(dir))
        throw InputError(aptListsDir, "", "not a folder");
    std::vector<std::string> packagesFiles, translationFiles;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (!e.is_regular_file())
            continue;
        const std::string n = e.path().filename().string();
        if (listNameMatches(n, "Packages"))
            packagesFiles.push_back(e.path().string());
        else if (listNameMatches(n, "Translation-en"))
            translationFiles.push_back(e.path().string());
    }
    std::sort(packagesFiles.begin(), packagesFiles.end());
    std::sort(translationFiles.begin(), translationFiles.end());
    const std::string howTo = "; fill it with apt-get update -o Dir::State::Lists=" + aptListsDir +
                              " -o Acquire::Languages=en";
    if (packagesFiles.empty())
        throw InputError(aptListsDir, "", "no *_Packages index here" + howTo);

    CorpusStats stats;
    // Packages: group packages by description (md5, or the full text when Packages has it).
    std::map<std::string, Group> groups;
    std::size_t stanzas = 0, withoutSection = 0, withoutDescription = 0;
    for (const std::string& path : packagesFiles) {
        StanzaReader in(path);
        Stanza s;
        while (in.next(s)) {
            ++stanzas;
            const std::string* name = field(s, "Package");
            if (!name || name->empty())
                throw InputError(path, InputError::atLine(s.line), "Packages stanza without a Package field");
            const std::string* section = field(s, "Section");
            if (!section || section->empty()) {
                if (options.skipStanzasWithoutSection) {
                    ++withoutSection;
                    continue;
                }
                throw InputError(path, InputError::atLine(s.line),
                                 "Packages stanza of \"" + *name + "\" has no Section field");
            }
            const std::string* md5 = field(s, "Description-md5");
            const std::string* desc = field(s, "Description");
            std::string key;
            Group* g = nullptr;
            if (desc && desc->find('\n') != std::string::npos) {
                key = "text:" + *desc; // the long description is in Packages itself
                g = &groups[key];
                g->fullDescription = *desc;
            } else if (md5 && !md5->empty()) {
                g = &groups["md5:" + lower(*md5)];
            } else {
                ++withoutDescription;
                continue;
            }
            g->sectionOf.emplace(*name, stripArea(*section));
            // "Source: name (version)" when it differs from the package; else the package itself.
            std::string source = *name;
            if (const std::string* src = field(s, "Source"); src && !src->empty())
                source = src->substr(0, src->find(' '));
            g->sourceOf.emplace(*name, source);
        }
    }
    if (stanzas == 0)
        throw InputError(packagesFiles.front(), "", "no package stanzas in any Packages index");

    // Translation-en: md5 -> description, only for md5s some package uses.
    std::unordered_map<std::string, std::string> english;
    std::size_t translations = 0;
    for (const std::string& path : translationFiles) {
        StanzaReader in(path);
        Stanza s;
        while (in.next(s)) {
            ++translations;
            const std::string* md5 = field(s, "Description-md5");
            const std::string* desc = field(s, "Description-en");
            if (!md5 || md5->empty())
                throw InputError(path, InputError::atLine(s.line), "Translation-en stanza without Description-md5");
            if (!desc)
                throw InputError(path, InputError::atLine(s.line), "Translation-en stanza without Description-en");
            const std::string key = "md5:" + lower(*md5);
            if (groups.count(key))
                english.emplace(key, *desc);
        }
    }

    struct Candidate {
        std::string firstPackage;
        std::string source;
        int rank = 1; ///< within a source: 0 named like it, 1 other, 2 an auxiliary package
        std::string label;
        std::string text;
        std::size_t packages = 0;
    };
    std::vector<Candidate> candidates;
    std::size_t noTranslation = 0, noTranslationPackages = 0, conflicts = 0, transitional = 0, emptyText = 0;
    std::map<std::string, std::size_t> droppedBySection;
    const std::vector<std::string>& dropList =
        options.droppedSections.empty() ? nonTopicalDebianSections() : options.droppedSections;
    const std::set<std::string> dropSet(dropList.begin(), dropList.end());
    for (const auto& [key, g] : groups) {
        std::string value = g.fullDescription;
        if (value.empty()) {
            const auto it = english.find(key);
            if (it == english.end()) {
                ++noTranslation;
                noTranslationPackages += g.sectionOf.size();
                continue;
            }
            value = it->second;
        }
        std::map<std::string, std::size_t> votes;
        for (const auto& [pkg, sec] : g.sectionOf)
            ++votes[sec];
        std::string label;
        std::size_t best = 0;
        for (const auto& [sec, n] : votes) // map order: ties go to the alphabetically first
            if (n > best) {
                best = n;
                label = sec;
            }
        if (votes.size() > 1)
            ++conflicts;
        if (dropSet.count(label)) {
            ++droppedBySection[label];
            continue;
        }
        const Description d = splitDescription(value);
        if (options.dropTransitional && isTransitional(d.synopsis)) {
            ++transitional;
            continue;
        }
        std::string text;
        if (options.includeSynopsis) {
            text = d.synopsis;
            const char last = text.empty() ? '.' : text.back();
            if (!d.body.empty())
                text += (last == '.' || last == '!' || last == '?') ? " " : ". ";
        }
        text += d.body;
        if (text.find_first_not_of(" \t") == std::string::npos) {
            ++emptyText;
            continue;
        }
        const std::string& first = g.sectionOf.begin()->first;
        const std::string& source = g.sourceOf.at(first);
        const int rank = g.sectionOf.count(source) > 0 ? 0 : isAuxiliary(first) ? 2 : 1;
        candidates.push_back({first, source, rank, label, std::move(text), g.sectionOf.size()});
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.firstPackage < b.firstPackage; });

    // Binary packages built from one source share most of their description (foo, foo-data,
    // python3-foo; librust-foo+feature-dev; libghc-foo-dev / -prof): near-duplicates that
    // would sit on both sides of a train/test split. Keep one per source package: the
    // package named like the source when it is there, else the first by name that is not
    // an auxiliary (-doc, -data, -common, ...) package.
    std::size_t sameSource = 0;
    if (options.onePerSourcePackage) {
        std::unordered_map<std::string, std::size_t> chosen;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const auto [it, fresh] = chosen.emplace(candidates[i].source, i);
            if (!fresh && candidates[i].rank < candidates[it->second].rank)
                it->second = i;
        }
        std::vector<Candidate> kept;
        for (std::size_t i = 0; i < candidates.size(); ++i)
            if (chosen.at(candidates[i].source) == i)
                kept.push_back(std::move(candidates[i]));
        sameSource = candidates.size() - kept.size();
        candidates = std::move(kept);
    }

    // Identical texts under different md5s (e.g. synopsis dropped, or two suites): keep the first.
    CorpusWriter all;
    std::unordered_set<std::string> seen;
    std::size_t duplicates = 0;
    for (Candidate& c : candidates) {
        std::size_t ignored = 0;
        const std::string cleaned = CorpusWriter::clean(c.text, ignored);
        if (!seen.insert(cleaned).second) {
            ++duplicates;
            continue;
        }
        all.add(c.label, c.text, c.firstPackage);
    }
    std::map<std::string, std::size_t> sizes;
    for (const auto& d : all.documents())
        ++sizes[d.label];
    std::map<std::string, std::size_t> small;
    for (const auto& [label, n] : sizes)
        if (n < options.minClassSize)
            small[label] = n;
    CorpusWriter writer;
    writer.addReplacedBytes(all.replacedBytes());
    std::size_t smallDropped = 0;
    for (auto& d : all.documents()) {
        if (small.count(d.label)) {
            ++smallDropped;
            continue;
        }
        writer.add(std::move(d.label), d.text, std::move(d.key));
    }
    const std::size_t capped = writer.capPerClass(options.maxPerClass, options.seed);

    std::size_t sectionDropped = 0;
    for (const auto& [sec, n] : droppedBySection)
        sectionDropped += n;
    stats.dropped =
        noTranslation + sectionDropped + transitional + emptyText + sameSource + duplicates + smallDropped + capped;
    stats.notes.push_back(std::to_string(stanzas) + " package stanzas in " + std::to_string(packagesFiles.size()) +
                          " Packages files, " + std::to_string(translations) + " descriptions in " +
                          std::to_string(translationFiles.size()) + " Translation-en files, " +
                          std::to_string(groups.size()) + " distinct descriptions (dropped counts below are descriptions)");
    if (withoutSection > 0)
        stats.notes.push_back(std::to_string(withoutSection) + " package stanzas without Section skipped");
    if (withoutDescription > 0)
        stats.notes.push_back(std::to_string(withoutDescription) +
                              " package stanzas with neither Description-md5 nor a long Description skipped");
    if (noTranslation > 0)
        stats.notes.push_back(std::to_string(noTranslation) + " descriptions (" + std::to_string(noTranslationPackages) +
                              " packages) not found in Translation-en: dropped");
    if (conflicts > 0)
        stats.notes.push_back(std::to_string(conflicts) +
                              " descriptions shared by packages of different sections: the majority section is the label");
    if (sectionDropped > 0)
        stats.notes.push_back(std::to_string(sectionDropped) +
                              " descriptions in non-topical sections dropped: " + formatCounts(droppedBySection));
    if (transitional > 0)
        stats.notes.push_back(std::to_string(transitional) + " transitional/dummy package descriptions dropped");
    if (emptyText > 0)
        stats.notes.push_back(std::to_string(emptyText) + " empty descriptions dropped");
    if (sameSource > 0)
        stats.notes.push_back(std::to_string(sameSource) +
                              " descriptions dropped because another package of the same source package is kept");
    if (duplicates > 0)
        stats.notes.push_back(std::to_string(duplicates) + " descriptions with the same text as an earlier one dropped");
    if (smallDropped > 0)
        stats.notes.push_back(std::to_string(smallDropped) + " descriptions in classes smaller than " +
                              std::to_string(options.minClassSize) + " dropped: " + formatCounts(small));
    if (capped > 0)
        stats.notes.push_back(std::to_string(capped) + " descriptions left out by the per-class cap of " +
                              std::to_string(options.maxPerClass) + " (seed " + std::to_string(options.seed) + ")");
    if (translationFiles.empty())
        stats.notes.push_back("no *_Translation-en index in " + aptListsDir + howTo);

    if (writer.documents().empty()) {
        std::string why;
        for (const std::string& n : stats.notes)
            why += "; " + n;
        throw InputError(aptListsDir, "", "no description survived" + why);
    }
    std::string header = "setscope corpus debian-descriptions: Debian package descriptions from " + aptListsDir +
                         ", label = Section, one document per distinct description";
    header += options.includeSynopsis ? ", text = synopsis + long description" : ", text = long description";
    writer.write(outTsv, header, stats);
    return stats;
}

} // namespace setscope::fetch::corpora
