// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Options.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace setscope::data {

/// One undirected graph. Node ids are local, 0 .. nodeCount-1.
struct Graph {
    std::string name;       ///< SDF title line, or "graph K" (K = the TUDataset's 1-based graph id)
    int nodeCount = 0;
    /// Undirected edges (a, b) with a <= b, sorted and unique. a == b is a self-loop.
    std::vector<std::pair<int, int>> edges;
    /// Per node: an index into GraphCollection::nodeLabelNames; empty when the collection
    /// has no node labels.
    std::vector<std::int32_t> nodeLabels;
    /// nodeCount x GraphCollection::nodeAttributeNames.size(), row-major; empty when none.
    std::vector<float> nodeAttributes;
    /// Per node: what to show on hover ("n17", "C3"); empty when none.
    std::vector<std::string> nodeText;
    /// The graph's class as written in the file ("" = unlabelled).
    std::string label;
    /// SDF data items (name, value) in file order; empty for TUDataset graphs.
    std::vector<std::pair<std::string, std::string>> properties;
    /// 1-based number of the first line of this graph's record (SDF; 0 when unknown).
    std::uint64_t firstLine = 0;

    /// Adjacency row sums: a neighbour counts 1, a self-loop counts 1.
    std::vector<int> degrees() const;
};

/// A set of graphs read from one source, with the vocabularies their nodes index into.
struct GraphCollection {
    std::string name;
    std::vector<Graph> graphs;
    /// Node label values present, in one-hot order (numeric order for numbers, else
    /// alphabetical; SDF: element symbols).
    std::vector<std::string> nodeLabelNames;
    /// Names of the per-node attribute columns ("attr 1", ..., or "formal charge", ...).
    std::vector<std::string> nodeAttributeNames;
    std::vector<std::string> sourceFiles;
    /// Things the user should know (ignored files, self-loops, duplicate edges).
    std::vector<std::string> notes;
};

/// How a graph becomes a set of node vectors.
enum class GraphRepresentation {
    /// setscope's default. Node vector = [one-hot node label over the labels present (none
    /// without labels)] + [node attributes] + [degree, degree / (n - 1)] + [p_ii^(k),
    /// k = 1..K: random-walk return probabilities]. Dimension L + A + 2 + K.
    Features,
    /// The papers' (seed 001 §6.2.1): node i's vector is row i of the graph's 0/1 adjacency
    /// matrix, zero-padded to the largest node count in the collection.
    Adjacency,
};

/// Options of the graph loaders (see docs/DATASETS.md): declared by schema() and
/// sdfSchema(), which the tudataset and sdf loaders register, and read back by fromValues().
struct GraphOptions {
    GraphRepresentation representation = GraphRepresentation::Features;
    int randomWalkSteps = 4;   ///< K of the Features representation (0 = none)
    int folds = 10;            ///< cross-validation folds (2..1000)
    int fold = 0;              ///< the fold that becomes the test split, 0 .. folds-1
    std::uint64_t seed = 0;    ///< seeds the fold assignment
    std::string classProperty; ///< SDF: the data item that gives the class ("" = unlabelled)
    std::optional<double> threshold; ///< SDF: class = value >= threshold (else the value is the class)

    /// The tudataset loader's options: repr (features|adjacency), rw (K), folds, fold, seed,
    /// with the defaults above.
    static sdk::OptionSchema schema();
    /// The sdf loader's options: schema() and class, threshold (text: "" = none, else a number).
    static sdk::OptionSchema sdfSchema();
    /// From values resolved against schema() or sdfSchema(), checked together (validate()).
    /// Throws std::invalid_argument naming the option and value (threshold not a number,
    /// fold beyond folds, threshold without class).
    static GraphOptions fromValues(const sdk::OptionValues& values);
    /// "repr=adjacency,fold=3,..." resolved against sdfSchema() (util::resolveSpecOptions),
    /// then fromValues(). Throws std::invalid_argument naming the bad key or value.
    static GraphOptions parse(const std::string& spec);
    /// Throws std::invalid_argument when a value is out of range.
    void validate() const;
};

/// Random-walk return probabilities: out[i * K + (k-1)] = ((D^-1 A)^k)_ii for k = 1..K,
/// where A is the adjacency matrix (self-loops on the diagonal) and D its row sums. An
/// isolated node's walk cannot move: its return probabilities are defined as 0.
std::vector<double> randomWalkReturnProbabilities(const Graph& g, int steps);

/// Stratified K-fold assignment: the items of each class (kUnlabelled is a class of its
/// own) are shuffled with a seeded mt19937_64 and dealt to folds round-robin, continuing
/// where the previous class stopped, so each class is spread as evenly as possible (fold
/// counts differ by at most 1) and the fold sizes too. Deterministic for a given seed on
/// every platform. Returns the fold of each item.
std::vector<std::int32_t> stratifiedFolds(const std::vector<std::int32_t>& labels, int folds, std::uint64_t seed);

/// Writes `graphs` into `sink` as sets of node vectors (uniform weights 1/n), with label sets
/// "fine" (graph labels; names sorted numerically when all are numbers) and "cv-fold"
/// ("fold 0" .. "fold K-1"), split = test for options.fold, train otherwise. Element i of
/// graph g's item is node i; the graph's edges go to DatasetSink::setElementEdges (also for
/// a graph with no edges, so every item of the dataset says it is a graph).
void emitGraphs(const GraphCollection& graphs, const GraphOptions& options, sdk::DatasetSink& sink);

} // namespace setscope::data
