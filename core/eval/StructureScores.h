// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// How an embedding's neighbourhoods and clusters follow a label structure: neighbourhood purity,
// nDCG with fine / coarse relevance and the context-sensitive loss on a class dendrogram (seed
// 003), and k-means NMI (seed 004). (Was eval/Hierarchy.h.)

#include "core/eval/Knn.h"

#include <cstdint>
#include <vector>

namespace setscope::job {
class JobControl;
} // namespace setscope::job

namespace setscope::eval {

// Scores of substructure (seed 003, weak metric learning) and of clustering (seed 004, NMI).
// docs/METRICS.md has the formulas and every choice the papers leave open.
//
// The neighbour-based scores rank the other labelled rows of `items` by Euclidean distance
// to each labelled row (FAISS IndexFlatL2, exact; the query left out by index, so exact
// duplicates still count as neighbours; ties as FAISS returns them). Rows with a fine label
// of -1 are neither queries nor neighbours. All run on the calling thread (FAISS on all cores
// through OpenMP); `control` may be null and is polled between chunks of queries. Each throws
// std::invalid_argument for a label count that does not match the rows, a k < 1 or fewer
// than two labelled rows.

/// Neighbourhood purity (seed 003 §3.3): the mean over labelled rows i of the share of its
/// k' nearest other labelled rows that have label y_i, with k' = min(k, labelled rows - 1).
double neighbourhoodPurity(MatrixView items, const std::vector<std::int32_t>& labels, int k = 10,
                           job::JobControl* control = nullptr);

/// Gain of a graded relevance r in DCG: seed 003 §4.4 writes 2^r - 1 (Exponential); Linear is
/// r itself, the other common convention.
enum class DcgGain { Exponential, Linear };

struct NdcgResult {
    double ndcg = 0.0;           ///< mean over the scored queries
    std::int64_t queries = 0;    ///< labelled rows with at least one relevant other row
    std::int64_t skipped = 0;    ///< labelled rows with none (ideal DCG 0): left out
    int cutoff = 0;              ///< neighbours ranked per query (k', see ndcg())
};

/// nDCG of seed 003 §4.4: relevance 1 for the same fine label, 0.5 for a different fine but
/// the same coarse label (both coarse labels >= 0), 0 otherwise; DCG(q) = Σ_{r=1..k'} gain(rel
/// of the r-th nearest) / log2(r + 1), divided by the ideal DCG (the labelled rows other than
/// q sorted by relevance). k' = min(k, labelled rows - 1); k = 0 ranks every other labelled row
/// (the paper's sum to n). `fine` and `coarse` have one entry per row.
NdcgResult ndcg(MatrixView items, const std::vector<std::int32_t>& fine, const std::vector<std::int32_t>& coarse,
                int k = 0, DcgGain gain = DcgGain::Exponential, job::JobControl* control = nullptr);

/// A rooted binary tree over `leaves()` classes (a dendrogram). Nodes are numbered as in
/// SciPy's linkage matrix: 0..n-1 the leaves, n + m the node made by merge m. Heights do not
/// decrease towards the root. Immutable; concurrent reads are fine.
class Dendrogram {
public:
    struct Merge {
        int a = 0;
        int b = 0;
        double height = 0.0;
    };

    Dendrogram() = default;
    /// From n - 1 merges of n leaves (each node merged once, children made before their
    /// parent, heights >= those of the children). Throws std::invalid_argument otherwise.
    Dendrogram(int leaves, std::vector<Merge> merges);

    /// Agglomerative clustering of the rows of `points` (one per class) with average linkage
    /// (UPGMA: the distance of two clusters is the mean Euclidean distance between their
    /// members) — what SciPy's linkage(points, "average") builds. Ties go to the pair with the
    /// smallest node ids. O(n^3): meant for up to a few hundred classes. Throws
    /// std::invalid_argument for no rows.
    static Dendrogram averageLinkage(MatrixView points);

    /// The two-level tree of a fine -> coarse mapping: `coarseOf[c]` is the coarse class of
    /// fine class c. Classes of one coarse class meet at `coarseHeight`, different coarse
    /// classes at 1. Throws std::invalid_argument for an empty mapping, a coarse class < 0 or
    /// a height outside (0, 1].
    static Dendrogram twoLevel(const std::vector<std::int32_t>& coarseOf, double coarseHeight = 0.5);

