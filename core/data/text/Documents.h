// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/text/Corpus.h"
#include "core/data/text/FastTextTrainer.h"
#include "core/data/text/Tokenizer.h"
#include "core/data/text/WordVectors.h"

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/LoadContext.h>
#include <setscope/sdk/Options.h>

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {

struct DocumentOptions {
    TokenizerOptions tok;
    /// Word types occurring fewer times in the whole corpus are removed (counted in the stats).
    int minCount = 1;
    /// Append the word's normalised frequency in the document as feature D+1 (the papers'
    /// 300 + 1 = 301, seed 001 §6.2.1).
    bool appendTermFrequency = false;
    /// Use a fastText model's subword vector for an out-of-vocabulary word (counted
    /// separately as "OOV with subword vector").
    bool useSubwordVectors = true;
    /// Stratified split drawn when the corpus has none: per class, round(n * testFraction)
    /// documents go to the test split (at least one stays in train). Deterministic in
    /// splitSeed on every platform.
    std::uint64_t splitSeed = 1;
    double testFraction = 0.3;
    /// loadDocuments keeps at most this many documents per class (0 = all), chosen by
    /// capPerClass with splitSeed.
    std::size_t maxPerClass = 0;
    std::string name;         ///< dataset name ("" = the corpus file's stem)
    int exampleCount = 5;     ///< examples given in notes (OOV words, dropped documents)
};

struct DocumentStats {
    std::size_t documents = 0;          ///< in the corpus
    std::size_t kept = 0;               ///< written to the sink
    std::size_t droppedEmpty = 0;       ///< no in-vocabulary word left
    std::vector<std::string> droppedIds;     ///< the first exampleCount of them
    std::size_t tokens = 0;             ///< after stop words and numbers
    std::size_t belowMinCountTokens = 0;
    std::size_t belowMinCountTypes = 0;
    std::size_t inVocabTokens = 0;      ///< tokens with a vector (subword ones included)
    std::size_t oovTokens = 0;          ///< tokens without any vector (dropped)
    std::size_t oovTypes = 0;
    std::size_t subwordTokens = 0;      ///< OOV tokens given a fastText subword vector
    std::size_t subwordTypes = 0;
    std::size_t vocabulary = 0;         ///< distinct words used as elements
    std::vector<std::string> oovExamples;    ///< most frequent OOV words first
    std::size_t minSetSize = 0, maxSetSize = 0;
    double meanSetSize = 0.0;
    int dim = 0;                        ///< element dimension written (D or D+1)
};

/// Turns a corpus into documents: each document is one item whose elements are the vectors
/// of its distinct in-vocabulary words (in order of first occurrence), weighted by the
/// normalised bag of words (count / the document's total in-vocabulary count, Kusner et
/// al.'s nBOW), with the word as element text (shown on hover). Label set "fine": the
/// class names sorted bytewise. Splits from the corpus, else a stratified split (options).
/// OOV tokens are counted and reported through sink.note() with examples; documents left
/// empty are dropped with a note giving their count and first ids.
/// Throws sdk::InputError when no document has an in-vocabulary word.
DocumentStats buildDocuments(const Corpus& corpus, const WordVectors& vectors, const DocumentOptions& options,
                             sdk::DatasetSink& sink);

/// Tokenises every document of the corpus (the same rules buildDocuments applies,
/// including minCount), e.g. to train fastText on it.
std::vector<std::vector<std::string>> tokenizeCorpus(const Corpus& corpus, const DocumentOptions& options);

/// Where the word vectors of a document dataset come from.
struct DocumentSource {
    enum class Kind { File, TrainFastText };
    Kind kind = Kind::TrainFastText;
    std::string path;            ///< for File
    WordVectorOptions file;      ///< for File
    FastTextOptions fastText;    ///< for TrainFastText
    std::string cacheDir;        ///< for TrainFastText ("" = default)

    /// "file PATH" (or just a path) or "train fasttext" / "fasttext"; throws
    /// std::invalid_argument otherwise.
    static DocumentSource parse(const std::string& spec);
    /// $SETSCOPE_WORD_VECTORS as a spec when set and not empty, else TrainFastText.
    static DocumentSource fromEnvironment();
};

/// Reads a corpus (readCorpus: a .tsv file or a class folder), keeps options.maxPerClass
/// documents per class, obtains word vectors from `vectors` and writes the documents into
/// `sink`. Blocking; `context` (may be null) gets progress and is polled for cancel. Notes
/// give the vectors' origin and the OOV figures.
DocumentStats loadDocuments(const std::string& corpusPath, const DocumentSource& vectors, const DocumentOptions& options,
                            sdk::DatasetSink& sink, sdk::LoadContext* context = nullptr);

/// The options of the corpus loaders (corpus-tsv, corpus-folder) and of the built-in
/// corpora (brown, ...), as they declare them (docs/DATASETS.md).
struct CorpusLoaderOptions {
    /// tf, min-count, numbers, stopwords, test, seed and balanced (maxPerClass).
    DocumentOptions documents;
    /// As given: "glove-100d", "train" (fastText on the corpus), a word-vector file, or ""
    /// ($SETSCOPE_WORD_VECTORS, else train). The catalogue turns it into a DocumentSource.
    std::string vectors;
    /// For vectors trained on the corpus: fastText's settings with the options' dim and
    /// epochs (100 and 5 unless given).
    FastTextOptions fastText;

    /// vectors, tf, min-count, numbers, stopwords, balanced, test, seed, dim, epochs.
    static sdk::OptionSchema schema();
    /// From values resolved against schema().
    static CorpusLoaderOptions fromValues(const sdk::OptionValues& values);
};

/// The stratified split buildDocuments draws: `labels[i]` is a class id; returns one
/// split per item. Exposed for tests.
std::vector<sdk::Split> stratifiedSplit(const std::vector<std::int32_t>& labels, double testFraction, std::uint64_t seed);

} // namespace setscope::data
