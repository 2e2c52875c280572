// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/text/Documents.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace fs = std::filesystem;

namespace setscope::data {

using sdk::InputError;
using sdk::Split;

namespace {

/// SplitMix64: a fully specified generator, so splits are the same on every platform
/// (std::shuffle and the std distributions are not specified bit for bit).
struct SplitMix64 {
    std::uint64_t s;
    std::uint64_t next()
    {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n) without modulo bias.
    std::uint64_t below(std::uint64_t n)
    {
        const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
        std::uint64_t x;
        do
            x = next();
        while (x >= limit);
        return x % n;
    }
};

struct Tokenised {
    std::vector<std::vector<std::string>> docs;
    std::size_t tokens = 0;
    std::size_t belowTokens = 0;
    std::size_t belowTypes = 0;
};

Tokenised tokenise(const Corpus& corpus, const DocumentOptions& options)
{
    const Tokenizer tok(options.tok);
    Tokenised t;
    t.docs.reserve(corpus.size());
    std::unordered_map<std::string, std::size_t> counts;
    for (const auto& text : corpus.texts) {
        t.docs.push_back(tok.tokenize(text));
        for (const auto& w : t.docs.back())
            ++counts[w];
        t.tokens += t.docs.back().size();
    }
    if (options.minCount > 1) {
        for (const auto& [w, n] : counts)
            if (n < static_cast<std::size_t>(options.minCount)) {
                ++t.belowTypes;
                t.belowTokens += n;
            }
        if (t.belowTypes)
            for (auto& d : t.docs)
                d.erase(std::remove_if(d.begin(), d.end(),
                                       [&](const std::string& w) { return counts[w] < static_cast<std::size_t>(options.minCount); }),
                        d.end());
    }
    return t;
}

std::string joinExamples(const std::vector<std::string>& xs)
{
    std::string s;
    for (const auto& x : xs)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

} // namespace

std::vector<Split> stratifiedSplit(const std::vector<std::int32_t>& labels, double testFraction, std::uint64_t seed)
{
    if (!(testFraction >= 0.0 && testFraction < 1.0))
        throw std::invalid_argument("test fraction must be in [0, 1)");
    std::vector<Split> out(labels.size(), Split::Train);
    std::map<std::int32_t, std::vector<std::size_t>> byClass;
    for (std::size_t i = 0; i < labels.size(); ++i)
        byClass[labels[i]].push_back(i);
    for (auto& [c, idx] : byClass) {
        SplitMix64 rng{seed ^ (0xD1B54A32D192ED03ull * static_cast<std::uint64_t>(c + 1))};
        for (std::size_t i = idx.size(); i > 1; --i)
            std::swap(idx[i - 1], idx[rng.below(i)]);
        const std::size_t n = idx.size();
        std::size_t nTest = static_cast<std::size_t>(static_cast<double>(n) * testFraction + 0.5);
        if (n >= 1 && nTest > n - 1)
            nTest = n - 1;
        for (std::size_t k = 0; k < nTest; ++k)
            out[idx[k]] = Split::Test;
    }
    return out;
}

std::vector<std::vector<std::string>> tokenizeCorpus(const Corpus& corpus, const DocumentOptions& options)
{
    return tokenise(corpus, options).docs;
}

DocumentStats buildDocuments(const Corpus& corpus, const WordVectors& vectors, const DocumentOptions& options,
                             sdk::DatasetSink& sink)
{
    const std::string origin = corpus.sourceFiles.size() == 1 ? corpus.sourceFiles.front() : std::string();
    if (corpus.size() == 0)
        throw InputError(origin, "", "the corpus has no documents");
    if (vectors.size() == 0 || vectors.dim() <= 0)
        throw InputError(vectors.source(), "", "no word vectors");
    const int d = vectors.dim();
    const int outDim = d + (options.appendTermFrequency ? 1 : 0);
    DocumentStats st;
    st.documents = corpus.size();
    st.dim = outDim;

    Tokenised tk = tokenise(corpus, options);
    st.tokens = tk.tokens;
    st.belowMinCountTokens = tk.belowTokens;
    st.belowMinCountTypes = tk.belowTypes;

    // Vectors of OOV words composed from subwords, once per type.
    std::unordered_map<std::string, std::vector<float>> subword;
    std::unordered_map<std::string, std::size_t> oov;
    const bool trySubwords = options.useSubwordVectors && vectors.hasSubwords();

    struct Doc {
        std::size_t index;
        std::vector<std::string> words;
        std::vector<const float*> rows;
        std::vector<std::size_t> counts;
        std::size_t total = 0;
    };
    std::vector<Doc> kept;
    kept.reserve(corpus.size());
    for (std::size_t i = 0; i < corpus.size(); ++i) {
        Doc doc;
        doc.index = i;
        std::unordered_map<std::string_view, std::size_t> pos;
        for (const std::string& w : tk.docs[i]) {
            const float* row = vectors.find(w);
            if (!row && trySubwords) {
                auto it = subword.find(w);
                if (it == subword.end()) {
                    std::vector<float> v(static_cast<std::size_t>(d));
                    if (!vectors.subwordVector(w, v.data()))
                        v.clear();
                    it = subword.emplace(w, std::move(v)).first;
                }
                if (!it->second.empty()) {
                    row = it->second.data();
                    ++st.subwordTokens;
                }
            }
            if (!row) {
                ++oov[w];
                ++st.oovTokens;
                continue;
            }
            ++st.inVocabTokens;
            ++doc.total;
            auto [it, fresh] = pos.emplace(w, doc.words.size());
            if (fresh) {
                doc.words.push_back(w);
                doc.rows.push_back(row);
                doc.counts.push_back(1);
            } else {
                ++doc.counts[it->second];
            }
        }
        if (doc.total == 0) {
            if (st.droppedIds.size() < static_cast<std::size_t>(std::max(0, options.exampleCount)))
                st.droppedIds.push_back(corpus.ids[i]);
            ++st.droppedEmpty;
            continue;
        }
        kept.push_back(std::move(doc));
    }
    for (const auto& [w, v] : subword)
        if (!v.empty())
            ++st.subwordTypes;
    st.oovTypes = oov.size();
    {
        std::vector<std::pair<std::size_t, std::string>> byCount;
        for (const auto& [w, n] : oov)
            byCount.emplace_back(n, w);
        std::sort(byCount.begin(), byCount.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        for (std::size_t k = 0; k < byCount.size() && k < static_cast<std::size_t>(std::max(0, options.exampleCount)); ++k)
            st.oovExamples.push_back(byCount[k].second + " (" + std::to_string(byCount[k].first) + ")");
    }
    if (kept.empty())
        throw InputError(origin, "",
                         "no document has a word with a vector (" + std::to_string(st.tokens) + " tokens, "
                             + std::to_string(st.oovTokens) + " out of vocabulary" + (st.oovExamples.empty() ? "" : ", e.g. ")
                             + joinExamples(st.oovExamples) + "); check the language, the tokenizer options and the word vectors");
    st.kept = kept.size();

    // Labels: class names of the kept documents, sorted bytewise.
    std::vector<std::string> classes;
    for (const auto& doc : kept)
        classes.push_back(corpus.labels[doc.index]);
    std::sort(classes.begin(), classes.end());
    classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
    std::vector<std::int32_t> labels;
    labels.reserve(kept.size());
    for (const auto& doc : kept)
        labels.push_back(static_cast<std::int32_t>(std::lower_bound(classes.begin(), classes.end(), corpus.labels[doc.index])
                                                   - classes.begin()));
    std::vector<Split> splits;
    if (corpus.hasSplits()) {
        for (const auto& doc : kept)
            splits.push_back(corpus.splits[doc.index]);
    } else {
        splits = stratifiedSplit(labels, options.testFraction, options.splitSeed);
    }

    std::string name = options.name;
    if (name.empty() && !corpus.sourceFiles.empty())
        name = corpus.sourceFiles.size() == 1 ? fs::path(corpus.sourceFiles.front()).stem().string()
                                              : fs::path(corpus.sourceFiles.front()).parent_path().parent_path().filename().string();
    sink.setName(name.empty() ? "documents" : name);
    sink.setDimension(outDim);
    std::size_t elements = 0;
    for (const auto& doc : kept)
        elements += doc.words.size();
    sink.reserve(kept.size(), elements);
    std::unordered_map<std::string_view, int> vocab;
    std::vector<float> values;
    std::vector<float> weights;
    st.minSetSize = kept.front().words.size();
    for (std::size_t k = 0; k < kept.size(); ++k) {
        const Doc& doc = kept[k];
        const std::size_t n = doc.words.size();
        values.assign(n * static_cast<std::size_t>(outDim), 0.0f);
        weights.resize(n);
        for (std::size_t e = 0; e < n; ++e) {
            const float w = static_cast<float>(static_cast<double>(doc.counts[e]) / static_cast<double>(doc.total));
            weights[e] = w;
            std::copy(doc.rows[e], doc.rows[e] + d, values.begin() + static_cast<std::ptrdiff_t>(e * outDim));
            if (options.appendTermFrequency)
                values[e * outDim + d] = w;
            vocab.emplace(doc.words[e], 0);
        }
        const std::size_t item = sink.addItem(values.data(), weights.data(), n, splits[k]);
        sink.setElementText(item, doc.words);
        st.minSetSize = std::min(st.minSetSize, n);
        st.maxSetSize = std::max(st.maxSetSize, n);
        st.meanSetSize += static_cast<double>(n);
    }
    st.meanSetSize /= static_cast<double>(kept.size());
    st.vocabulary = vocab.size();
    sink.defineLabelSet("fine", classes);
    for (std::size_t k = 0; k < kept.size(); ++k)
        sink.setLabel("fine", k, labels[k]);
    for (const auto& f : corpus.sourceFiles)
        sink.addSourceFile(f);
    for (const auto& n : corpus.notes)
        sink.note(n);

    char buf[256];
    std::snprintf(buf, sizeof buf, "%zu documents, %zu word types as elements, %d features per word%s", st.kept,
                  st.vocabulary, outDim, options.appendTermFrequency ? " (vector + normalised term frequency)" : "");
    sink.note(buf);
    if (st.belowMinCountTypes)
        sink.note("minimum count " + std::to_string(options.minCount) + ": removed " + std::to_string(st.belowMinCountTokens)
                  + " tokens of " + std::to_string(st.belowMinCountTypes) + " rare word types");
    if (st.oovTokens) {
        std::snprintf(buf, sizeof buf, "out of vocabulary: %zu of %zu tokens (%.1f%%), %zu word types, had no vector and were left out",
                      st.oovTokens, st.tokens - st.belowMinCountTokens,
                      100.0 * static_cast<double>(st.oovTokens) / static_cast<double>(std::max<std::size_t>(1, st.tokens - st.belowMinCountTokens)),
                      st.oovTypes);
        sink.note(std::string(buf) + "; most frequent: " + joinExamples(st.oovExamples));
    }
    if (st.subwordTokens)
        sink.note("OOV with subword vector: " + std::to_string(st.subwordTokens) + " tokens of " + std::to_string(st.subwordTypes)
                  + " word types not in the vocabulary got fastText subword vectors");
    if (st.droppedEmpty)
        sink.note(std::to_string(st.droppedEmpty) + " documents had no word with a vector and were dropped (first: "
                  + joinExamples(st.droppedIds) + ")");
    if (!corpus.hasSplits())
        sink.note("split: stratified, test fraction " + std::to_string(options.testFraction).substr(0, 4) + ", seed "
                  + std::to_string(options.splitSeed));
    return st;
}

DocumentSource DocumentSource::parse(const std::string& spec)
{
    DocumentSource s;
    std::string t = spec;
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front())))
        t.erase(t.begin());
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back())))
        t.pop_back();
    if (t == "train fasttext" || t == "fasttext" || t == "train") {
        s.kind = Kind::TrainFastText;
        return s;
    }
    if (t == "file")
        t.clear();
    else if (t.rfind("file ", 0) == 0)
        t = t.substr(5);
    if (t.empty())
        throw std::invalid_argument("word-vector source is empty: give 'file PATH' or 'train fasttext'");
    s.kind = Kind::File;
    s.path = t;
    return s;
}

