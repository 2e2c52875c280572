// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/eval/Knn.h"

#include <Eigen/Dense>

#include <cstdint>
#include <vector>

namespace setscope::job {
class JobControl;
class ProgressSink;
} // namespace setscope::job

/// Affinity propagation of seed 004 ("Triplet Mining using Affinity Propagation"; Liu et al.
/// 2010): labelled pairs spread their +1 / -1 affinities to unlabelled pairs along a kNN
/// graph. Torch-free (Eigen, FAISS through core/eval). docs/SSDML.md has the formulas and
/// every choice the paper leaves open.
namespace setscope::semi {

/// How the kNN graph becomes the propagation matrix Q.
enum class GraphNormalisation {
    /// Seed 004: Q_ij = 1/k for j in N_k(i); row-stochastic, not symmetric.
    Row,
    /// Zhou et al. 2004 (label spreading): Q = D^-1/2 A D^-1/2 with A the symmetrised kNN
    /// adjacency (A_ij = 1 when j ∈ N_k(i) or i ∈ N_k(j)) and D its degrees. Not in seed 004:
    /// with Row and γ = 0.99 the propagated affinity of an unlabelled pair mostly measures how
    /// often random walks visit the neighbour (its in-degree), not its similarity to the
    /// anchor (docs/SSDML.md, "Why the mined triplets carry little class signal").
    Symmetric,
};

struct PropagationOptions {
    static constexpr int kDefaultK = 10;           ///< seed 004, MNIST / CIFAR-10 settings
    static constexpr double kDefaultGamma = 0.99;  ///< seed 004
    int k = kDefaultK;         ///< neighbours per node, 1 <= k < n
    double gamma = kDefaultGamma; ///< γ in (0, 1)
    GraphNormalisation normalisation = GraphNormalisation::Row;
    /// Relative residual ‖b - Ax‖₂ / ‖b‖₂ at which each BiCGSTAB solve stops. A column's
    /// relative error is at most this times the condition number of I - γQ (in the max
    /// norm at most (1 + γ) / (1 - γ) = 199 for γ = 0.99).
    double tolerance = 1e-10;
};

/// The directed kNN graph of seed 004: row i lists N_k(i), the k nearest other rows of the
/// L2-normalised features under Euclidean distance (FAISS exact), nearest first. A node is
/// never its own neighbour (by index: exact duplicates still are each other's neighbours).
struct KnnGraph {
    std::int64_t n = 0;
    int k = 0;
    std::vector<std::int64_t> neighbours; ///< n * k, row-major
    std::int64_t neighbour(std::int64_t i, int t) const { return neighbours[static_cast<std::size_t>(i * k + t)]; }
};

/// Builds the graph from `features` (n x d float, row-major, not owned). Rows are
/// L2-normalised first (a zero row stays zero). Runs FAISS on all cores of the calling
/// thread's OpenMP pool; `control` (may be null) is polled between chunks.
/// Throws std::invalid_argument for k < 1, k >= n, d < 1 or a non-finite feature value.
KnnGraph buildKnnGraph(eval::MatrixView features, int k, job::JobControl* control = nullptr);

/// The propagated, symmetrised affinities on each node's own neighbourhood: for node a and
/// its t-th neighbour b = graph.neighbour(a, t),
///   affinity(a, t) = W(a, b) = (W*(a, b) + W*(b, a)) / 2,  W* = (1 - γ)(I - γQ)^-1 W0
/// with Q_ij = 1/k when j is in N_k(i) (row-stochastic, not symmetric; or the symmetric
/// normalisation, PropagationOptions::normalisation) and W0 the initial
/// affinities (+1 labelled same-class pairs and the diagonal, -1 labelled different-class
/// pairs, 0 otherwise). These n * k values are all the miner reads.
struct NeighbourhoodAffinities {
    KnnGraph graph;
    std::vector<double> affinity; ///< n * k, parallel to graph.neighbours
    double at(std::int64_t a, int t) const { return affinity[static_cast<std::size_t>(a * graph.k + t)]; }
};

/// What propagate() computes, and its memory (n nodes, N_U of them unlabelled, c classes):
/// - no n x n matrix. W0's columns for labelled items span c + 1 vectors (W0 restricted to
///   the labelled columns is 2 C Cᵀ - 1 1ᵀ with C the one-hot class matrix), so
///   F = (I - γQ)^-1 [C, 1] is c + 1 solves and n (c + 1) doubles; every W*(i, j) with j
///   labelled is (1 - γ)(2 F(i, class j) - F(i, c)).
/// - W0's column for an unlabelled j is the unit vector e_j, so W*(:, j) = (1 - γ)(I - γQ)^-1
///   e_j: one solve per unlabelled item, of which only the entries on j's in- and
///   out-neighbours are kept (2 n k doubles in all); the solution itself is per-thread scratch.
/// Total: n (c + 1) + 2 n k doubles plus the sparse I - γQ (n (k + 1) entries) and
/// BiCGSTAB's eight n-vectors of scratch per thread. For n = 10 000, c = 10, k = 10: ~7 MB
/// with the graph, its in-edge index and the result, instead of 800 MB for a dense W.
/// Solves: BiCGSTAB (Eigen) on the sparse, non-symmetric I - γQ, never an explicit inverse;
/// the unlabelled columns run in parallel (OpenMP). `control` (may be null) is polled for
/// cancel between columns (job::Cancelled is thrown after the parallel loop has stopped);
/// `sink` (may be null) gets progress in solved columns, from the calling thread only.
/// Throws std::invalid_argument for labels.size() != graph.n, a label < -1, γ outside (0, 1)
/// or tolerance not in (0, 1); std::runtime_error when a solve does not converge.
NeighbourhoodAffinities propagate(const KnnGraph& graph, const std::vector<std::int32_t>& labels,
                                  const PropagationOptions& options = {}, job::JobControl* control = nullptr,
                                  job::ProgressSink* sink = nullptr);

/// buildKnnGraph(features, options.k) then propagate(). Validates everything first (also
/// the label count against the feature rows) so that bad input fails before any work.
NeighbourhoodAffinities propagateAffinities(eval::MatrixView features, const std::vector<std::int32_t>& labels,
                                            const PropagationOptions& options = {},
                                            job::JobControl* control = nullptr, job::ProgressSink* sink = nullptr);

/// The whole symmetrised W (n x n), by the same structured solves (c + 1 for the labelled
/// columns, one per unlabelled column). O(n²) memory: for small graphs, views and tests.
Eigen::MatrixXd propagateDense(const KnnGraph& graph, const std::vector<std::int32_t>& labels,
                               const PropagationOptions& options = {}, job::JobControl* control = nullptr);

} // namespace setscope::semi