    int leaves() const { return m_leaves; }
    const std::vector<Merge>& merges() const { return m_merges; }
    /// Height of the root (0 for a single leaf).
    double rootHeight() const { return m_merges.empty() ? 0.0 : m_merges.back().height; }
    /// Height of the lowest common ancestor of leaves a and b (0 when a == b). Throws
    /// std::out_of_range for a leaf outside [0, leaves()).
    double lcaHeight(int a, int b) const;
    /// lcaHeight(a, b) / rootHeight(), so that leaves that meet only at the root score 1 (0 when
    /// the root has height 0).
    double normalisedLcaHeight(int a, int b) const;

private:
    int m_leaves = 0;
    std::vector<Merge> m_merges;
    std::vector<double> m_lca; ///< leaves x leaves, row-major
};

struct CslResult {
    double average = 0.0;          ///< mean penalty over the wrong predictions ("average CSL penalty")
    double total = 0.0;            ///< mean penalty over all predictions, right ones 0 ("total CSL error")
    double errorRate = 0.0;        ///< share of wrong predictions
    std::int64_t predictions = 0;
    std::int64_t wrong = 0;
};

/// How the predicted label ŷ of CSL(y, ŷ) comes from a query's k nearest labelled rows:
/// each neighbour's label is one prediction (k per query), or the distance-weighted vote of
/// weightedVote() (Knn.h, seed 000) is the query's one prediction.
enum class CslPrediction { Neighbours, Vote };

/// The context-sensitive loss of seed 003 §4.4: CSL(y, ŷ) = 0 when y = ŷ, else the
/// normalised height of their lowest common ancestor in `tree` (whose leaves are the label
/// ids). k' = min(k, labelled rows - 1) neighbours. Throws std::invalid_argument, besides the
/// common cases, for a label that is not a leaf of `tree`.
CslResult contextSensitiveLoss(MatrixView items, const std::vector<std::int32_t>& labels, const Dendrogram& tree,
                               int k = 1, CslPrediction prediction = CslPrediction::Neighbours,
                               job::JobControl* control = nullptr);

/// The average-linkage dendrogram of the class means of `features` (one row per item; items
/// labelled -1 are left out). Leaf c is label c for c in [0, max label]. A label with no item
/// has no mean: it joins the tree at the root's height, which changes no other height (and
/// no query or neighbour has it). Throws std::invalid_argument for a label count that does not
/// match the rows or no labelled row.
Dendrogram classMeanDendrogram(MatrixView features, const std::vector<std::int32_t>& labels);

/// The fine -> coarse mapping of items labelled in both (coarseOf[fine] = coarse, fine in
/// [0, max fine label]). A fine class with no item labelled in both gets a coarse class of its
/// own (above every coarse label). Throws std::invalid_argument when a fine class has items of
/// two coarse classes (naming both and an item of each), for label counts that differ or for
/// no fine label at all.
std::vector<std::int32_t> coarseOfFine(const std::vector<std::int32_t>& fine, const std::vector<std::int32_t>& coarse);

/// Normalised mutual information of two labellings of the same items, with the arithmetic
/// mean of the entropies: MI / ((H(a) + H(b)) / 2) (scikit-learn's normalized_mutual_info_score
/// default). Pairs where either label is < 0 are left out. 1 when both are a single cluster.
/// Throws std::invalid_argument for lengths that differ or no pair left.
double normalizedMutualInformation(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b);

struct KmeansNmiOptions {
    int iterations = 25; ///< Lloyd iterations per run (FAISS's default)
    int redos = 3;       ///< runs from different seeds; the lowest k-means objective wins
    int seed = 1234;
};

struct NmiResult {
    double nmi = 0.0;
    int clusters = 0;          ///< = distinct labels of the labelled rows
    std::int64_t items = 0;    ///< labelled rows clustered
    std::vector<std::int32_t> assignment; ///< cluster id per row of `items`, -1 for unlabelled rows
};

/// NMI as in deep metric learning (seed 004): k-means (FAISS, Euclidean, as many clusters as
/// distinct labels, every labelled row used, no subsampling) on the labelled rows, then
/// normalizedMutualInformation(cluster ids, labels). Deterministic for a given seed.
NmiResult kmeansNmi(MatrixView items, const std::vector<std::int32_t>& labels, const KmeansNmiOptions& options = {},
                    job::JobControl* control = nullptr);

} // namespace setscope::eval
