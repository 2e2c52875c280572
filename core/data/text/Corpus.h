// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/DatasetSink.h>

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {

/// Labelled raw documents, before tokenising. `ids`, `labels` and `texts` have one entry
/// per document; `splits` is empty (no split given: one is drawn later) or has one entry
/// per document.
struct Corpus {
    std::vector<std::string> ids;    ///< "file:line" (TSV) or "class/file.txt" (folder)
    std::vector<std::string> labels; ///< class name per document
    std::vector<std::string> texts;  ///< UTF-8
    std::vector<sdk::Split> splits;
    std::vector<std::string> sourceFiles;
    std::vector<std::string> notes;  ///< things the user should know (skipped files)

    std::size_t size() const { return texts.size(); }
    bool hasSplits() const { return !splits.empty(); }
};

/// Reads a corpus.tsv: UTF-8 lines `label<TAB>text` or `label<TAB>text<TAB>split`
/// (split = train | test | val). Lines starting with '#' and empty lines are skipped, a
/// trailing '\r' is removed. Either every document line has a split or none has.
/// Throws sdk::InputError with the line number for: no TAB, an empty label, a fourth
/// field, an unknown split, a mix of lines with and without a split, invalid UTF-8, and
/// a file without any document.
Corpus readCorpusTsv(const std::string& path);

/// Reads a class-folder corpus: root/<class>/*.txt, one document per file, or
/// root/<class>/{train,test,val}/*.txt for a given split (every class the same way).
/// Files are read in sorted order, hidden entries are ignored and other files are
/// skipped with a note. Throws sdk::InputError when the root has no class folder with
/// a .txt file, when a file is not UTF-8, or when the layouts are mixed.
Corpus readCorpusFolder(const std::string& root);

/// readCorpusFolder for a directory, readCorpusTsv otherwise.
Corpus readCorpus(const std::string& path);

/// At most `perClass` documents of each class, chosen by a seeded hash (XXH3-64) of their
/// ids rather than the first ones in the file, in corpus order; a note says how many were
/// kept.
Corpus capPerClass(const Corpus& corpus, std::size_t perClass, std::uint64_t seed);

/// True for a directory whose sub-folders hold .txt files (a class-folder corpus) and that
/// has no regular files of its own other than hidden ones and a README.
bool looksLikeCorpusFolder(const std::string& path);

} // namespace setscope::data
