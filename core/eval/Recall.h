// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/eval/Knn.h"

#include <cstdint>
#include <vector>

namespace setscope::job {
class JobControl;
} // namespace setscope::job

namespace setscope::eval {

// Three retrieval scores share the name "Recall@K" in the literature; setscope names each
// for what it counts. All three rank the other labelled items of `items` by Euclidean
// distance to each labelled item (the query itself excluded by index, unlabelled items
// (-1) neither queries nor neighbours, ties at the K-th place broken as FAISS returns
// them), and average over the queries. Values are fractions in [0, 1] (the papers' tables
// print percent). All run on the calling thread (FAISS on all cores through OpenMP);
// `control` may be null and is polled between chunks of queries.
//
// For a query q of class c, with T_K(q) its K nearest other items, n_c the number of
// labelled items of class c and h_K(q) = |{j in T_K(q) : label j = c}|:
//
//  recall-hit@K    [h_K(q) >= 1]                      at least one hit (seed 004, "the
//                                                     percentage of test examples that have
//                                                     at least one K nearest neighbor from
//                                                     the same class"; Recall@1/2/4/8 of
//                                                     deep metric learning)
//  recall-class@K  h_K(q) / (n_c - 1)                 the share of the query's class that the
//                                                     top K retrieve: recall in the
//                                                     information-retrieval sense, what seed
//                                                     000 Table II and seed 001 Table 9 report
//                                                     (their values grow about linearly in K,
//                                                     e.g. BBCSport R@5 9.1 % to R@60 78 %,
//                                                     which only this reading gives; see
//                                                     docs/METRICS.md). Queries whose class has
//                                                     no other member are left out.
//  precision@K     h_K(q) / min(K, n - 1)             the share of the K nearest that have the
//                                                     query's class (n labelled items)

/// One value per K of `ks`, for each of the three scores. `queries` counts the items
/// averaged over (recall-class: those whose class has another member).
struct RetrievalScores {
    std::vector<int> ks;
    std::vector<double> recallHit;
    std::vector<double> recallClass;
    std::vector<double> precision;
    std::int64_t queries = 0;
    std::int64_t recallClassQueries = 0;
};

/// All three scores from one neighbour search. Throws std::invalid_argument for a label
/// count that does not match the rows or a K < 1. With fewer than two labelled items every
/// score is 0.
RetrievalScores retrievalAtK(MatrixView items, const std::vector<std::int32_t>& labels, const std::vector<int>& ks,
                             job::JobControl* control = nullptr);

/// recall-hit@K (seed 004; what recallAtK() in Knn.h has always computed).
std::vector<double> recallHitAtK(MatrixView items, const std::vector<std::int32_t>& labels, const std::vector<int>& ks,
                                 job::JobControl* control = nullptr);
/// recall-class@K (seed 000 Table II, seed 001 Table 9).
std::vector<double> recallClassAtK(MatrixView items, const std::vector<std::int32_t>& labels,
                                   const std::vector<int>& ks, job::JobControl* control = nullptr);
/// precision@K: the share of the K nearest with the query's class.
std::vector<double> precisionAtK(MatrixView items, const std::vector<std::int32_t>& labels, const std::vector<int>& ks,
                                 job::JobControl* control = nullptr);

} // namespace setscope::eval
