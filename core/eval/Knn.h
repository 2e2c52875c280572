// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace setscope::job {
class JobControl;
} // namespace setscope::job

namespace setscope::eval {

/// A read-only row-major float matrix (rows x cols), not owned.
struct MatrixView {
    const float* data = nullptr;
    std::int64_t rows = 0;
    int cols = 0;
    const float* row(std::int64_t r) const { return data + r * cols; }
};

/// Copies rows `rows` of `m` into a new contiguous row-major buffer.
std::vector<float> gatherRows(MatrixView m, const std::vector<std::int64_t>& rows);

/// What FAISS may be given (issue 29 §2). FAISS computes squared distances in float as
/// |x|² + |y|² - 2 x.y: a finite but huge value overflows them, and FAISS then answers id -1
/// (or asserts inside k-means). Returns the power of two 2^-k (1 when none is needed) that
/// brings every value of `views` within util::maxSafeMagnitude(cols); scaling by it is exact
/// (unless a value becomes subnormal) and changes no ranking or assignment. Throws
/// std::invalid_argument("<what>: row r of the <name> is NaN ...") for a NaN or infinite value.
struct NamedView {
    MatrixView view;
    const char* name; ///< "base", "queries", "input"
};
double faissScale(std::initializer_list<NamedView> views, const std::string& what);
/// `m` times `scale`, row-major.
std::vector<float> scaledCopy(MatrixView m, double scale);

/// The k nearest rows of `base` for each query under Euclidean distance, exact (FAISS
/// IndexFlatL2, all cores through OpenMP). ids[q*k + j] is -1 (distance +infinity) when base
/// has fewer rows; no other id is -1. Throws std::invalid_argument for a NaN or infinite value;
/// finite values too large for FAISS's float distances are searched scaled (faissScale), and a
/// distance that float cannot hold is +infinity.
/// When `queriesAreBase` (queries == base, row for row), each query's own row is left out
/// of its neighbours (by index, so exact duplicates still count as neighbours).
/// `control` (may be null) is polled between chunks of queries for cancel.
struct Neighbours {
    int k = 0;
    std::vector<std::int64_t> ids;
    std::vector<float> distances; ///< Euclidean (not squared), ascending per query
};
Neighbours nearestNeighbours(MatrixView base, MatrixView queries, int k, bool queriesAreBase,
                             job::JobControl* control = nullptr);

/// The distance-weighted vote of seed 000 §VI-A over a query's neighbours: each labelled
/// neighbour votes for its label with weight 1/distance; when some labelled neighbours are at
/// distance 0, only they vote (weight 1 each). Labels < 0 do not vote. Ties go to the smallest
/// label. -1 when no neighbour votes. `labels` and `distances` are parallel.
std::int32_t weightedVote(const std::vector<std::int32_t>& labels, const std::vector<double>& distances);

struct KnnResult {
    double accuracy = 0.0;              ///< over labelled queries
    std::int64_t evaluated = 0;         ///< labelled queries
    std::vector<std::int32_t> predicted; ///< per query (-1 for unlabelled queries)
};

/// Distance-weighted k-nearest-neighbour classification as in seed 000 §VI-A: the k
/// nearest labelled references vote with weight 1/distance; when some neighbours are at
/// distance 0 only those vote (weight 1 each). Ties go to the smallest class id.
/// References labelled -1 are ignored; queries labelled -1 are not scored.
/// `queriesAreReference`: queries are the reference set itself; each query is excluded
/// from its own neighbours.
KnnResult knnClassify(MatrixView reference, const std::vector<std::int32_t>& referenceLabels, MatrixView queries,
                      const std::vector<std::int32_t>& queryLabels, int k = 10, bool queriesAreReference = false,
                      job::JobControl* control = nullptr);

/// Recall@K in the deep-metric-learning sense (recall-hit@K, seed 004): the fraction of
/// labelled items for which at least one of the K nearest other items (the item itself
/// excluded) shares its label. Unlabelled items (-1) are neither queries nor neighbours.
/// Returns one value per K. Not the Recall@K of seed 000 Table II / seed 001 Table 9: that
/// is recallClassAtK() in Recall.h, which also has recallHitAtK() (this score, under a name
/// that says which) and precisionAtK().
std::vector<double> recallAtK(MatrixView items, const std::vector<std::int32_t>& labels, const std::vector<int>& ks,
                              job::JobControl* control = nullptr);

} // namespace setscope::eval
