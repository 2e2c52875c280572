// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/graph/Graph.h"

#include "core/data/graph/TextLines.h"
#include "core/util/SpecOptions.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>

namespace setscope::data {

using sdk::InputError;
using sdk::Split;

std::vector<int> Graph::degrees() const
{
    std::vector<int> d(static_cast<std::size_t>(nodeCount), 0);
    for (const auto& [a, b] : edges) {
        ++d[static_cast<std::size_t>(a)];
        if (b != a)
            ++d[static_cast<std::size_t>(b)];
    }
    return d;
}

sdk::OptionSchema GraphOptions::schema()
{
    using sdk::OptionSpec;
    const GraphOptions d;
    return {
        OptionSpec::choice("repr", "features", {"features", "adjacency"},
                           "a node's vector: features (one-hot label, attributes, degree, random-walk return "
                           "probabilities) or adjacency (its row of the adjacency matrix, zero-padded: the papers')"),
        OptionSpec::integer("rw", d.randomWalkSteps, 0, 64, "random-walk return probabilities per node (repr=features)"),
        OptionSpec::integer("folds", d.folds, 2, 1000, "stratified cross-validation folds"),
        OptionSpec::integer("fold", d.fold, 0, 999, "the fold that is the test split (0 .. folds-1)"),
        OptionSpec::integer("seed", static_cast<std::int64_t>(d.seed), 0, 9.0e15, "seeds the fold assignment"),
    };
}

sdk::OptionSchema GraphOptions::sdfSchema()
{
    sdk::OptionSchema s = schema();
    s.push_back(sdk::OptionSpec::text("class", "", "the data item that gives a molecule's class (empty: unlabelled)"));
    s.push_back(sdk::OptionSpec::text("threshold", "",
                                      "a number T: the class becomes NAME >= T or NAME < T (empty: the value itself is the class)"));
    return s;
}

GraphOptions GraphOptions::fromValues(const sdk::OptionValues& v)
{
    GraphOptions o;
    o.representation = v.text("repr") == "adjacency" ? GraphRepresentation::Adjacency : GraphRepresentation::Features;
    o.randomWalkSteps = static_cast<int>(v.integer("rw"));
    o.folds = static_cast<int>(v.integer("folds"));
    o.fold = static_cast<int>(v.integer("fold"));
    o.seed = static_cast<std::uint64_t>(v.integer("seed"));
    if (v.values().count("class"))
        o.classProperty = v.text("class");
    if (v.values().count("threshold") && !v.text("threshold").empty()) {
        const std::string& text = v.text("threshold");
        double t = 0;
        if (!parseReal(text, t) || !std::isfinite(t))
            throw std::invalid_argument("graph option threshold=" + text + ": expected a number");
        o.threshold = t;
    }
    o.validate();
    return o;
}

GraphOptions GraphOptions::parse(const std::string& spec)
{
    return fromValues(util::resolveSpecOptions(sdfSchema(), spec, "graph options"));
}

void GraphOptions::validate() const
{
    if (folds < 2 || folds > 1000)
        throw std::invalid_argument("graph option folds=" + std::to_string(folds) + ": expected 2..1000");
    if (fold < 0 || fold >= folds)
        throw std::invalid_argument("graph option fold=" + std::to_string(fold) + ": expected 0.." +
                                    std::to_string(folds - 1) + " (folds=" + std::to_string(folds) + ")");
    if (randomWalkSteps < 0 || randomWalkSteps > 64)
        throw std::invalid_argument("graph option rw=" + std::to_string(randomWalkSteps) + ": expected 0..64");
    if (threshold && classProperty.empty())
        throw std::invalid_argument("graph option threshold needs class=PROPERTY to say which value it applies to");
}

std::vector<double> randomWalkReturnProbabilities(const Graph& g, int steps)
{
    const std::size_t n = static_cast<std::size_t>(g.nodeCount);
    const std::size_t K = static_cast<std::size_t>(std::max(steps, 0));
    std::vector<double> out(n * K, 0.0);
    if (K == 0 || n == 0)
        return out;
    // CSR neighbour lists; a self-loop appears once in its node's list.
    std::vector<std::size_t> start(n + 1, 0);
    for (const auto& [a, b] : g.edges) {
        ++start[static_cast<std::size_t>(a) + 1];
        if (a != b)
            ++start[static_cast<std::size_t>(b) + 1];
    }
    for (std::size_t i = 0; i < n; ++i)
        start[i + 1] += start[i];
    std::vector<int> nb(start[n]);
    std::vector<std::size_t> fill(start.begin(), start.end() - 1);
    for (const auto& [a, b] : g.edges) {
        nb[fill[static_cast<std::size_t>(a)]++] = b;
        if (a != b)
            nb[fill[static_cast<std::size_t>(b)]++] = a;
    }
    // One walk per start node: x_k = x_{k-1} P with P = D^-1 A, read x_k[i]. Sparse pushes
    // cost O(K |E|) per start node, so large sparse graphs stay cheap (no dense n^3 power).
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (start[i + 1] == start[i])
            continue; // isolated: defined as 0
        std::fill(x.begin(), x.end(), 0.0);
        x[i] = 1.0;
        for (std::size_t k = 0; k < K; ++k) {
            std::fill(y.begin(), y.end(), 0.0);
            for (std::size_t u = 0; u < n; ++u) {
                if (x[u] == 0.0)
                    continue;
                const std::size_t du = start[u + 1] - start[u];
                const double share = x[u] / static_cast<double>(du);
                for (std::size_t e = start[u]; e < start[u + 1]; ++e)
                    y[static_cast<std::size_t>(nb[e])] += share;
            }
            std::swap(x, y);
            out[i * K + k] = x[i];
        }
    }
    return out;
}

