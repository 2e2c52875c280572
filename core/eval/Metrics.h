// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/eval/EmdApproximation.h"
#include "core/eval/Knn.h"

#include <setscope/sdk/Options.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
} // namespace setscope::job

namespace setscope::eval {

/// One score with a stable name ("knn-accuracy", "recall-class@4", "emd-mse") and one line
/// saying what was computed on what (protocol, counts), for tables, JSON and the project
/// store. Fractions are fractions (not percent).
struct MetricValue {
    std::string name;
    double value = 0.0;
    std::string doc;
};

/// What a metric is computed on. Rows are dataset items; the vectors, labels and the EMD
/// callable are borrowed and must outlive the call.
struct MetricInput {
    MatrixView embedding;                           ///< one row per item
    const std::vector<std::int32_t>* labels = nullptr; ///< one per row, -1 unlabelled
    /// The scored items (the test split, or every item) and those they are matched against
    /// (the train split, or every item). Retrieval scores (recall, precision) and the EMD
    /// MSE stay within `queries`; kNN accuracy and the density discrepancy match queries
    /// against references.
    std::vector<std::int64_t> queries;
    std::vector<std::int64_t> references;
    /// queries == references: an item is never its own neighbour.
    bool leaveOneOut = false;
    /// "test-vs-train" or "leave-one-out", for the docs of the values.
    std::string protocol;
    PairDistance exactEmd;                          ///< empty: EMD metrics are unavailable
    int threads = 0;                                ///< for exact EMD; 0 = all cores
    job::JobControl* control = nullptr;             ///< may be null
    /// Coarse labels, one per row, -1 unlabelled (the grouping of `labels` that a weakly
    /// supervised model was trained on, seed 003); null: ndcg (and csl with tree=coarse) are
    /// unavailable.
    const std::vector<std::int32_t>* coarseLabels = nullptr;
    /// The items' input features, one row per item (the raw vectors, or the weighted mean point
    /// of each set), for the class-mean dendrogram of csl (tree=input); data null: unavailable.
    MatrixView inputFeatures;
};

using MetricCompute = std::function<std::vector<MetricValue>(const MetricInput&, const sdk::OptionValues&)>;

/// A named metric and the options it declares (sdk/Options.h): what the CLI's flags and
/// the GUI's forms are generated from.
struct MetricDefinition {
    std::string name;           ///< lower case, digits, '-'
    std::string doc;            ///< one line, with the paper it comes from
    sdk::OptionSchema options;
    bool needsExactEmd = false; ///< skipped by evaluateMetrics() when no EMD callable is given
    MetricCompute compute;      ///< runs on the calling thread (and its own workers)
    /// Skipped by evaluateMetrics() when no coarse label set is given.
    bool needsCoarseLabels = false;
    /// Reads MetricInput::inputFeatures: evaluateMetrics() fills them (the mean point of each
    /// set costs a pass over the dataset) only when such a metric is computed.
    bool usesInputFeatures = false;
};

/// The metric definitions by name, in registration order. Not thread-safe to modify;
/// concurrent reads are fine.
class MetricRegistry {
public:
    /// Throws std::logic_error for an empty or ill-formed name, a duplicate, a missing
    /// compute function or a broken option schema.
    void add(MetricDefinition definition);
    const MetricDefinition* find(const std::string& name) const;
    /// Throws std::invalid_argument listing the registered names.
    const MetricDefinition& require(const std::string& name) const;
    const std::vector<MetricDefinition>& all() const { return m_definitions; }
    /// Resolves `options` against the metric's schema (sdk::OptionValues::resolve: unknown
    /// names and bad values throw std::invalid_argument naming "metric NAME") and computes.
    /// Throws std::invalid_argument when the metric needs exact EMD or coarse labels and none
    /// are given.
    std::vector<MetricValue> compute(const std::string& name, const MetricInput& input,
                                     const std::map<std::string, std::string>& options = {}) const;

private:
    std::vector<MetricDefinition> m_definitions;
};

/// Registers setscope's metrics (docs/METRICS.md has the formulas and the papers' sources):
///  - knn-accuracy      distance-weighted kNN (knnClassify(), seed 000 §VI-A), option k = 10;
///                      value "knn-accuracy"
///  - recall-hit        recall-hit@K (Recall.h; seed 004), option ks = "1,2,4,8"
///  - recall-class      recall-class@K (Recall.h; seed 000 Table II, seed 001 Table 9)
///  - precision         precision@K (Recall.h), the share of the K nearest in the class
///  - neighbourhood-purity  neighbourhoodPurity() within the queries (Hierarchy.h, seed 003
///                      §3.3), option k = 10
///  - ndcg              ndcg() within the queries with fine/coarse relevance (seed 003 §4.4);
///                      options k = 0 (every other item), gain; needs coarse labels
///  - csl               contextSensitiveLoss() within the queries (seed 003 §4.4): values
///                      "csl-average" and "csl-total"; options k = 1, prediction, tree
///                      (input: class-mean dendrogram of the input features; coarse: the
///                      fine -> coarse tree, needs coarse labels)
///  - nmi               kmeansNmi() of the queries (seed 004); options redos = 3,
///                      iterations = 25, seed
///  - emd-mse           emdApproximationMse() over pairs of queries (seed 001 Table 8);
///                      options distance, max-pairs = 10000, seed; needs exact EMD
///  - kde-discrepancy   kdeDiscrepancy() of queries against references (seed 001 §7.6);
///                      options k = 10, sigma = 1, distance, neighbours, max-queries = 200,
///                      seed; needs exact EMD
/// Throws std::logic_error when a name is already taken.
void registerBuiltinMetrics(MetricRegistry& registry);
/// A registry holding the built-in metrics (built once, thread-safe).
const MetricRegistry& builtinMetrics();

/// Parses "1,2,4,8" into {1, 2, 4, 8}; throws std::invalid_argument for anything but a
/// comma-separated list of positive whole numbers.
std::vector<int> parseKs(const std::string& text);

struct MetricRequest {
    /// Metric names to compute, in this order; empty: every registered metric, skipping
    /// those that need exact EMD when `exactEmd` is empty and those that need coarse labels
    /// when `coarseLabelSet` is empty.
    std::vector<std::string> metrics;
    /// Options per metric name ({"recall-class": {{"ks", "5,15,30"}}}).
    std::map<std::string, std::map<std::string, std::string>> options;
    /// Exact EMD of two items (dataset indices), e.g. exactEmdOf(dataset).
    PairDistance exactEmd;
    int threads = 0;                           ///< for exact EMD; 0 = all cores
    const MetricRegistry* registry = nullptr;  ///< null: builtinMetrics()
    /// A label set of the dataset that groups the scored one (e.g. "coarse" when scoring
    /// "fine"), for ndcg and csl tree=coarse; empty: none.
    std::string coarseLabelSet;
};

/// The named scores of an embedding (`vectors`: dataset.size() x dim, row-major) with the
/// labels of `labelSet`, under the papers' protocol (seed 000 §VI-A): with a train and a test
/// split, test queries against train references ("test-vs-train"); otherwise every item
/// against all the others ("leave-one-out"). Runs on the calling thread (plus workers for
/// exact EMD); `control` may be null. Throws std::invalid_argument for an unknown label
/// set, metric or option, an EMD metric asked for without `exactEmd`, or a metric that needs
/// coarse labels asked for without `coarseLabelSet`.
std::vector<MetricValue> evaluateMetrics(const data::Dataset& dataset, const float* vectors, int dim,
                                         const std::string& labelSet, const MetricRequest& request = {},
                                         job::JobControl* control = nullptr);

/// The scores every training epoch and the raw-vector baseline report: knn-accuracy (k = 10),
/// recall-hit@1/2/4/8, recall-class@1/2/4/8 and precision@1/2/4/8, in this order.
MetricRequest standardMetrics();

/// The same scores of a plain vector dataset's raw vectors: the baseline a learned metric must
/// beat. Throws std::invalid_argument for a dataset of sets (compare under EMD instead).
std::vector<MetricValue> evaluateRawMetrics(const data::Dataset& dataset, const std::string& labelSet,
                                            const MetricRequest& request = standardMetrics(),
                                            job::JobControl* control = nullptr);

/// A short label for tables and console lines: knn-accuracy -> "kNN", recall-hit@K -> "R@K",
/// recall-class@K -> "RC@K", precision@K -> "P@K", neighbourhood-purity -> "Purity",
/// ndcg -> "nDCG", csl-average -> "CSL avg", csl-total -> "CSL", nmi -> "NMI"; any other name
/// as it is.
std::string shortMetricName(const std::string& name);

/// One line saying what a named value is, for tooltips and listings: the registered metric's
/// doc for an evaluation score (recall-class@4: the doc of recall-class, "at K = 4"), a fixed
/// line for the run's own figures (validation-knn, emd-seconds, ...), "" when unknown.
std::string describeMetric(const std::string& name, const MetricRegistry& registry = builtinMetrics());

/// Exact EMD (ot::emd, seed 001 Eq. 2, Euclidean ground distance) between items i and j of
/// `dataset`, which must outlive the function. Thread-safe. Throws ot::OtError for a bad
/// item.
PairDistance exactEmdOf(const data::Dataset& dataset);

} // namespace setscope::eval