DocumentSource DocumentSource::fromEnvironment()
{
    if (const char* v = std::getenv("SETSCOPE_WORD_VECTORS"); v && v[0])
        return parse(v);
    return {};
}

DocumentStats loadDocuments(const std::string& corpusPath, const DocumentSource& vectors, const DocumentOptions& options,
                            sdk::DatasetSink& sink, sdk::LoadContext* context)
{
    if (context)
        context->progress(0, 0, "reading corpus " + corpusPath);
    Corpus corpus = readCorpus(corpusPath);
    if (options.maxPerClass > 0)
        corpus = capPerClass(corpus, options.maxPerClass, options.splitSeed);
    if (context)
        context->checkpoint();
    WordVectors wv;
    std::string origin;
    if (vectors.kind == DocumentSource::Kind::File) {
        if (context)
            context->progress(0, 0, "reading word vectors " + vectors.path);
        wv = loadWordVectors(vectors.path, vectors.file);
        origin = "word vectors: " + vectors.path + " (" + wordVectorFormatName(wv.format()) + ", "
                 + std::to_string(wv.size()) + " words, " + std::to_string(wv.dim()) + "-d"
                 + (wv.fromCache() ? ", from the cache" : "") + ")";
        if (wv.duplicates())
            origin += "; " + std::to_string(wv.duplicates()) + " duplicate words ignored (first kept)";
    } else {
        const auto docs = tokenizeCorpus(corpus, options);
        wv = trainWordVectors(docs, vectors.fastText, vectors.cacheDir, context);
        origin = "word vectors: fastText skip-gram trained on this corpus (" + std::to_string(wv.size()) + " words, "
                 + std::to_string(wv.dim()) + "-d, " + (wv.fromCache() ? "from the cache" : "trained now") + ")";
    }
    if (context) {
        context->checkpoint();
        context->progress(0, 0, "building documents");
    }
    DocumentOptions opts = options;
    if (opts.name.empty())
        opts.name = fs::path(corpusPath).filename() == "corpus.tsv"
                        ? fs::absolute(corpusPath).parent_path().filename().string()
                        : fs::path(corpusPath).stem().string();
    sink.note(origin);
    return buildDocuments(corpus, wv, opts, sink);
}

