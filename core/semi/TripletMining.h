// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/semi/AffinityPropagation.h"

#include <cstdint>
#include <vector>

namespace setscope::semi {

/// One constraint of seed 004: the positive should end up closer to the anchor than the
/// negative. Indices are rows of whatever the affinities were computed on (partition rows
/// for mineTriplets(), dataset items after minePartition()).
struct Triplet {
    std::int64_t anchor = 0;
    std::int64_t positive = 0;
    std::int64_t negative = 0;
    friend bool operator==(const Triplet&, const Triplet&) = default;
};

/// The neighbourhood mining of seed 004 (Fig. 1b): for an anchor a, N_W(a) is N_k(a) sorted
/// by propagated affinity W(a, ·), highest first; with h = ⌊k/2⌋ the triplets are
///   (a, N_W(a)_1, N_W(a)_{k-h+1}), (a, N_W(a)_2, N_W(a)_{k-h+2}), ..., (a, N_W(a)_h, N_W(a)_k)
/// i.e. the i-th most similar neighbour with the i-th of the h least similar ones. For even k
/// this is exactly the paper's (z⁺_i, z⁻_{k/2+i}); for odd k the middle neighbour is left out.
/// Equal affinities keep the kNN order (nearer in feature space counts as more similar).
/// Every node is an anchor, in row order, its h triplets in i order: n * ⌊k/2⌋ triplets.
std::vector<Triplet> mineTriplets(const NeighbourhoodAffinities& affinities);

/// The same for the given anchors only (rows of the graph, in the given order).
/// Throws std::invalid_argument for an anchor outside 0..n-1.
std::vector<Triplet> mineTriplets(const NeighbourhoodAffinities& affinities, const std::vector<std::int64_t>& anchors);

} // namespace setscope::semi
