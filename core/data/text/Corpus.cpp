// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/text/Corpus.h"

#include "core/data/text/Tokenizer.h"
#include "core/util/Text.h"

#include <setscope/sdk/Errors.h>

#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

namespace fs = std::filesystem;

namespace setscope::data {

using sdk::InputError;
using sdk::Split;

namespace {

bool parseSplit(std::string_view s, Split& out)
{
    if (s == "train")
        out = Split::Train;
    else if (s == "test")
        out = Split::Test;
    else if (s == "val")
        out = Split::Val;
    else
        return false;
    return true;
}

std::string readWhole(const fs::path& p)
{
    std::ifstream f(p, std::ios::binary);
    if (!f)
        throw InputError(p.string(), "", std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    if (f.bad())
        throw InputError(p.string(), "", "read error");
    return ss.str();
}

bool hidden(const fs::path& p) { return !p.filename().empty() && p.filename().string()[0] == '.'; }

std::vector<fs::path> sortedEntries(const fs::path& dir)
{
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (!hidden(e.path()))
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

Corpus readCorpusTsv(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    Corpus c;
    c.sourceFiles.push_back(path);
    const std::string base = fs::path(path).filename().string();
    std::string line;
    std::uint64_t lineNo = 0;
    int withSplit = -1; // -1 = not decided yet
    while (std::getline(f, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty() || line[0] == '#')
            continue;
        const auto at = InputError::atLine(lineNo);
        if (!isValidUtf8(line))
            throw InputError(path, at, "not valid UTF-8 text");
        const auto tab1 = line.find('\t');
        if (tab1 == std::string::npos)
            throw InputError(path, at, "expected 'label<TAB>text' or 'label<TAB>text<TAB>split', found no TAB");
        if (tab1 == 0)
            throw InputError(path, at, "empty label before the first TAB");
        const auto tab2 = line.find('\t', tab1 + 1);
        Split split = Split::Train;
        bool hasSplit = false;
        if (tab2 != std::string::npos) {
            const std::string_view third = std::string_view(line).substr(tab2 + 1);
            if (third.find('\t') != std::string_view::npos)
                throw InputError(path, at, "more than three TAB-separated fields (label, text, split)");
            if (!parseSplit(third, split))
                throw InputError(path, at, "unknown split '" + std::string(third) + "' (train, test or val)");
            hasSplit = true;
        }
        if (withSplit < 0)
            withSplit = hasSplit ? 1 : 0;
        else if (withSplit != (hasSplit ? 1 : 0))
            throw InputError(path, at,
                             hasSplit ? "this line has a split column but the lines before it have none"
                                      : "this line has no split column but the lines before it have one");
        c.ids.push_back(base + ":" + std::to_string(lineNo));
        c.labels.push_back(line.substr(0, tab1));
        c.texts.push_back(line.substr(tab1 + 1, (tab2 == std::string::npos ? line.size() : tab2) - tab1 - 1));
        if (hasSplit)
            c.splits.push_back(split);
    }
    if (f.bad())
        throw InputError(path, InputError::atLine(lineNo + 1), "read error");
    if (c.texts.empty())
        throw InputError(path, "", "no documents (expected lines 'label<TAB>text')");
    return c;
}

Corpus readCorpusFolder(const std::string& root)
{
    if (!fs::is_directory(root))
        throw InputError(root, "", "not a directory");
    Corpus c;
    std::size_t skipped = 0;
    std::string firstSkipped;
    int layoutWithSplits = -1;
    for (const fs::path& classDir : sortedEntries(root)) {
        if (!fs::is_directory(classDir))
            continue;
        const std::string label = classDir.filename().string();
        std::vector<std::pair<fs::path, int>> files; // path, split (-1 none)
        bool direct = false;
        bool splitDirs = false;
        for (const fs::path& e : sortedEntries(classDir)) {
            Split s;
            if (fs::is_directory(e) && parseSplit(e.filename().string(), s)) {
                splitDirs = true;
                for (const fs::path& f : sortedEntries(e)) {
                    if (fs::is_regular_file(f) && util::lowerExtension(f.string()) == ".txt") {
                        files.emplace_back(f, static_cast<int>(s));
                    } else {
                        if (!skipped++)
                            firstSkipped = f.string();
                    }
                }
            } else if (fs::is_regular_file(e) && util::lowerExtension(e.string()) == ".txt") {
                direct = true;
                files.emplace_back(e, -1);
            } else {
                if (!skipped++)
                    firstSkipped = e.string();
            }
        }
        if (direct && splitDirs)
            throw InputError(classDir.string(), "",
                             "class folder holds both .txt files and train/test folders; use one layout");
        if (files.empty())
            continue;
        const int layout = splitDirs ? 1 : 0;
        if (layoutWithSplits < 0)
            layoutWithSplits = layout;
        else if (layoutWithSplits != layout)
            throw InputError(classDir.string(), "",
                             "some class folders have train/test sub-folders and others do not; use one layout");
        for (const auto& [p, s] : files) {
            std::string text = readWhole(p);
            if (!isValidUtf8(text))
                throw InputError(p.string(), "", "not valid UTF-8 text");
            c.ids.push_back(fs::relative(p, root).generic_string());
            c.labels.push_back(label);
            c.texts.push_back(std::move(text));
            if (s >= 0)
                c.splits.push_back(static_cast<Split>(s));
            c.sourceFiles.push_back(p.string());
        }
    }
    if (c.texts.empty())
        throw InputError(root, "", "no documents: expected root/<class>/*.txt or root/<class>/{train,test}/*.txt");
    if (skipped)
        c.notes.push_back(std::to_string(skipped) + " entries that are not .txt documents were skipped (first: "
                          + firstSkipped + ")");
    return c;
}

Corpus readCorpus(const std::string& path) { return fs::is_directory(path) ? readCorpusFolder(path) : readCorpusTsv(path); }

bool looksLikeCorpusFolder(const std::string& path)
{
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return false;
    bool anyTxt = false;
    for (const auto& e : fs::directory_iterator(path, ec)) {
        if (hidden(e.path()))
            continue;
        if (e.is_regular_file()) {
            const std::string stem = util::toLower(e.path().stem().string());
            if (stem != "readme" && stem != "license")
                return false;
            continue;
        }
        if (!e.is_directory())
            continue;
        for (const auto& f : fs::recursive_directory_iterator(e.path(), ec)) {
            if (f.is_regular_file() && util::lowerExtension(f.path().string()) == ".txt") {
                anyTxt = true;
                break;
            }
        }
    }
    return anyTxt;
}

Corpus capPerClass(const Corpus& c, std::size_t perClass, std::uint64_t seed)
{
    std::vector<std::size_t> order(c.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::vector<std::uint64_t> key(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
        key[i] = XXH3_64bits_withSeed(c.ids[i].data(), c.ids[i].size(), seed);
    std::stable_sort(order.begin(), order.end(), [&key](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    std::map<std::string, std::size_t> taken;
    std::vector<bool> keep(c.size(), false);
    for (std::size_t i : order)
        if (taken[c.labels[i]]++ < perClass)
            keep[i] = true;
    Corpus out;
    out.sourceFiles = c.sourceFiles;
    out.notes = c.notes;
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (!keep[i])
            continue;
        out.ids.push_back(c.ids[i]);
        out.labels.push_back(c.labels[i]);
        out.texts.push_back(c.texts[i]);
        if (c.hasSplits())
            out.splits.push_back(c.splits[i]);
    }
    out.notes.push_back("balanced subset: at most " + std::to_string(perClass) + " documents per class (" +
                        std::to_string(out.size()) + " of " + std::to_string(c.size()) + ")");
    return out;
}

} // namespace setscope::data
