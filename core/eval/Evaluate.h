// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
} // namespace setscope::job

namespace setscope::eval {

/// The standard scores of an embedding of a dataset (or of its raw vectors).
struct Evaluation {
    double knnAccuracy = -1.0;     ///< distance-weighted kNN, k = 10
    std::vector<int> ks{1, 2, 4, 8};
    std::vector<double> recallAtK; ///< one per ks
    /// "test-vs-train": test queries against train references, Recall@K within test;
    /// "leave-one-out": no test split, every item against all the others.
    std::string protocol;
    std::int64_t queries = 0;
};

/// Scores an embedding (`vectors`: dataset.size() x dim, row-major, one row per item)
/// with the labels of `labelSet`. Runs on the calling thread; `control` may be null.
Evaluation evaluateEmbedding(const data::Dataset& dataset, const float* vectors, int dim, const std::string& labelSet,
                             job::JobControl* control = nullptr, int k = 10);

/// The same scores on the raw vectors of a plain vector dataset (the baseline a learned
/// metric must beat). Throws std::invalid_argument for a dataset of sets.
Evaluation evaluateRaw(const data::Dataset& dataset, const std::string& labelSet, job::JobControl* control = nullptr,
                       int k = 10);

} // namespace setscope::eval
