// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace setscope::layout {

/// Bounds of layoutGraph(): the work is O(n^2) per iteration and O(n^3) once (the classical
/// MDS start), so the node count is capped.
struct GraphLayoutOptions {
    /// Nodes laid out: nodes maxNodes.. and their edges are left out.
    std::size_t maxNodes = 500;
    /// SMACOF iterations per connected component, at most.
    int maxIterations = 300;
    /// Stop when an iteration lowers the stress by less than this fraction. Small on purpose:
    /// SMACOF can crawl across a plateau near a saddle: a 5-leaf star from its classical-MDS
    /// start lowers the stress by less than 1e-10 of it in an iteration around iteration 50,
    /// then drops to the symmetric optimum (stress 1.086 -> 0.676) and settles at ~140; a
    /// test of 1e-10 would stop on the plateau.
    double relativeTolerance = 1e-12;
};

/// A 2-D drawing of a small undirected graph, in units of graph distance (an edge whose
/// drawn length matches its graph distance is 1 long).
struct GraphLayout {
    /// x0, y0, x1, y1, ...: node i at (xy[2i], xy[2i+1]); min(nodeCount, maxNodes) nodes.
    std::vector<double> xy;
    /// The start of the stress majorization (classical MDS of each component), placed the
    /// same way; what `initialStress` is of.
    std::vector<double> initialXy;
    /// Weighted stress (see layoutGraph) of `initialXy` and of `xy`.
    double initialStress = 0.0;
    double stress = 0.0;
    /// SMACOF iterations, summed over the components.
    int iterations = 0;
    /// Nodes left out by GraphLayoutOptions::maxNodes.
    std::size_t droppedNodes = 0;

    std::size_t nodeCount() const { return xy.size() / 2; }
};

/// Lays out the graph of `nodeCount` nodes and the undirected edges `pairs` (a0, b0, a1, b1,
/// ...; node indices; self-loops and repeated edges are ignored, indices outside the laid-out
/// nodes are skipped) by stress majorization (SMACOF, Gansner, Koren & North 2004): each
/// connected component minimises sum_{i<j} w_ij (|x_i - x_j| - d_ij)^2 with d_ij the
/// shortest-path distance in edges and w_ij = d_ij^-2, by Guttman transforms from the
/// classical MDS of the same distances (deterministic: no random start). The components
/// are then placed side by side, largest first, left to right, one unit apart, centred on
/// y = 0. Qt-free; deterministic for the same input.
GraphLayout layoutGraph(std::size_t nodeCount, std::span<const std::int32_t> pairs,
                        const GraphLayoutOptions& options = {});

} // namespace setscope::layout
