// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Registrar.h>

#include <vector>

namespace setscope::train {

/// The recipes of the papers' tables (seed 000, seed 001 §7), registered by the builtin
/// plugin. Torch-free: a recipe only names stages.
///   ours            WSSET (seed 001 Eq. 4-5), EMD pseudo-labels, no labels read
///   ours+ps|pd|pm   WSSET with the augmented anchor as second positive (Eq. 7) through
///                   PointSwap, PointDrop or PointMixup
///   sset            the unweighted loss (seed 000 Eq. 1)
///   approx-emd      regress embedding distances on EMD (seed 001 §7.1)
///   cont            SimCLR's NT-Xent between each set and its augmented view (Cont.)
///   exemplar        every instance its own class (Dosovitskiy et al.; the paper uses DeepSets)
///   tl, ce          supervised from scratch: triplet (semi-hard, α = 0.1) or cross-entropy
///   uniformity      weak labels (seed 003 §3.1): grouped CE on coarse labels + KL(p̄ ‖ U_C)
///                   (+ the entropy term, confidence = 1; docs/LOSSES.md)
///   locality-contrastive  weak labels (seed 003 §4): contrastive + α KL(P ‖ Q)
///   int             self-supervised pre-training on the target's train split, then supervised
///                   fine-tuning with ρ re-initialised (Ours+Int.); with --label-fraction the
///                   semi-supervised rows
///   ext             pre-training on an external dataset, then on the target, then fine-tuning
///                   (Ours+Ext.)
///   ssdml           seed 004's Algorithm 1: loss ssdml-angular on triplets of the sampler
///                   ssdml-triplets (re-mined from the current network), the labelled share of
///                   the train split (option labels-per-class) plus unlabelled items; NMI scored
///                   each epoch besides the standard metrics
std::vector<sdk::RecipeInfo> builtinRecipes();

} // namespace setscope::train
