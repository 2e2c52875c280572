// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Registrar.h>

namespace setscope::train {

/// The triplet sampler of seed 004 (Algorithm 1's partition loop), registered as
/// "ssdml-triplets". Torch-free. It uses the optional refresh capability of sdk::BatchSampler:
/// every `partition-epochs` epochs the trainer hands it the current network, and it
///   1. draws a partition: every labelled pool item plus `partition-size` unlabelled ones
///      (semi::samplePartition, seeded by the stage seed and the epoch);
///   2. embeds the partition (the trainer's EmbedItems: eval mode, no gradient);
///   3. mines triplets (semi::minePartition: kNN graph with `k` neighbours, affinity
///      propagation with `gamma`, every row an anchor, ⌊k/2⌋ triplets each).
/// Each epoch then visits the mined triplets in a seeded order, `batch-triplets` triplets per
/// batch, a batch laid out as (a_1, p_1, n_1, a_2, ...): the layout losses::AngularLoss reads.
/// The batches per epoch are fixed from the pool (rows x ⌊k/2⌋ triplets); should a partition
/// give fewer triplets, the epoch wraps around them. state() holds the mined triplets, so a
/// run resumed between two refreshes continues on them.
sdk::SamplerInfo ssdmlTripletSamplerInfo();

} // namespace setscope::train
