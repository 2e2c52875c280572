// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/eval/Knn.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace setscope::job {
class JobControl;
} // namespace setscope::job

namespace setscope::eval {

// How well an embedding stands in for exact EMD (seed 001 §7.6, Table 8): the mean squared
// error of its distances against EMD, and the error of a kernel density estimate made with
// them. Neither needs Torch nor a dataset: an embedding matrix and a callable giving the
// exact EMD of two items (ot::emd on a dataset, a precomputed matrix, a test's table).

/// The exact EMD of items i and j (row indices of the embedding). Called from
/// `threads` worker threads at once when threads != 1, so it must then be thread-safe;
/// an exception it throws ends the computation and is rethrown to the caller.
using PairDistance = std::function<double(std::int64_t i, std::int64_t j)>;

/// Which embedding distance stands for EMD. Approx.EMD (seed 001 §7.1) trains
/// ||f(x_i) - f(x_j)||₂² to equal EMD(x_i, x_j), so its approximated distance is the
/// squared Euclidean one; plain Euclidean is there for embeddings trained otherwise.
enum class EmbeddingDistance { SquaredEuclidean, Euclidean };
/// "squared-euclidean" / "euclidean".
const char* embeddingDistanceName(EmbeddingDistance d);
/// Throws std::invalid_argument naming the choices.
EmbeddingDistance parseEmbeddingDistance(const std::string& name);

/// The embedding distance of rows i and j, accumulated in double.
double embeddingDistance(MatrixView embedding, std::int64_t i, std::int64_t j, EmbeddingDistance d);

/// G(x; σ) = exp(−x² / 2σ²) / sqrt(2πσ²), the Gaussian kernel of seed 001 §7.6.
double gaussianKernel(double x, double sigma);

struct EmdMseOptions {
    EmbeddingDistance distance = EmbeddingDistance::SquaredEuclidean;
    /// 0: every pair i < j of `items`. Otherwise, when there are more pairs than this,
    /// exactly this many pairs drawn uniformly with replacement (std::mt19937_64(seed), two
    /// distinct positions of `items` each, then ordered): an unbiased estimate of the mean.
    std::int64_t maxPairs = 0;
    std::uint64_t seed = 1;
    /// Threads calling the EMD callable; 0 = std::thread::hardware_concurrency().
    int threads = 1;
};

struct EmdMseResult {
    double mse = 0.0;          ///< mean of (EMD − d)² over the pairs
    double meanEmd = 0.0;      ///< mean EMD over the same pairs (to read the MSE against)
    std::int64_t pairs = 0;    ///< pairs averaged over
    bool sampled = false;      ///< true when maxPairs cut the set of pairs
};

/// Seed 001 Table 8, "Mean squared error": mean over pairs (i < j) of `items` of
/// (EMD(i, j) − d(i, j))², d the embedding distance of `options.distance`. (The Approx.EMD
/// loss, 1/n² Σ_{i,j} (EMD − ||f(x_i) − f(x_j)||²)², sums over ordered pairs with the
/// diagonal; the diagonal adds zeros, so that is (n−1)/n times this value.) `items` are
/// row indices of `embedding`; a repeated index pairs with itself like any other.
/// Fewer than two items give pairs = 0 and mse = 0. Throws std::invalid_argument for an
/// index out of range; job::Cancelled on a cancel of `control` (may be null).
EmdMseResult emdApproximationMse(MatrixView embedding, const std::vector<std::int64_t>& items, const PairDistance& emd,
                                 const EmdMseOptions& options = {}, job::JobControl* control = nullptr);

/// Which neighbours the estimate uses (seed 001 leaves it open; see kdeDiscrepancy()).
enum class KdeNeighbours {
    Embedding, ///< the k nearest in the embedding, at their embedding distances (default)
    Exact,     ///< the k nearest under exact EMD, re-measured in the embedding
};

struct KdeOptions {
    int k = 10;                 ///< seed 001 §7.6: "kNNs with the k value of 10"
    double sigma = 1.0;         ///< seed 001 §7.6: "σ of 1"
    EmbeddingDistance distance = EmbeddingDistance::SquaredEuclidean;
    KdeNeighbours neighbours = KdeNeighbours::Embedding;
    int threads = 1;            ///< as EmdMseOptions::threads
};

struct KdeResult {
    double discrepancy = 0.0;   ///< mean relative error (a fraction; Table 8 prints percent)
    std::int64_t queries = 0;   ///< queries averaged over
    std::int64_t skipped = 0;   ///< queries whose true density underflowed to 0 (left out)
    std::vector<double> truth;    ///< per query (NaN for a query with no reference)
    std::vector<double> estimate; ///< per query
};

/// Seed 001 §7.6 / Table 8, "density estimation discrepancy", as setscope computes it. For
/// each query q (row index), with references R (row indices, q itself left out by index):
///   true(q)     = 1/k Σ_{j ∈ N_EMD(q)} G(EMD(q, j); σ)     N_EMD: the k nearest of R under
///                                                          exact EMD (brute force over R,
///                                                          ties by row index)
///   estimate(q) = 1/k Σ_{j ∈ N(q)}     G(d(q, j); σ)       N = N_d (the k nearest of R in the
///                                                          embedding) or N_EMD, see
///                                                          KdeNeighbours; d the embedding
///                                                          distance of `options.distance`
///   discrepancy = mean over q of |estimate(q) − true(q)| / true(q).
/// With fewer than k references, all of them. The paper gives G, σ = 1 and k = 10 and calls
/// the result a relative error; what it leaves open, and what setscope chose, is listed in
/// docs/METRICS.md. Exact EMD is evaluated |queries| x |R| times (threads workers, one query
/// each). Throws std::invalid_argument for k < 1, σ <= 0 or an index out of range;
/// job::Cancelled on a cancel of `control` (may be null).
KdeResult kdeDiscrepancy(MatrixView embedding, const std::vector<std::int64_t>& queries,
                         const std::vector<std::int64_t>& references, const PairDistance& emd,
                         const KdeOptions& options = {}, job::JobControl* control = nullptr);

} // namespace setscope::eval
