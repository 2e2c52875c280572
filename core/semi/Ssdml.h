// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/semi/AffinityPropagation.h"
#include "core/semi/TripletMining.h"

#include <cstdint>
#include <random>
#include <vector>

/// The partition step of seed 004's method (Algorithm 1 with M replaced by L), Torch-free.
///
/// How Algorithm 1 alternates (what the trainer does with these blocks; not implemented here):
///   initialise θ_z (the network) and L (d x l, orthogonal: losses::initialOrthogonal)
///   for each partition p = 1..P:
///     items  = samplePartition(labels, N_p, rng)          // all labelled + N_p unlabelled
///     z      = the network's features of `items` (the l2-normalised layer just before L)
///     mined  = minePartition(z, labels of items, items)   // kNN graph, propagation, triplets
///     for partition-epochs epochs over mined.triplets (mini-batches of T_b triplets, seed 004: 100):
///       step 3: fix θ_z, solve L on the batch: AngularLoss's conjugate gradient on the Stiefel
///               manifold (10 iterations, as the paper's Manopt CGD; flat CG for "w/o orth")
///       step 4: fix L, update θ_z by SGD through the angular loss (seed 004 Eq. 3)
/// The paper runs 10 epochs per partition of N_p = 9 000 unlabelled items (MNIST, CIFAR-10),
/// at most 50 epochs, and keeps the best model on a 15 % validation split; docs/SSDML.md lists
/// where setscope differs.
namespace setscope::semi {

/// Dataset items of one partition X_L ∪ X_U^(p): every labelled item (label >= 0), in
/// dataset order, followed by `unlabelledCount` unlabelled items (label -1) drawn without
/// replacement (all of them when there are fewer), in dataset order. Deterministic in `rng`.
/// Throws std::invalid_argument for unlabelledCount < 0.
std::vector<std::int64_t> samplePartition(const std::vector<std::int32_t>& labels, std::int64_t unlabelledCount,
                                          std::mt19937_64& rng);

/// What one partition gives the trainer.
struct PartitionTriplets {
    std::vector<std::int64_t> items;       ///< the partition's dataset items, row r of the features = items[r]
    NeighbourhoodAffinities affinities;    ///< on partition rows (not dataset items)
    std::vector<Triplet> triplets;         ///< dataset items, every partition row an anchor
};

/// Runs propagation and mining on one partition: `features` (rows = items.size(), the
/// network's current embeddings of `items`, float, not owned), `labels` their labels (-1 =
/// unlabelled). On the calling thread (OpenMP inside); `control` and `sink` as in propagate().
/// Throws std::invalid_argument as propagateAffinities() does, and when items.size() does
/// not match the feature rows.
PartitionTriplets minePartition(eval::MatrixView features, const std::vector<std::int32_t>& labels,
                                const std::vector<std::int64_t>& items, const PropagationOptions& options = {},
                                job::JobControl* control = nullptr, job::ProgressSink* sink = nullptr);

} // namespace setscope::semi
