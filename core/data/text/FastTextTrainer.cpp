// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/text/FastTextTrainer.h"

#include "core/job/Job.h"
#include "core/util/Hash.h"

#include <setscope/sdk/Errors.h>

#include <fasttext/fasttext.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <unistd.h>

namespace fs = std::filesystem;

namespace setscope::data {

namespace {

std::string cacheKey(const std::vector<std::vector<std::string>>& docs, const FastTextOptions& o)
{
    util::ContentHasher h;
    const std::string tag = "fasttext-skipgram-v2"; // v2: every word initialised (10+ threads)
    h.update(tag);
    const int ints[] = {o.dim, o.epoch, o.minCount, o.windowSize, o.negatives, o.minn, o.maxn,
                        o.maxn > 0 ? o.bucket : 0, o.seed};
    h.update(ints, sizeof ints);
    h.update(&o.learningRate, sizeof o.learningRate);
    const std::uint64_t n = docs.size();
    h.update(&n, sizeof n);
    for (const auto& d : docs) {
        const std::uint64_t m = d.size();
        h.update(&m, sizeof m);
        for (const auto& t : d)
            h.update(t);
    }
    return h.hex();
}

fs::path cacheFolder(const std::string& cacheDir)
{
    return cacheDir.empty() ? fs::path(setscopeCacheDir()) / "fasttext" : fs::path(cacheDir);
}

} // namespace

std::string fastTextCachePath(const std::vector<std::vector<std::string>>& docs, const FastTextOptions& options,
                              const std::string& cacheDir)
{
    return (cacheFolder(cacheDir) / (cacheKey(docs, options) + ".sswv")).string();
}

WordVectors trainWordVectors(const std::vector<std::vector<std::string>>& docs, const FastTextOptions& options,
                             const std::string& cacheDir, sdk::LoadContext* context)
{
    const std::string cachePath = fastTextCachePath(docs, options, cacheDir);
    if (fs::is_regular_file(cachePath)) {
        try {
            WordVectorOptions wo;
            wo.format = WordVectorFormat::Cache;
            WordVectors wv = loadWordVectors(cachePath, wo);
            if (wv.dim() == options.dim) {
                if (context)
                    context->message("fastText vectors from the cache " + cachePath);
                return wv;
            }
        } catch (const sdk::InputError&) {
            // A damaged cache is trained again and replaced.
        }
    }
    if (context)
        context->checkpoint();

    const fs::path folder = cacheFolder(cacheDir);
    fs::create_directories(folder);
    const fs::path input = folder / ("corpus-" + std::to_string(::getpid()) + "-"
                                     + std::to_string(reinterpret_cast<std::uintptr_t>(&docs)) + ".txt");
    struct Remove {
        fs::path p;
        ~Remove()
        {
            std::error_code ec;
            fs::remove(p, ec);
        }
    } removeInput{input};
    {
        std::ofstream out(input, std::ios::binary);
        for (const auto& d : docs) {
            for (std::size_t i = 0; i < d.size(); ++i) {
                if (i)
                    out << ' ';
                out << d[i];
            }
            out << '\n';
        }
        if (!out)
            throw std::runtime_error("cannot write the fastText training file " + input.string());
    }

    fasttext::Args args;
    args.input = input.string();
    args.model = fasttext::model_name::sg;
    args.loss = fasttext::loss_name::ns;
    args.dim = options.dim;
    args.epoch = options.epoch;
    args.minCount = options.minCount;
    args.ws = options.windowSize;
    args.neg = options.negatives;
    args.lr = options.learningRate;
    args.minn = options.maxn > 0 ? options.minn : 0;
    args.maxn = options.maxn;
    args.bucket = options.maxn > 0 ? options.bucket : 0;
    // libfasttext 0.9.2 initialises only threads/10 of the input matrix at random
    // (DenseMatrix::uniformThread fills blocks of a tenth, one per thread; fixed upstream
    // later), so fewer than 10 threads leave most words starting at 0. Ten threads on
    // fewer cores cost little (hogwild SGD) and give every word its random start.
    args.thread = std::max(10, options.threads);
    args.seed = options.seed;
    args.verbose = 0;

    fasttext::FastText ft;
    const auto start = std::chrono::steady_clock::now();
    auto lastReport = start;
    std::mutex reportMutex;
    auto callback = [&](float progress, float /*loss*/, double /*wst*/, double /*lr*/, std::int64_t /*eta*/) {
        std::lock_guard<std::mutex> lock(reportMutex);
        if (!context)
            return;
        if (context->cancelRequested())
            ft.abort();
        const auto now = std::chrono::steady_clock::now();
        if (now - lastReport > std::chrono::milliseconds(100)) {
            lastReport = now;
            context->progress(static_cast<std::int64_t>(progress * 1000.0f), 1000, "training fastText word vectors");
        }
    };
    try {
        ft.train(args, callback);
    } catch (const fasttext::FastText::AbortError&) {
        if (context)
            context->checkpoint(); // only a cancel aborts: this throws the host's exception
        throw job::Cancelled();    // (or a context whose checkpoint() did not)
    } catch (const std::invalid_argument& e) {
        throw sdk::InputError("", "", std::string("cannot train fastText vectors on this corpus: ") + e.what());
    }
    if (context && context->cancelRequested()) {
        context->checkpoint();
        throw job::Cancelled();
    }

    const auto dict = ft.getDictionary();
    const int dim = ft.getDimension();
    std::vector<std::string> words;
    std::vector<float> values;
    words.reserve(static_cast<std::size_t>(dict->nwords()));
    values.reserve(static_cast<std::size_t>(dict->nwords()) * static_cast<std::size_t>(dim));
    fasttext::Vector v(dim);
    for (std::int32_t i = 0; i < dict->nwords(); ++i) {
        const std::string& w = dict->getWord(i);
        if (w == fasttext::Dictionary::EOS)
            continue;
        ft.getWordVector(v, w);
        words.push_back(w);
        for (int k = 0; k < dim; ++k)
            values.push_back(v[k]);
    }
    if (words.empty())
        throw sdk::InputError("", "", "cannot train fastText vectors: the corpus has no word with at least "
                                          + std::to_string(options.minCount) + " occurrences");
    WordVectors wv = WordVectors::fromData(std::move(words), std::move(values), dim);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    try {
        writeWordVectorCache(wv, cachePath, cacheKey(docs, options));
    } catch (const std::exception& e) {
        if (context)
            context->message(std::string("fastText vectors not cached: ") + e.what());
    }
    if (context) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "fastText skip-gram: %zu words, %d-d, %lld tokens, %.1f s", wv.size(), dim,
                      static_cast<long long>(dict->ntokens()), seconds);
        context->message(buf);
        context->progress(1000, 1000, "training fastText word vectors");
    }
    return wv;
}

} // namespace setscope::data
