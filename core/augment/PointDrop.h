// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/augment/Augmentation.h"

namespace setscope::augment {

/// The dropout probabilities seed 001 found best (§7.8.1, Table 10) and uses.
inline constexpr double kPointDropDocuments = 0.5;
inline constexpr double kPointDropGraphs = 0.7;

/// PointDrop (seed 001 §6.3: "randomly drops each element in each set with a certain
/// probability", after node dropping in graph augmentation).
struct PointDropOptions {
    /// Probability of dropping each element; in [0, 1]. 0.5 for documents, 0.7 for graphs.
    double p = kPointDropDocuments;
};

/// Drops each element of x independently with probability p: element i is dropped when its
/// uniform draw u_i < p (one draw per element, in order). Never empty: when every element of
/// positive weight would be dropped, the one with the largest u_i among them (the one that
/// came closest to staying) is kept. Kept elements keep their order; their weights are
/// rescaled to x's total weight (a normalised bag of words stays normalised). The record
/// lists the dropped elements (ChangeKind::Dropped, output -1). Throws ot::OtError for p
/// outside [0, 1] or a bad set.
Augmented pointDrop(const ot::PointSet& x, const PointDropOptions& options, Rng& rng);

} // namespace setscope::augment