std::vector<std::int32_t> stratifiedFolds(const std::vector<std::int32_t>& labels, int folds, std::uint64_t seed)
{
    if (folds < 1)
        throw std::invalid_argument("stratifiedFolds: folds must be positive");
    std::map<std::int32_t, std::vector<std::int32_t>> byClass; // kUnlabelled (-1) sorts first
    for (std::size_t i = 0; i < labels.size(); ++i)
        byClass[labels[i]].push_back(static_cast<std::int32_t>(i));
    std::mt19937_64 rng(seed);
    std::vector<std::int32_t> fold(labels.size(), 0);
    std::size_t dealt = 0;
    for (auto& [cls, items] : byClass) {
        // Fisher-Yates with mt19937_64's raw output: std::shuffle and the distributions
        // differ between standard libraries, this does not.
        for (std::size_t i = items.size(); i > 1; --i) {
            const std::size_t j = static_cast<std::size_t>(rng() % i);
            std::swap(items[i - 1], items[j]);
        }
        for (std::int32_t it : items)
            fold[static_cast<std::size_t>(it)] = static_cast<std::int32_t>(dealt++ % static_cast<std::size_t>(folds));
    }
    return fold;
}

namespace {

/// Class names of the graph labels: numeric order when all are numbers, else alphabetical.
std::vector<std::string> graphClassNames(const GraphCollection& c)
{
    std::vector<std::string> names;
    for (const Graph& g : c.graphs)
        if (!g.label.empty())
            names.push_back(g.label);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<double> v(names.size());
    bool numeric = true;
    for (std::size_t i = 0; i < names.size() && numeric; ++i)
        numeric = parseReal(names[i], v[i]);
    if (numeric) {
        std::vector<std::size_t> order(names.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
        std::vector<std::string> sorted;
        for (std::size_t i : order)
            sorted.push_back(names[i]);
        names = std::move(sorted);
    }
    return names;
}

std::string originOf(const GraphCollection& c) { return c.sourceFiles.empty() ? c.name : c.sourceFiles.front(); }

} // namespace

void emitGraphs(const GraphCollection& c, const GraphOptions& options, sdk::DatasetSink& sink)
{
    options.validate();
    if (c.graphs.empty())
        throw InputError(originOf(c), "", "no graphs");
    const std::size_t L = c.nodeLabelNames.size();
    const std::size_t A = c.nodeAttributeNames.size();
    const std::size_t K = static_cast<std::size_t>(options.randomWalkSteps);
    std::size_t maxNodes = 0, totalNodes = 0;
    for (const Graph& g : c.graphs) {
        if (g.nodeCount <= 0)
            throw InputError(originOf(c), g.firstLine ? InputError::atLine(g.firstLine) : std::string(),
                             g.name + " has no nodes (an empty graph cannot be a set)");
        maxNodes = std::max(maxNodes, static_cast<std::size_t>(g.nodeCount));
        totalNodes += static_cast<std::size_t>(g.nodeCount);
    }
    const bool adjacency = options.representation == GraphRepresentation::Adjacency;
    const std::size_t dim = adjacency ? maxNodes : L + A + 2 + K;
    // The padded adjacency rows grow as (total nodes) x (largest graph); refuse before
    // allocating something the machine cannot hold.
    const double bytes = static_cast<double>(totalNodes) * static_cast<double>(dim) * 4.0;
    if (bytes > 8.0e9)
        throw InputError(originOf(c), "",
                         "the padded adjacency representation would take " + std::to_string(bytes / 1e9).substr(0, 5) +
                             " GB (" + std::to_string(totalNodes) + " nodes x " + std::to_string(dim) +
                             "); use repr=features");

    const std::vector<std::string> classes = graphClassNames(c);
    std::map<std::string, std::int32_t> classId;
    for (std::size_t i = 0; i < classes.size(); ++i)
        classId[classes[i]] = static_cast<std::int32_t>(i);
    std::vector<std::int32_t> labels(c.graphs.size(), sdk::kUnlabelled);
    std::size_t unlabelled = 0;
    for (std::size_t i = 0; i < c.graphs.size(); ++i) {
        if (c.graphs[i].label.empty())
            ++unlabelled;
        else
            labels[i] = classId.at(c.graphs[i].label);
    }
    const std::vector<std::int32_t> fold = stratifiedFolds(labels, options.folds, options.seed);

    sink.setName(c.name);
    sink.setDimension(static_cast<int>(dim));
    sink.reserve(c.graphs.size(), totalNodes);
    if (!classes.empty())
        sink.defineLabelSet("fine", classes);
    std::vector<std::string> foldNames;
    for (int f = 0; f < options.folds; ++f)
        foldNames.push_back("fold " + std::to_string(f));
    sink.defineLabelSet("cv-fold", foldNames);

    std::vector<float> values;
    std::vector<float> weights;
    std::vector<std::int32_t> pairs;
    for (std::size_t gi = 0; gi < c.graphs.size(); ++gi) {
        const Graph& g = c.graphs[gi];
        const std::size_t n = static_cast<std::size_t>(g.nodeCount);
        values.assign(n * dim, 0.0f);
        weights.assign(n, 1.0f / static_cast<float>(n));
        if (adjacency) {
            for (const auto& [a, b] : g.edges) {
                values[static_cast<std::size_t>(a) * dim + static_cast<std::size_t>(b)] = 1.0f;
                values[static_cast<std::size_t>(b) * dim + static_cast<std::size_t>(a)] = 1.0f;
            }
        } else {
            const std::vector<int> deg = g.degrees();
            const std::vector<double> rw = randomWalkReturnProbabilities(g, options.randomWalkSteps);
            for (std::size_t i = 0; i < n; ++i) {
                float* row = values.data() + i * dim;
                if (L > 0 && !g.nodeLabels.empty())
                    row[static_cast<std::size_t>(g.nodeLabels[i])] = 1.0f;
                for (std::size_t a = 0; a < A && !g.nodeAttributes.empty(); ++a)
                    row[L + a] = g.nodeAttributes[i * A + a];
                row[L + A] = static_cast<float>(deg[i]);
                row[L + A + 1] = n > 1 ? static_cast<float>(deg[i]) / static_cast<float>(n - 1) : 0.0f;
                for (std::size_t k = 0; k < K; ++k)
                    row[L + A + 2 + k] = static_cast<float>(rw[i * K + k]);
            }
        }
        const Split split = fold[gi] == options.fold ? Split::Test : Split::Train;
        const std::size_t item = sink.addItem(values.data(), weights.data(), n, split);
        if (labels[gi] != sdk::kUnlabelled)
            sink.setLabel("fine", item, labels[gi]);
        sink.setLabel("cv-fold", item, fold[gi]);
        if (!g.nodeText.empty())
            sink.setElementText(item, g.nodeText);
        // Element i is node i (every node becomes one element, in node order), so the
        // edges carry over as they are; the sink refuses an index outside the graph.
        pairs.clear();
        for (const auto& [a, b] : g.edges) {
            pairs.push_back(static_cast<std::int32_t>(a));
            pairs.push_back(static_cast<std::int32_t>(b));
        }
        sink.setElementEdges(item, pairs.data(), g.edges.size());
    }
    for (const std::string& f : c.sourceFiles)
        sink.addSourceFile(f);
    for (const std::string& nt : c.notes)
        sink.note(nt);
    if (unlabelled > 0)
        sink.note(std::to_string(unlabelled) + " of " + std::to_string(c.graphs.size()) + " graphs have no class label");
    std::string what;
    if (adjacency) {
        what = "adjacency rows zero-padded to the largest graph (" + std::to_string(dim) + " nodes)";
    } else {
        what = std::to_string(L) + " one-hot node labels + " + std::to_string(A) + " node attributes + degree, degree/(n-1) + " +
               std::to_string(K) + " random-walk return probabilities = " + std::to_string(dim) + " features";
    }
    sink.note("graphs as sets of node vectors: " + what + "; test split = fold " + std::to_string(options.fold) +
              " of " + std::to_string(options.folds) + " (stratified, seed " + std::to_string(options.seed) + ")");
}

} // namespace setscope::data
