// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/graph/TuDataset.h"

#include "core/data/graph/TextLines.h"
#include "core/util/CheckedMath.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

namespace fs = std::filesystem;

namespace setscope::data {

using sdk::InputError;

namespace {

constexpr std::string_view kEdgesSuffix = "_A.txt";

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Layout {
    fs::path dir;
    std::string prefix; // "MUTAG" for MUTAG_A.txt
    fs::path file(const std::string& what) const { return dir / (prefix + "_" + what + ".txt"); }
};

std::vector<fs::path> edgeFilesIn(const fs::path& dir)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (e.is_regular_file(ec) && endsWith(name, kEdgesSuffix) && name.size() > kEdgesSuffix.size())
            out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

Layout layoutOf(const std::string& path)
{
    std::error_code ec;
    fs::path edges;
    if (fs::is_directory(path, ec)) {
        const std::vector<fs::path> found = edgeFilesIn(path);
        if (found.empty())
            throw InputError(path, "", "no TUDataset edge file (DS_A.txt) in this folder");
        if (found.size() > 1) {
            std::string names;
            for (const auto& f : found)
                names += (names.empty() ? "" : ", ") + f.filename().string();
            throw InputError(path, "", "several TUDataset edge files in this folder (" + names + "); open one of them");
        }
        edges = found.front();
    } else {
        edges = path;
        if (!endsWith(edges.filename().string(), kEdgesSuffix))
            throw InputError(path, "", "a TUDataset is opened by its folder or its DS_A.txt file");
    }
    const std::string name = edges.filename().string();
    return {edges.parent_path(), name.substr(0, name.size() - kEdgesSuffix.size())};
}

/// The non-blank lines of a file with their line numbers. A blank line is only allowed at
/// the end: inside the file it would shift every following node or graph by one.
struct Rows {
    std::vector<std::string_view> text;
    std::vector<std::uint64_t> line;
};

Rows rowsOf(TextLines& f)
{
    Rows r;
    std::string_view s;
    std::uint64_t blank = 0;
    while (f.next(s)) {
        s = trimmed(s);
        if (s.empty()) {
            if (!blank)
                blank = f.lineNumber();
            continue;
        }
        if (blank)
            f.failAt(blank, "empty line inside the file (each line describes one node, edge or graph)");
        r.text.push_back(s);
        r.line.push_back(f.lineNumber());
    }
    return r;
}

/// Checks that a per-node or per-graph file has exactly `expected` rows.
void requireRows(const TextLines& f, const Rows& r, std::size_t expected, const std::string& what, const std::string& source)
{
    if (r.text.size() < expected)
        f.failAt(r.line.empty() ? 1 : r.line.back() + 1,
                 "truncated: " + std::to_string(r.text.size()) + " lines, expected " + std::to_string(expected) + " (one per " +
                     what + " in " + source + ")");
    if (r.text.size() > expected)
        f.failAt(r.line[expected], "more lines than " + what + "s: expected " + std::to_string(expected) + " (one per " +
                                       what + " in " + source + "), found " + std::to_string(r.text.size()));
}

} // namespace

bool looksLikeTuDataset(const std::string& path)
{
    std::error_code ec;
    fs::path edges;
    if (fs::is_directory(path, ec)) {
        const std::vector<fs::path> found = edgeFilesIn(path);
        if (found.size() != 1)
            return false;
        edges = found.front();
    } else {
        edges = path;
    }
    const std::string name = edges.filename().string();
    if (!endsWith(name, kEdgesSuffix) || name.size() == kEdgesSuffix.size())
        return false;
    const std::string prefix = name.substr(0, name.size() - kEdgesSuffix.size());
    return fs::is_regular_file(edges.parent_path() / (prefix + "_graph_indicator.txt"), ec);
}

GraphCollection readTuDataset(const std::string& path)
{
    const Layout lay = layoutOf(path);
    GraphCollection c;
    c.name = lay.prefix;
    std::error_code ec;

    // Graph indicator: line i = 1-based graph id of node i. Defines N and G.
    const fs::path indPath = lay.file("graph_indicator");
    if (!fs::is_regular_file(indPath, ec))
        throw InputError(indPath.string(), "", "missing: a TUDataset needs " + indPath.filename().string() +
                                                   " beside " + lay.file("A").filename().string());
    TextLines ind(indPath.string());
    const Rows indRows = rowsOf(ind);
    const std::string indName = indPath.filename().string();
    if (indRows.text.empty())
        throw InputError(indPath.string(), "", "empty: no nodes");
    const std::size_t N = indRows.text.size();
    // Node and graph numbers are held as 32-bit ints (graphOf, localId, Graph::nodeCount).
    if (!util::checkedCast<std::int32_t>(N))
        throw InputError(indPath.string(), "",
                         std::to_string(N) + " nodes, more than the " +
                             std::to_string(std::numeric_limits<std::int32_t>::max()) + " a dataset can hold");
    std::vector<std::int32_t> graphOf(N);
    std::vector<std::int32_t> localId(N);
    std::vector<int> nodesIn;
    for (std::size_t i = 0; i < N; ++i) {
        long long g = 0;
        if (!parseInteger(indRows.text[i], g))
            ind.failAt(indRows.line[i], "'" + std::string(indRows.text[i]) + "' is not a graph id (a positive integer)");
        if (g < 1)
            ind.failAt(indRows.line[i], "graph id " + std::to_string(g) + " out of range (graph ids start at 1)");
        // Graphs 1..G must each have a node, so G <= N: a larger id is refused here, before
        // room for that many graphs is allocated.
        if (static_cast<unsigned long long>(g) > N)
            ind.failAt(indRows.line[i], "graph id " + std::to_string(g) + " out of range: the file lists " +
                                            std::to_string(N) + " nodes, so graph ids are at most " + std::to_string(N) +
                                            " (every graph from 1 to the largest id needs a node)");
        const std::size_t gi = static_cast<std::size_t>(g - 1);
        if (gi >= nodesIn.size())
            nodesIn.resize(gi + 1, 0);
        graphOf[i] = static_cast<std::int32_t>(gi);
        localId[i] = nodesIn[gi]++;
    }
    const std::size_t G = nodesIn.size();
    for (std::size_t gi = 0; gi < G; ++gi)
        if (nodesIn[gi] == 0)
            throw InputError(indPath.string(), "",
                             "graph " + std::to_string(gi + 1) + " has no nodes (graph ids 1.." + std::to_string(G) +
                                 " must all appear; an empty graph cannot be a set)");
    c.graphs.resize(G);
    for (std::size_t gi = 0; gi < G; ++gi) {
        c.graphs[gi].name = "graph " + std::to_string(gi + 1);
        c.graphs[gi].nodeCount = nodesIn[gi];
    }
    c.sourceFiles.push_back(indPath.string());

    // Edges: "i, j" with 1-based global node ids; usually each edge is listed both ways.
    const fs::path aPath = lay.file("A");
    {
        TextLines af(aPath.string());
        const Rows ar = rowsOf(af);
        std::vector<std::vector<std::pair<int, int>>> directed(G);
        for (std::size_t r = 0; r < ar.text.size(); ++r) {
            const std::string_view s = ar.text[r];
            std::vector<std::string_view> f = splitFields(s, ',');
            if (f.size() == 1)
                f = splitFields(s, ' ');
            if (f.size() != 2)
                af.failAt(ar.line[r], "expected 'i, j' (two node ids), found '" + std::string(s) + "'");
            long long ij[2] = {0, 0};
            for (int k = 0; k < 2; ++k) {
                if (f[static_cast<std::size_t>(k)].empty())
                    af.failAt(ar.line[r], "missing node id in '" + std::string(s) + "' (truncated line?)");
                if (!parseInteger(f[static_cast<std::size_t>(k)], ij[k]))
                    af.failAt(ar.line[r], "'" + std::string(f[static_cast<std::size_t>(k)]) + "' is not a node id");
                if (ij[k] < 1 || ij[k] > static_cast<long long>(N))
                    af.failAt(ar.line[r], "node id " + std::to_string(ij[k]) + " out of range: node ids are 1.." +
                                              std::to_string(N) + " (the lines of " + indName + ")");
            }
            const std::size_t u = static_cast<std::size_t>(ij[0] - 1), v = static_cast<std::size_t>(ij[1] - 1);
            if (graphOf[u] != graphOf[v])
                af.failAt(ar.line[r], "edge between node " + std::to_string(ij[0]) + " (graph " +
                                          std::to_string(graphOf[u] + 1) + ") and node " + std::to_string(ij[1]) + " (graph " +
                                          std::to_string(graphOf[v] + 1) + "): an edge must join nodes of one graph");
            directed[static_cast<std::size_t>(graphOf[u])].emplace_back(localId[u], localId[v]);
        }
        std::size_t repeats = 0, loops = 0, oneWay = 0;
        for (std::size_t gi = 0; gi < G; ++gi) {
            auto& d = directed[gi];
            std::sort(d.begin(), d.end());
            const std::size_t before = d.size();
            d.erase(std::unique(d.begin(), d.end()), d.end());
            repeats += before - d.size();
            auto& und = c.graphs[gi].edges;
            und.reserve(d.size() / 2 + 1);
            for (const auto& [a, b] : d) {
                if (a == b)
                    ++loops;
                else if (!std::binary_search(d.begin(), d.end(), std::make_pair(b, a)))
                    ++oneWay;
                und.emplace_back(std::min(a, b), std::max(a, b));
            }
            std::sort(und.begin(), und.end());
            und.erase(std::unique(und.begin(), und.end()), und.end());
        }
        const std::string aName = aPath.filename().string();
        if (repeats)
            c.notes.push_back(aName + ": " + std::to_string(repeats) + " lines repeat an edge already listed (read once)");
        if (loops)
            c.notes.push_back(aName + ": " + std::to_string(loops) +
                              " self-loops kept (a loop adds 1 to its node's degree and sets the diagonal of the adjacency row)");
        if (oneWay)
            c.notes.push_back(aName + ": " + std::to_string(oneWay) +
                              " edges are listed in one direction only; every edge is read as undirected");
        c.sourceFiles.push_back(aPath.string());
    }

    // Graph labels: one per graph.
    const fs::path glPath = lay.file("graph_labels");
    if (fs::is_regular_file(glPath, ec)) {
        TextLines gl(glPath.string());
        const Rows r = rowsOf(gl);
        requireRows(gl, r, G, "graph", indName);
        for (std::size_t gi = 0; gi < G; ++gi) {
            double v = 0;
            if (!parseReal(r.text[gi], v))
                gl.failAt(r.line[gi], "'" + std::string(r.text[gi]) + "' is not a graph label (a number)");
            std::string_view t = r.text[gi];
            if (!t.empty() && t[0] == '+')
                t.remove_prefix(1);
            c.graphs[gi].label = std::string(t);
        }
        c.sourceFiles.push_back(glPath.string());
    } else {
        c.notes.push_back(glPath.filename().string() + " not found: graphs are unlabelled");
    }

    // Node labels: one line per node, usually one integer (several comma-separated values
    // are read as one combined label).
    const fs::path nlPath = lay.file("node_labels");
    if (fs::is_regular_file(nlPath, ec)) {
        TextLines nl(nlPath.string());
        const Rows r = rowsOf(nl);
        requireRows(nl, r, N, "node", indName);
        std::vector<std::vector<long long>> keys(N);
        for (std::size_t i = 0; i < N; ++i) {
            for (std::string_view f : splitFields(r.text[i], ',')) {
                long long v = 0;
                if (!parseInteger(f, v))
                    nl.failAt(r.line[i], "'" + std::string(f) + "' is not a node label (an integer)");
                keys[i].push_back(v);
            }
        }
        std::vector<std::vector<long long>> uniq = keys;
        std::sort(uniq.begin(), uniq.end());
        uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
        for (const auto& k : uniq) {
            std::string name;
            for (long long v : k)
                name += (name.empty() ? "" : ",") + std::to_string(v);
            c.nodeLabelNames.push_back(name);
        }
        for (Graph& g : c.graphs)
            g.nodeLabels.resize(static_cast<std::size_t>(g.nodeCount));
        for (std::size_t i = 0; i < N; ++i) {
            const auto id = std::lower_bound(uniq.begin(), uniq.end(), keys[i]) - uniq.begin();
            c.graphs[static_cast<std::size_t>(graphOf[i])].nodeLabels[static_cast<std::size_t>(localId[i])] =
                static_cast<std::int32_t>(id);
        }
        c.sourceFiles.push_back(nlPath.string());
    }

    // Node attributes: one line of comma-separated numbers per node.
    const fs::path naPath = lay.file("node_attributes");
    if (fs::is_regular_file(naPath, ec)) {
        TextLines na(naPath.string());
        const Rows r = rowsOf(na);
        requireRows(na, r, N, "node", indName);
        // The first line sets the attribute count A; every line must have as many values
        // before N x A floats are allocated (a first line of 10^5 commas over 10^5 nodes
        // asked for 40 GB before the second line was looked at).
        const std::size_t A = static_cast<std::size_t>(std::count(r.text[0].begin(), r.text[0].end(), ',')) + 1;
        for (std::size_t i = 1; i < N; ++i) {
            const std::size_t values = static_cast<std::size_t>(std::count(r.text[i].begin(), r.text[i].end(), ',')) + 1;
            if (values != A)
                na.failAt(r.line[i], std::to_string(values) + " values, but the first line has " + std::to_string(A));
        }
        for (std::size_t a = 0; a < A; ++a)
            c.nodeAttributeNames.push_back("attribute " + std::to_string(a + 1));
        for (Graph& g : c.graphs)
            g.nodeAttributes.assign(static_cast<std::size_t>(g.nodeCount) * A, 0.0f);
        for (std::size_t i = 0; i < N; ++i) {
            const std::vector<std::string_view> f = splitFields(r.text[i], ',');
            Graph& g = c.graphs[static_cast<std::size_t>(graphOf[i])];
            for (std::size_t a = 0; a < A; ++a) {
                double v = 0;
                if (!parseReal(f[a], v))
                    na.failAt(r.line[i], "'" + std::string(f[a]) + "' is not a number (node attributes are comma-separated numbers)");
                g.nodeAttributes[static_cast<std::size_t>(localId[i]) * A + a] = static_cast<float>(v);
            }
        }
        c.sourceFiles.push_back(naPath.string());
    }

    for (const char* ignored : {"edge_labels", "edge_attributes", "graph_attributes"}) {
        const fs::path p = lay.file(ignored);
        if (fs::is_regular_file(p, ec))
            c.notes.push_back(p.filename().string() + " is not used (setscope reads nodes, edges, node labels and attributes, "
                                                      "graph labels)");
    }

    // Hover text: the node's global id as in the files, and its label.
    for (std::size_t i = 0; i < N; ++i) {
        Graph& g = c.graphs[static_cast<std::size_t>(graphOf[i])];
        if (g.nodeText.empty())
            g.nodeText.resize(static_cast<std::size_t>(g.nodeCount));
        std::string t = "node " + std::to_string(i + 1);
        if (!g.nodeLabels.empty())
            t += " (label " + c.nodeLabelNames[static_cast<std::size_t>(g.nodeLabels[static_cast<std::size_t>(localId[i])])] + ")";
        g.nodeText[static_cast<std::size_t>(localId[i])] = std::move(t);
    }
    return c;
}

void loadTuDataset(const std::string& path, sdk::DatasetSink& sink, const GraphOptions& options)
{
    emitGraphs(readTuDataset(path), options, sink);
}

sdk::LoaderInfo tuDatasetLoaderInfo()
{
    return {"tudataset",
            "TUDataset graphs (folder or DS_A.txt): sets of node vectors (label one-hot, attributes, degree, "
            "random-walk return probabilities), 10 stratified CV folds, fold 0 as test",
            {".txt", ""},
            GraphOptions::schema(),
            [](const std::string& p) { return looksLikeTuDataset(p); },
            [](const std::string& p, const sdk::OptionValues& o, sdk::DatasetSink& s, sdk::LoadContext&) {
                loadTuDataset(p, s, GraphOptions::fromValues(o));
            }};
}

} // namespace setscope::data