sdk::OptionSchema CorpusLoaderOptions::schema()
{
    using sdk::OptionSpec;
    const DocumentOptions d;
    return {
        OptionSpec::text("vectors", "",
                         "word vectors: glove-100d (fetched), train (fastText skip-gram on the corpus, cached) or a "
                         "word-vector file; empty: $SETSCOPE_WORD_VECTORS, else train"),
        OptionSpec::flag("tf", d.appendTermFrequency,
                         "append each word's normalised frequency as one more feature (the papers' 300 + 1)"),
        OptionSpec::integer("min-count", d.minCount, 1, 1000000, "words occurring fewer times in the corpus are removed"),
        OptionSpec::choice("numbers", "drop", {"drop", "keep", "hash"},
                           "number tokens: dropped, kept as written, or each digit as '#' (GoogleNews word2vec: 1999 -> ####)"),
        OptionSpec::text("stopwords", d.tok.stopWordFile,
                         "a stop-word file (one word per line) replacing the built-in English list"),
        OptionSpec::integer("balanced", 0, 0, 2147483647,
                            "at most N documents per class, chosen by a seeded hash of their ids (0: all)"),
        OptionSpec::real("test", d.testFraction, 0.0, 0.95,
                         "test fraction of the stratified split drawn when the corpus has none"),
        OptionSpec::integer("seed", static_cast<std::int64_t>(d.splitSeed), 0, 9.0e15,
                            "seeds the drawn split and the balanced subset"),
        OptionSpec::integer("dim", 100, 2, 1000, "dimension of vectors trained on the corpus (vectors=train)"),
        OptionSpec::integer("epochs", 5, 1, 1000, "fastText epochs for vectors trained on the corpus (vectors=train)"),
    };
}

CorpusLoaderOptions CorpusLoaderOptions::fromValues(const sdk::OptionValues& v)
{
    CorpusLoaderOptions c;
    c.vectors = v.text("vectors");
    DocumentOptions& d = c.documents;
    d.appendTermFrequency = v.flag("tf");
    d.minCount = static_cast<int>(v.integer("min-count"));
    d.tok.numbers = parseNumberMode(v.text("numbers"));
    d.tok.stopWordFile = v.text("stopwords");
    d.maxPerClass = static_cast<std::size_t>(v.integer("balanced"));
    d.testFraction = v.real("test");
    d.splitSeed = static_cast<std::uint64_t>(v.integer("seed"));
    c.fastText.dim = static_cast<int>(v.integer("dim"));
    c.fastText.epoch = static_cast<int>(v.integer("epochs"));
    return c;
}

} // namespace setscope::data
