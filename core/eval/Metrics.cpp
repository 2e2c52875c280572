// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/eval/Metrics.h"

#include "core/data/Dataset.h"
#include "core/data/SetMeans.h"
#include "core/eval/StructureScores.h"
#include "core/eval/Recall.h"
#include "core/ot/Emd.h"
#include "core/ot/PointSet.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <stdexcept>

namespace setscope::eval {

namespace {

bool validName(const std::string& s)
{
    if (s.empty() || s.front() == '-' || s.back() == '-')
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

std::string fmt(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

struct Rows {
    std::vector<float> data;
    std::vector<std::int32_t> labels;
    MatrixView view;
};

Rows gather(const MetricInput& in, const std::vector<std::int64_t>& rows)
{
    Rows r;
    r.data = gatherRows(in.embedding, rows);
    r.labels.resize(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        r.labels[i] = (*in.labels)[static_cast<std::size_t>(rows[i])];
    r.view = {r.data.data(), static_cast<std::int64_t>(rows.size()), in.embedding.cols};
    return r;
}

void requireLabels(const MetricInput& in, const char* metric)
{
    if (!in.labels || static_cast<std::int64_t>(in.labels->size()) != in.embedding.rows)
        throw std::invalid_argument(std::string("metric ") + metric + ": needs one label per embedding row");
}

std::string queriesWhat(const MetricInput& in)
{
    return in.leaveOneOut ? "all items, leave-one-out" : "within the test split";
}

std::vector<MetricValue> computeKnn(const MetricInput& in, const sdk::OptionValues& o)
{
    requireLabels(in, "knn-accuracy");
    const int k = static_cast<int>(o.integer("k"));
    const Rows ref = gather(in, in.references);
    KnnResult r;
    if (in.leaveOneOut) {
        r = knnClassify(ref.view, ref.labels, ref.view, ref.labels, k, true, in.control);
    } else {
        const Rows q = gather(in, in.queries);
        r = knnClassify(ref.view, ref.labels, q.view, q.labels, k, false, in.control);
    }
    return {{"knn-accuracy", r.accuracy,
             "distance-weighted kNN, k=" + std::to_string(k) + ", " + in.protocol + ", " + std::to_string(r.evaluated) +
                 " queries (seed 000 §VI-A)"}};
}

enum class RetrievalKind { Hit, Class, Precision };

std::vector<MetricValue> computeRetrieval(const MetricInput& in, const sdk::OptionValues& o, RetrievalKind kind)
{
    const char* name = kind == RetrievalKind::Hit ? "recall-hit" : kind == RetrievalKind::Class ? "recall-class" : "precision";
    requireLabels(in, name);
    const std::vector<int> ks = parseKs(o.text("ks"));
    const Rows q = gather(in, in.queries);
    const RetrievalScores s = retrievalAtK(q.view, q.labels, ks, in.control);
    std::vector<MetricValue> out;
    for (std::size_t t = 0; t < ks.size(); ++t) {
        const std::string K = std::to_string(ks[t]);
        switch (kind) {
        case RetrievalKind::Hit:
            out.push_back({std::string(name) + "@" + K, s.recallHit[t],
                           "share of queries with at least one same-class item among their " + K + " nearest, " +
                               queriesWhat(in) + ", " + std::to_string(s.queries) + " queries (seed 004)"});
            break;
        case RetrievalKind::Class:
            out.push_back({std::string(name) + "@" + K, s.recallClass[t],
                           "share of the query's class among its " + K + " nearest, " + queriesWhat(in) + ", " +
                               std::to_string(s.recallClassQueries) + " queries (seed 000 Table II, seed 001 Table 9)"});
            break;
        case RetrievalKind::Precision:
            out.push_back({std::string(name) + "@" + K, s.precision[t],
                           "share of the " + K + " nearest with the query's class, " + queriesWhat(in) + ", " +
                               std::to_string(s.queries) + " queries"});
            break;
        }
    }
    return out;
}

void requireEmd(const MetricInput& in, const char* metric)
{
    if (!in.exactEmd)
        throw std::invalid_argument(std::string("metric ") + metric + " needs exact EMD between items (none given)");
}

std::vector<MetricValue> computeEmdMse(const MetricInput& in, const sdk::OptionValues& o)
{
    requireEmd(in, "emd-mse");
    EmdMseOptions mo;
    mo.distance = parseEmbeddingDistance(o.text("distance"));
    mo.maxPairs = o.integer("max-pairs");
    mo.seed = static_cast<std::uint64_t>(o.integer("seed"));
    mo.threads = in.threads;
    const EmdMseResult r = emdApproximationMse(in.embedding, in.queries, in.exactEmd, mo, in.control);
    return {{"emd-mse", r.mse,
             "mean (EMD - " + std::string(mo.distance == EmbeddingDistance::SquaredEuclidean ? "||f_i - f_j||^2" : "||f_i - f_j||") +
                 ")^2 over " + std::to_string(r.pairs) + (r.sampled ? " sampled" : "") + " pairs " + queriesWhat(in) +
                 ", mean EMD " + fmt(r.meanEmd) + " (seed 001 Table 8)"}};
}

/// Mean Euclidean distance over the pairs of the scored items (all, or a seeded sample).
std::vector<MetricValue> computeSpread(const MetricInput& in, const sdk::OptionValues& o)
{
    const auto n = static_cast<std::int64_t>(in.queries.size());
    const std::int64_t maxPairs = o.integer("max-pairs");
    const std::int64_t all = n * (n - 1) / 2;
    const std::int64_t cols = in.embedding.cols;
    const auto dist = [&](std::int64_t a, std::int64_t b) {
        const float* x = in.embedding.data + in.queries[static_cast<std::size_t>(a)] * cols;
        const float* y = in.embedding.data + in.queries[static_cast<std::size_t>(b)] * cols;
        double s = 0.0;
        for (std::int64_t k = 0; k < cols; ++k)
            s += (double(x[k]) - double(y[k])) * (double(x[k]) - double(y[k]));
        return std::sqrt(s);
    };
    double sum = 0.0;
    std::int64_t pairs = 0;
    const bool sampled = maxPairs > 0 && all > maxPairs;
    if (!sampled) {
        for (std::int64_t a = 0; a < n; ++a)
            for (std::int64_t b = a + 1; b < n; ++b, ++pairs)
                sum += dist(a, b);
    } else {
        std::mt19937_64 rng(static_cast<std::uint64_t>(o.integer("seed")));
        std::uniform_int_distribution<std::int64_t> pick(0, n - 1);
        while (pairs < maxPairs) {
            const std::int64_t a = pick(rng), b = pick(rng);
            if (a != b) {
                sum += dist(a, b);
                ++pairs;
            }
        }
    }
    return {{"spread", pairs ? sum / static_cast<double>(pairs) : 0.0,
             "mean ||f_i - f_j|| over " + std::to_string(pairs) + (sampled ? " sampled" : "") + " pairs " + queriesWhat(in) +
                 " (0: every item at one point; unit vectors spread uniformly: about 1.41)"}};
}

std::vector<MetricValue> computeKde(const MetricInput& in, const sdk::OptionValues& o)
{
    requireEmd(in, "kde-discrepancy");
    KdeOptions ko;
    ko.k = static_cast<int>(o.integer("k"));
    ko.sigma = o.real("sigma");
    ko.distance = parseEmbeddingDistance(o.text("distance"));
    ko.neighbours = o.text("neighbours") == "exact" ? KdeNeighbours::Exact : KdeNeighbours::Embedding;
    ko.threads = in.threads;
    std::vector<std::int64_t> queries = in.queries;
    const std::int64_t maxQueries = o.integer("max-queries");
    const bool sampled = maxQueries > 0 && static_cast<std::int64_t>(queries.size()) > maxQueries;
    if (sampled) {
        std::mt19937_64 rng(static_cast<std::uint64_t>(o.integer("seed")));
        std::shuffle(queries.begin(), queries.end(), rng);
        queries.resize(static_cast<std::size_t>(maxQueries));
        std::sort(queries.begin(), queries.end());
    }
    const KdeResult r = kdeDiscrepancy(in.embedding, queries, in.references, in.exactEmd, ko, in.control);
    std::string doc = "mean |KDE_f - KDE_EMD| / KDE_EMD, Gaussian sigma=" + fmt(ko.sigma) + ", k=" + std::to_string(ko.k) +
                      " " + (ko.neighbours == KdeNeighbours::Embedding ? "embedding" : "exact-EMD") + " neighbours, " +
                      embeddingDistanceName(ko.distance) + ", " + std::to_string(r.queries) + (sampled ? " sampled" : "") +
                      " queries, " + in.protocol + " (seed 001 §7.6, Table 8)";
    if (r.skipped)
        doc += "; " + std::to_string(r.skipped) + " queries left out (true density 0)";
    return {{"kde-discrepancy", r.discrepancy, doc}};
}

/// The queries' rows of a label vector that is not the fine one (coarse labels).
std::vector<std::int32_t> gatherLabels(const std::vector<std::int32_t>& labels, const std::vector<std::int64_t>& rows)
{
    std::vector<std::int32_t> out(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        out[i] = labels[static_cast<std::size_t>(rows[i])];
    return out;
}

void requireCoarse(const MetricInput& in, const std::string& metric)
{
    if (!in.coarseLabels)
        throw std::invalid_argument("metric " + metric + " needs coarse labels (a label set that groups the scored one: "
                                    "MetricRequest::coarseLabelSet, setscope-cli eval --coarse NAME)");
    if (static_cast<std::int64_t>(in.coarseLabels->size()) != in.embedding.rows)
        throw std::invalid_argument("metric " + metric + ": needs one coarse label per embedding row");
}

std::vector<MetricValue> computePurity(const MetricInput& in, const sdk::OptionValues& o)
{
    requireLabels(in, "neighbourhood-purity");
    const int k = static_cast<int>(o.integer("k"));
    const Rows q = gather(in, in.queries);
    const double v = neighbourhoodPurity(q.view, q.labels, k, in.control);
    std::int64_t labelled = 0;
    for (std::int32_t y : q.labels)
        labelled += y >= 0 ? 1 : 0;
    return {{"neighbourhood-purity", v,
             "share of the " + std::to_string(std::min<std::int64_t>(k, labelled - 1)) + " nearest with the query's label, " +
                 queriesWhat(in) + ", " + std::to_string(labelled) + " queries (seed 003 §3.3)"}};
}

std::vector<MetricValue> computeNdcg(const MetricInput& in, const sdk::OptionValues& o)
{
    requireLabels(in, "ndcg");
    requireCoarse(in, "ndcg");
    const int k = static_cast<int>(o.integer("k"));
    const DcgGain gain = o.text("gain") == "linear" ? DcgGain::Linear : DcgGain::Exponential;
    const Rows q = gather(in, in.queries);
    const NdcgResult r = ndcg(q.view, q.labels, gatherLabels(*in.coarseLabels, in.queries), k, gain, in.control);
    std::string doc = "nDCG over the " + (k == 0 ? "full ranking (" + std::to_string(r.cutoff) + " items)"
                                                 : std::to_string(r.cutoff) + " nearest") +
                      ", relevance 1 same fine / 0.5 same coarse, gain " +
                      (gain == DcgGain::Linear ? "rel" : "2^rel - 1") + ", " + queriesWhat(in) + ", " +
                      std::to_string(r.queries) + " queries (seed 003 §4.4)";
    if (r.skipped)
        doc += "; " + std::to_string(r.skipped) + " queries left out (nothing relevant to retrieve)";
    return {{"ndcg", r.ndcg, doc}};
}

std::vector<MetricValue> computeCsl(const MetricInput& in, const sdk::OptionValues& o)
{
    requireLabels(in, "csl");
    const int k = static_cast<int>(o.integer("k"));
    const CslPrediction prediction = o.text("prediction") == "vote" ? CslPrediction::Vote : CslPrediction::Neighbours;
    const std::string treeKind = o.text("tree");
    Dendrogram tree;
    std::string treeDoc;
    if (treeKind == "coarse") {
        requireCoarse(in, "csl (tree=coarse)");
        tree = Dendrogram::twoLevel(coarseOfFine(*in.labels, *in.coarseLabels), 0.5);
        treeDoc = "fine -> coarse tree (same coarse 0.5, else 1)";
    } else {
        if (!in.inputFeatures.data || in.inputFeatures.rows != in.embedding.rows)
            throw std::invalid_argument("metric csl (tree=input) needs the items' input features (one row per item) for "
                                        "its class-mean dendrogram; none given (use tree=coarse with coarse labels)");
        tree = classMeanDendrogram(in.inputFeatures, *in.labels);
        treeDoc = "average-linkage dendrogram of the input class means";
    }
    const Rows q = gather(in, in.queries);
    const CslResult r = contextSensitiveLoss(q.view, q.labels, tree, k, prediction, in.control);
    const std::string what = (prediction == CslPrediction::Vote ? "the distance-weighted vote of the " + std::to_string(k)
                                                                : "each of the " + std::to_string(k)) +
                             " nearest as ŷ, " + treeDoc + ", " + queriesWhat(in) + ", " + std::to_string(r.predictions) +
                             " predictions, " + std::to_string(r.wrong) + " wrong (seed 003 §4.4)";
    return {{"csl-average", r.average, "mean LCA height (root = 1) of the wrong predictions, " + what},
            {"csl-total", r.total, "mean CSL over all predictions (0 when right), " + what}};
}

std::vector<MetricValue> computeNmi(const MetricInput& in, const sdk::OptionValues& o)
{
    requireLabels(in, "nmi");
    KmeansNmiOptions ko;
    ko.redos = static_cast<int>(o.integer("redos"));
    ko.iterations = static_cast<int>(o.integer("iterations"));
    ko.seed = static_cast<int>(o.integer("seed"));
    const Rows q = gather(in, in.queries);
    const NmiResult r = kmeansNmi(q.view, q.labels, ko, in.control);
    return {{"nmi", r.nmi,
             "NMI (arithmetic mean of entropies) of k-means with " + std::to_string(r.clusters) + " clusters (FAISS, " +
                 std::to_string(ko.redos) + " runs of " + std::to_string(ko.iterations) + " iterations, seed " +
                 std::to_string(ko.seed) + ") against the labels, " + queriesWhat(in) + ", " + std::to_string(r.items) +
                 " items (seed 004)"}};
}

/// The weighted mean point of each set of `ds`, row-major (size x dim).
std::vector<float> meanPoints(const data::Dataset& ds)
{
    std::vector<std::int64_t> all(ds.size());
    std::iota(all.begin(), all.end(), 0);
    return data::weightedMeans(ds, all);
}

sdk::OptionSpec ksOption()
{
    return sdk::OptionSpec::text("ks", "1,2,4,8", "comma-separated K values");
}

sdk::OptionSpec distanceOption()
{
    return sdk::OptionSpec::choice("distance", "squared-euclidean", {"squared-euclidean", "euclidean"},
                                   "embedding distance that stands for EMD (Approx.EMD, seed 001 §7.1, fits the squared one)");
}

} // namespace

std::vector<int> parseKs(const std::string& text)
{
    std::vector<int> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string part = text.substr(pos, comma - pos);
        std::int64_t v = 0;
        if (!sdk::detail::parseInteger(part, v) || v < 1 || v > 1000000)
            throw std::invalid_argument("K values must be a comma-separated list of whole numbers from 1 to 1000000, "
                                        "got '" + text + "'");
        out.push_back(static_cast<int>(v));
        pos = comma + 1;
    }
    return out;
}

void MetricRegistry::add(MetricDefinition d)
{
    if (!validName(d.name))
        throw std::logic_error("metric name '" + d.name + "' must be lower case letters, digits and '-'");
    if (find(d.name))
        throw std::logic_error("metric '" + d.name + "' registered twice");
    if (!d.compute)
        throw std::logic_error("metric '" + d.name + "' has no compute function");
    (void)sdk::OptionValues::resolve(d.options, {}, "metric " + d.name); // throws for a broken schema
    m_definitions.push_back(std::move(d));
}

const MetricDefinition* MetricRegistry::find(const std::string& name) const
{
    for (const MetricDefinition& d : m_definitions)
        if (d.name == name)
            return &d;
    return nullptr;
}

const MetricDefinition& MetricRegistry::require(const std::string& name) const
{
    if (const MetricDefinition* d = find(name))
        return *d;
    std::string known;
    for (const MetricDefinition& d : m_definitions)
        known += (known.empty() ? "" : ", ") + d.name;
    throw std::invalid_argument("unknown metric '" + name + "' (known: " + known + ")");
}

std::vector<MetricValue> MetricRegistry::compute(const std::string& name, const MetricInput& input,
                                                 const std::map<std::string, std::string>& options) const
{
    const MetricDefinition& d = require(name);
    const sdk::OptionValues values = sdk::OptionValues::resolve(d.options, options, "metric " + name);
    if (d.needsExactEmd && !input.exactEmd)
        throw std::invalid_argument("metric " + name + " needs exact EMD between items (none given)");
    if (d.needsCoarseLabels && !input.coarseLabels)
        throw std::invalid_argument("metric " + name + " needs coarse labels (a label set that groups the scored one: "
                                    "MetricRequest::coarseLabelSet, setscope-cli eval --coarse NAME)");
    return d.compute(input, values);
}

void registerBuiltinMetrics(MetricRegistry& r)
{
    r.add({"knn-accuracy", "distance-weighted kNN classification accuracy (seed 000 §VI-A)",
           {sdk::OptionSpec::integer("k", 10, 1, 1000000, "neighbours that vote, with weight 1/distance")}, false,
           computeKnn});
    r.add({"recall-hit", "Recall@K as in deep metric learning: queries with at least one same-class item among their K "
                         "nearest (seed 004)",
           {ksOption()}, false, [](const MetricInput& in, const sdk::OptionValues& o) {
               return computeRetrieval(in, o, RetrievalKind::Hit);
           }});
    r.add({"recall-class", "Recall@K of seed 000 Table II / seed 001 Table 9: the share of the query's class among its K "
                           "nearest",
           {ksOption()}, false, [](const MetricInput& in, const sdk::OptionValues& o) {
               return computeRetrieval(in, o, RetrievalKind::Class);
           }});
    r.add({"precision", "Precision@K: the share of the K nearest that have the query's class", {ksOption()}, false,
           [](const MetricInput& in, const sdk::OptionValues& o) { return computeRetrieval(in, o, RetrievalKind::Precision); }});
    r.add({"neighbourhood-purity", "neighbourhood purity: the share of the k nearest with the item's label (seed 003 §3.3)",
           {sdk::OptionSpec::integer("k", 10, 1, 1000000, "neighbours per item (seed 003 does not say; 10)")}, false,
           computePurity});
    {
        MetricDefinition d{"ndcg", "nDCG with relevance 1 for the same fine label, 0.5 for the same coarse label only "
                                   "(seed 003 §4.4)",
                           {sdk::OptionSpec::integer("k", 0, 0, 1000000,
                                                     "ranked neighbours per item (0 = every other item, seed 003's sum to n)"),
                            sdk::OptionSpec::choice("gain", "exponential", {"exponential", "linear"},
                                                    "gain of a relevance r: 2^r - 1 (seed 003) or r")},
                           false, computeNdcg};
        d.needsCoarseLabels = true;
        r.add(std::move(d));
    }
    r.add({"csl", "context-sensitive loss: the dendrogram height where the true and the predicted class meet, root 1 "
                  "(seed 003 §4.4)",
           {sdk::OptionSpec::integer("k", 1, 1, 1000000, "nearest neighbours that predict (1: the nearest-neighbour class)"),
            sdk::OptionSpec::choice("prediction", "neighbours", {"neighbours", "vote"},
                                    "each neighbour's label is a prediction, or their distance-weighted vote is one"),
            sdk::OptionSpec::choice("tree", "input", {"input", "coarse"},
                                    "average-linkage dendrogram of the input features' class means, or the fine -> coarse "
                                    "tree of the coarse labels")},
           false, computeCsl, false, true});
    r.add({"nmi", "normalised mutual information of k-means clusters (as many as classes) and the labels (seed 004)",
           {sdk::OptionSpec::integer("redos", 3, 1, 1000, "k-means runs from different seeds; the best objective wins"),
            sdk::OptionSpec::integer("iterations", 25, 1, 100000, "Lloyd iterations per run"),
            sdk::OptionSpec::integer("seed", 1234, 0, 2147483647, "seed of the k-means initialisation")},
           false, computeNmi});
    r.add({"spread", "mean Euclidean distance between the scored items' embeddings: how bunched the map is (a start "
                     "that semi-hard mining cannot leave is bunched, docs/LOSSES.md)",
           {sdk::OptionSpec::integer("max-pairs", 20000, 0, 1e12, "sample this many pairs when there are more (0 = all)"),
            sdk::OptionSpec::integer("seed", 1, 0, 9.0e15, "seed of the pair sample")},
           false, computeSpread});
    r.add({"emd-mse", "mean squared error of the embedding distance against exact EMD (seed 001 Table 8)",
           {distanceOption(),
            sdk::OptionSpec::integer("max-pairs", 10000, 0, 1e12, "sample this many pairs when there are more (0 = all)"),
            sdk::OptionSpec::integer("seed", 1, 0, 9.0e15, "seed of the pair sample")},
           true, computeEmdMse});
    r.add({"kde-discrepancy", "relative error of a Gaussian kernel density estimate from the embedding's kNN against the "
                              "one from exact EMD (seed 001 §7.6, Table 8)",
           {sdk::OptionSpec::integer("k", 10, 1, 1000000, "neighbours of the estimate (seed 001: 10)"),
            sdk::OptionSpec::real("sigma", 1.0, 1e-12, 1e12, "kernel width σ of G(x; σ) (seed 001: 1)"), distanceOption(),
            sdk::OptionSpec::choice("neighbours", "embedding", {"embedding", "exact"},
                                    "estimate from the embedding's k nearest, or from the exact-EMD k nearest "
                                    "re-measured in the embedding"),
            sdk::OptionSpec::integer("max-queries", 200, 0, 1e12,
                                     "score this many queries drawn at random when there are more (0 = all)"),
            sdk::OptionSpec::integer("seed", 1, 0, 9.0e15, "seed of the query sample")},
           true, computeKde});
}

const MetricRegistry& builtinMetrics()
{
    static const MetricRegistry registry = [] {
        MetricRegistry r;
        registerBuiltinMetrics(r);
        return r;
    }();
    return registry;
}

std::vector<MetricValue> evaluateMetrics(const data::Dataset& ds, const float* vectors, int dim,
                                         const std::string& labelSet, const MetricRequest& request,
                                         job::JobControl* control)
{
    const data::LabelSet& ls = ds.requireLabelSet(labelSet);
    const MetricRegistry& registry = request.registry ? *request.registry : builtinMetrics();
    for (const auto& [name, opts] : request.options)
        (void)registry.require(name); // options for a metric that does not exist are a typo

    MetricInput in;
    in.embedding = {vectors, static_cast<std::int64_t>(ds.size()), dim};
    in.labels = &ls.labels;
    in.exactEmd = request.exactEmd;
    in.threads = request.threads;
    in.control = control;
    if (!request.coarseLabelSet.empty())
        in.coarseLabels = &ds.requireLabelSet(request.coarseLabelSet).labels;
    const auto train = ds.indices(data::Split::Train);
    const auto test = ds.indices(data::Split::Test);
    if (!train.empty() && !test.empty()) {
        in.protocol = "test-vs-train";
        in.queries = test;
        in.references = train;
    } else {
        in.protocol = "leave-one-out";
        in.leaveOneOut = true;
        in.queries.resize(ds.size());
        std::iota(in.queries.begin(), in.queries.end(), 0);
        in.references = in.queries;
    }

    std::vector<std::string> names = request.metrics;
    if (names.empty())
        for (const MetricDefinition& d : registry.all())
            if ((!d.needsExactEmd || in.exactEmd) && (!d.needsCoarseLabels || in.coarseLabels))
                names.push_back(d.name);
    // The input features of the class-mean dendrogram (csl): the raw vectors, or the weighted
    // mean point of each set (a pass over the dataset, so only when a metric reads them).
    std::vector<float> setMeans;
    const bool wantFeatures = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
        const MetricDefinition* d = registry.find(n);
        return d && d->usesInputFeatures;
    });
    if (wantFeatures && ds.isVectorDataset()) {
        in.inputFeatures = {ds.values().data(), static_cast<std::int64_t>(ds.size()), ds.dim()};
    } else if (wantFeatures && !ds.empty()) {
        setMeans = meanPoints(ds);
        in.inputFeatures = {setMeans.data(), static_cast<std::int64_t>(ds.size()), ds.dim()};
    }
    std::vector<MetricValue> out;
    for (const std::string& name : names) {
        const auto it = request.options.find(name);
        auto values = registry.compute(name, in, it == request.options.end() ? std::map<std::string, std::string>{} : it->second);
        out.insert(out.end(), std::make_move_iterator(values.begin()), std::make_move_iterator(values.end()));
    }
    return out;
}

MetricRequest standardMetrics()
{
    MetricRequest r;
    r.metrics = {"knn-accuracy", "recall-hit", "recall-class", "precision"};
    return r;
}

std::vector<MetricValue> evaluateRawMetrics(const data::Dataset& ds, const std::string& labelSet,
                                            const MetricRequest& request, job::JobControl* control)
{
    if (!ds.isVectorDataset())
        throw std::invalid_argument("raw-vector scores need a plain vector dataset; '" + ds.name() +
                                    "' holds sets (compare them under EMD instead: setscope-cli emd-knn)");
    return evaluateMetrics(ds, ds.values().data(), ds.dim(), labelSet, request, control);
}

std::string shortMetricName(const std::string& name)
{
    static const std::map<std::string, std::string> fixed{{"knn-accuracy", "kNN"},     {"neighbourhood-purity", "Purity"},
                                                          {"ndcg", "nDCG"},           {"csl-average", "CSL avg"},
                                                          {"csl-total", "CSL"},       {"nmi", "NMI"}};
    if (const auto it = fixed.find(name); it != fixed.end())
        return it->second;
    for (const auto& [prefix, label] : {std::pair<const char*, const char*>{"recall-hit@", "R@"},
                                        {"recall-class@", "RC@"},
                                        {"precision@", "P@"}}) {
        const std::string p = prefix;
        if (name.rfind(p, 0) == 0)
            return label + name.substr(p.size());
    }
    return name;
}

std::string describeMetric(const std::string& name, const MetricRegistry& registry)
{
    static const std::map<std::string, std::string> run{
        {"validation-knn", "kNN accuracy of the held-out validation items against the training pool: picks the "
                           "run's model (the best epoch of the last stage)"},
        {"emd-seconds", "seconds the epoch's steps spent on exact EMDs (apart from the step time)"},
        {"emd-solved", "exact EMDs the epoch's steps solved"},
        {"emd-cached", "exact EMDs the epoch's steps read from a cached pairwise matrix"},
        {"padding-share", "padded slots / all slots of the epoch's batches"},
        {"step-seconds", "wall seconds of the epoch's optimizer steps (evaluation not included)"},
        {"augment-seconds", "seconds the epoch's steps spent augmenting sets"},
        {"collate-seconds", "seconds the epoch's steps spent padding sets into batches and moving them to the device"},
        {"forward-seconds", "seconds the epoch's steps spent in the encoder's forward pass"},
        {"loss-seconds", "seconds the epoch's steps spent in the loss: mining, its terms (and seed 004's metric solve)"},
        {"backward-seconds", "seconds the epoch's steps spent in the backward pass"},
        {"optimizer-seconds", "seconds the epoch's steps spent in the optimizer's update"}};
    if (const auto it = run.find(name); it != run.end())
        return it->second;
    const auto at = name.find('@');
    if (const MetricDefinition* d = registry.find(name.substr(0, at)))
        return d->doc + (at == std::string::npos ? std::string() : ", at K = " + name.substr(at + 1));
    // A metric with several values names them NAME-PART (csl-average, csl-total).
    for (auto dash = name.rfind('-'); dash != std::string::npos && dash > 0; dash = name.rfind('-', dash - 1))
        if (const MetricDefinition* d = registry.find(name.substr(0, dash)))
            return d->doc + " (" + name.substr(dash + 1) + ")";
    return {};
}

PairDistance exactEmdOf(const data::Dataset& ds)
{
    return [&ds](std::int64_t i, std::int64_t j) {
        if (i < 0 || j < 0 || static_cast<std::size_t>(i) >= ds.size() || static_cast<std::size_t>(j) >= ds.size())
            throw ot::OtError("item " + std::to_string(i < 0 || static_cast<std::size_t>(i) >= ds.size() ? i : j) +
                              " is not an item of '" + ds.name() + "'");
        return ot::emd(ot::pointSet(ds, static_cast<std::size_t>(i)), ot::pointSet(ds, static_cast<std::size_t>(j))).emd;
    };
}

} // namespace setscope::eval
