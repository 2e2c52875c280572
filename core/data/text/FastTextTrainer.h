// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/text/WordVectors.h"

#include <setscope/sdk/LoadContext.h>

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {

/// fastText skip-gram settings for word vectors trained on the corpus itself. Defaults are
/// fastText's own except maxn = 0 (no character n-grams: every corpus word gets its own
/// vector, and training is several times faster) and thread = 2.
struct FastTextOptions {
    int dim = 300;
    int epoch = 5;
    int minCount = 1;   ///< words rarer than this get no vector
    int windowSize = 5;
    int negatives = 5;
    double learningRate = 0.05;
    int minn = 3;       ///< character n-gram lengths (used only when maxn > 0)
    int maxn = 0;
    int bucket = 2000000; ///< n-gram hash buckets (0 when maxn == 0)
    int threads = 2;
    int seed = 0;
};

/// Trains fastText skip-gram vectors on `tokenisedDocs` (one document per inner vector)
/// in-process through libfasttext, or loads them from `cacheDir` ("" = the default
/// setscopeCacheDir()/fasttext) when the same tokens and options were trained before (the
/// cache key is an xxh3-128 hash of every token, the document boundaries and the options).
/// Blocking, on the caller's thread; libfasttext runs max(10, options.threads) threads (see the .cpp).
/// `context` (may be null) cancels within a fraction of a second (its checkpoint() throws;
/// job::Cancelled when it does not) and receives progress (per mille) and messages (the
/// cache used, the seconds taken).
/// Throws sdk::InputError when the corpus has no word with minCount occurrences.
WordVectors trainWordVectors(const std::vector<std::vector<std::string>>& tokenisedDocs, const FastTextOptions& options,
                             const std::string& cacheDir, sdk::LoadContext* context = nullptr);

/// The cache file trainWordVectors would use for these inputs.
std::string fastTextCachePath(const std::vector<std::vector<std::string>>& tokenisedDocs, const FastTextOptions& options,
                              const std::string& cacheDir);

} // namespace setscope::data
