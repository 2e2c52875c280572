// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/EmdKnn.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
}
namespace setscope::model {
class ModelHandle;
}

namespace setscope::workspace {

/// One query's top K by a learned embedding and by exact EMD, side by side, with the time
/// each path takes (seed 001 §7.7: "embedding search" against "EMD search"). What
/// `setscope-cli retrieve` prints and the GUI's Retrieval view shows.
struct RetrievalOptions {
    int k = 10;
    /// Candidates: false = the train split (every item when there is none), true = every item.
    bool allCandidates = false;
    /// Labels that decide "correct" (same label as the query).
    std::string labelSet = "fine";
    /// Exact EMD to every candidate instead of the pruned search (same result, slower).
    bool bruteForce = false;
    int threads = 0; ///< threads of the exact search (0 = all cores)
    job::JobControl* control = nullptr; ///< polled for cancel (may be null)
    /// Progress of the exact search: candidates done of total.
    std::function<void(std::int64_t done, std::int64_t total)> progress;
};

struct RetrievalHit {
    std::int64_t item = -1;
    double distance = 0.0;  ///< Euclidean in the embedding, or EMD
    bool sameLabel = false; ///< the query's label (false when either is unlabelled)
    bool inBoth = false;    ///< also in the other path's list
};

/// Scores of one list against the query's label (docs/METRICS.md "Three scores called
/// Recall@K", for a single query): hit = at least one correct; class = correct / (n_c - 1)
/// with n_c the query's class size among the candidates and the query; precision = correct / K.
struct RetrievalScore {
    int correct = 0;
    double recallHit = 0.0;
    double recallClass = 0.0;
    double precision = 0.0;
};

struct RetrievalResult {
    std::int64_t query = -1;
    int k = 0;
    std::int64_t candidates = 0;
    std::string pool;      ///< "train split" or "dataset"
    std::string labelSet;
    bool queryLabelled = false;
    std::vector<RetrievalHit> byEmbedding, byEmd;
    RetrievalScore embeddingScore, emdScore;
    int overlap = 0; ///< items in both lists; overlap / k is the embedding's recall of the exact top K
    double encodeSeconds = 0.0; ///< embedding the query
    double searchSeconds = 0.0; ///< nearest neighbours among the embedded candidates (FAISS)
    double exactSeconds = 0.0;  ///< the exact EMD search
    std::string exactMethod;    ///< "pruned" or "brute-force"
    int threads = 1;            ///< of the exact search
    ot::EmdKnnStats exactStats;

    double embeddingSeconds() const { return encodeSeconds + searchSeconds; }
};

/// `database` is model.embed(dataset) for every item (dataset.size() x model.dim(),
/// row-major), computed once for all queries as a retrieval service would; it is not part of
/// a query's time. Throws std::invalid_argument for a query outside the dataset, no
/// candidates, or a database of the wrong size; job::Cancelled when cancelled.
RetrievalResult compareRetrieval(const data::Dataset& dataset, const model::ModelHandle& model,
                                 std::span<const float> database, std::int64_t query, const RetrievalOptions& options);

/// Why `model` cannot embed the items of `dataset` ("" when it can): its elements are of
/// another dimension ("checkpoint for 3-d elements, dataset 'x' has 4-d"), or, unless
/// `allowOtherData`, it was trained on other data ("checkpoint trained on other data (dataset
/// hash …, this dataset …)").
std::string modelMismatch(const model::ModelHandle& model, const data::Dataset& dataset, bool allowOtherData = false);

/// The score of a list (item ids) for `query` under `labelSet` among `candidates`
/// (exposed for tests and for lists made elsewhere).
RetrievalScore scoreList(const data::Dataset& dataset, const std::string& labelSet, std::int64_t query,
                         std::span<const std::int64_t> list, std::span<const std::int64_t> candidates);

} // namespace setscope::workspace
