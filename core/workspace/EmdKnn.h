// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Exact EMD-kNN as a front end asks for it (`setscope-cli emd-knn`; issue 30 §2): which items
// are the queries and which the candidates, the search shared among the ranks of a distributed
// run, and what the answers score (the WMD-kNN classifier's distance-weighted vote). The front
// end turns its flags into an EmdKnnRequest and prints.

#include "core/data/Dataset.h"
#include "core/ot/EmdKnn.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace setscope::dist {
class Communicator;
}

namespace setscope::workspace {

/// The items a search asks about.
struct EmdKnnRequest {
    std::string candidates = "train"; ///< train | all (all when the dataset has no train split)
    std::int64_t limit = 0;           ///< only the first N candidates (0: all)
    std::vector<std::int64_t> queries; ///< items given
    std::int64_t testQueries = 0;      ///< and the first N test items
};

struct EmdKnnItems {
    /// The given items, then the first testQueries test items; when none, the first test item
    /// (item 0 without a test split). Not checked against the dataset: the caller names them.
    std::vector<std::int64_t> queries;
    std::vector<std::int64_t> candidates;
};

/// Throws std::invalid_argument when `candidates` is neither train nor all.
EmdKnnItems emdKnnItems(const data::Dataset& ds, const EmdKnnRequest& request);

/// ot::emdKnnQueries with the queries shared among the ranks of `comm` (query i to rank
/// i mod W; null: this process alone). Rank 0 gets every query's result in order, the others
/// only their own. Results and counters are those of one process: each query's search does not
/// depend on where it runs. Throws std::runtime_error when a rank's answer is short.
std::vector<ot::EmdKnnResult> emdKnnOnRanks(const std::shared_ptr<dist::Communicator>& comm, const data::Dataset& ds,
                                            const std::vector<std::int64_t>& queries,
                                            const std::vector<std::int64_t>& candidates, int k,
                                            const ot::EmdKnnOptions& options);

/// The counters of a search summed over its queries, and the distance-weighted kNN vote
/// (seed 000 §VI-A: weight 1/distance; zero distances decide alone) of each query labelled in
/// `labelSet` (none scored when the dataset has no such set).
struct EmdKnnSummary {
    ot::EmdKnnStats total;
    std::int64_t scored = 0;
    std::int64_t correct = 0;
    double accuracy() const { return scored ? static_cast<double>(correct) / static_cast<double>(scored) : 0.0; }
};
EmdKnnSummary summariseEmdKnn(const data::Dataset& ds, const std::string& labelSet,
                              const std::vector<std::int64_t>& queries, const std::vector<ot::EmdKnnResult>& results);

} // namespace setscope::workspace
