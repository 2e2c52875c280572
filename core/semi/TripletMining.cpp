// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/semi/TripletMining.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace setscope::semi {

std::vector<Triplet> mineTriplets(const NeighbourhoodAffinities& affinities)
{
    std::vector<std::int64_t> all(static_cast<std::size_t>(affinities.graph.n));
    std::iota(all.begin(), all.end(), std::int64_t{0});
    return mineTriplets(affinities, all);
}

std::vector<Triplet> mineTriplets(const NeighbourhoodAffinities& affinities, const std::vector<std::int64_t>& anchors)
{
    const KnnGraph& g = affinities.graph;
    if (affinities.affinity.size() != g.neighbours.size())
        throw std::invalid_argument("triplet mining: " + std::to_string(affinities.affinity.size()) +
                                    " affinities for " + std::to_string(g.neighbours.size()) + " graph edges");
    const int h = g.k / 2;
    std::vector<Triplet> out;
    out.reserve(anchors.size() * static_cast<std::size_t>(h));
    std::vector<int> order(static_cast<std::size_t>(g.k));
    for (const std::int64_t a : anchors) {
        if (a < 0 || a >= g.n)
            throw std::invalid_argument("triplet mining: anchor " + std::to_string(a) + " outside 0.." +
                                        std::to_string(g.n - 1));
        std::iota(order.begin(), order.end(), 0);
        // Stable: equal affinities keep the kNN order (nearest first).
        std::stable_sort(order.begin(), order.end(), [&](int s, int t) { return affinities.at(a, s) > affinities.at(a, t); });
        for (int i = 0; i < h; ++i)
            out.push_back({a, g.neighbour(a, order[static_cast<std::size_t>(i)]),
                           g.neighbour(a, order[static_cast<std::size_t>(g.k - h + i)])});
    }
    return out;
}

} // namespace setscope::semi
