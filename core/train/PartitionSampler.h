// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Registrar.h>

namespace setscope::train {

/// The partition sampler of seed 004's deep baselines (Algorithm 1, "Extending the above
/// methods for end-to-end learning"), registered as "ssdml-partition". Torch-free. It uses the
/// refresh capability of sdk::BatchSampler and, for the graph-based baselines, the core
/// capability train::PairAffinitySampler. Every `partition-epochs` epochs it
///   1. draws a partition X_L ∪ X_U^(p): every labelled pool item plus `partition-size`
///      unlabelled ones (semi::samplePartition, seeded by the stage seed and the epoch);
///   2. unless `affinity` is "none" (SERAPH), embeds the partition with the current network,
///      l2-normalises it, builds the kNN graph (`k`) and weighs its edges:
///        - binary:     W_ij = 1 on the symmetrised kNN graph (j ∈ N_k(i) or i ∈ N_k(j));
///        - heat:       W_ij = exp(-‖z_i - z_j‖² / σ²), σ² the mean squared distance over the
///                      graph's edges (LRML);
///        - density:    W_ij = exp(-‖z_i - z_j‖² / (σ_i σ_j)), σ_i the distance of z_i to its
///                      k-th neighbour: the kernel width follows the density around each
///                      example (ISDML, our reading);
///        - propagated: W_ij of semi::propagate (affinity propagation of the labelled pairs,
///                      γ = `gamma`), on the graph's edges (APLLR, APIT).
/// Each epoch then shuffles the partition's labelled and unlabelled rows (seeded by the epoch)
/// and cuts batches of `batch-size` rows: `labelled-per-batch` labelled rows (cycling through
/// the shuffled labelled rows, so every batch has labelled pairs even with 100 labels in
/// 9 100 rows) and the rest unlabelled rows, each unlabelled row once per epoch. The batches
/// per epoch are fixed from the pool's counts. state() holds the partition and its edges, so
/// a run resumed between two refreshes continues on them.
sdk::SamplerInfo ssdmlPartitionSamplerInfo();

} // namespace setscope::train
