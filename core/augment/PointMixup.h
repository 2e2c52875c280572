// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/augment/Augmentation.h"
#include "core/ot/Emd.h"

namespace setscope::augment {

/// PointMixup (Chen et al., ECCV 2020, seed 001 ref. [26]): interpolation along the optimal
/// assignment between x and its partner.
struct PointMixupOptions {
    /// λ: 0 gives x, 1 gives the partner; the mix ratio seed 001 uses is 0.5 (§7.8.1). In [0, 1].
    double lambda = 0.5;
    ot::GroundDistance ground = ot::GroundDistance::Euclidean;
};

/// PointMixup of x with a given partner. PointMixup itself mixes two clouds of equal size
/// along their optimal bijection φ: x'_i = (1 - λ) x_i + λ y_φ(i). For sets of any sizes and
/// weights this uses the exact optimal flow f (ot::emd) and interpolates along it (the
/// displacement interpolation of the transport plan): every arc with f_ij > 0 becomes one
/// element (1 - λ) x_i + λ y_j of weight f_ij. When the sets have equal size and uniform
/// weights the flow is a bijection and this is PointMixup exactly. When x is heavier than the
/// partner, the mass of x_i the flow leaves unmoved stays at x_i as an unchanged element
/// (below 1e-6 of x's total it is rounding of float weights and is dropped); the weights are
/// then rescaled to x's total weight. Output order: by element of x, its arcs by ascending j,
/// then its unmoved part; elements of zero weight carry no mass and are left out. The record
/// has one ChangeKind::Mixed entry per arc. No randomness.
/// Throws ot::OtError for λ outside [0, 1], a bad set or a dimension mismatch.
Augmented pointMixupWith(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                         const PointMixupOptions& options = {});

/// pointMixupWith() along a given optimal flow x → partner (`flow`: the non-zero arcs of
/// ot::emd(x, partner) with flows, ascending by i then j; e.g. the one the training step's
/// sdk::BatchTransport already solved), so the pair is not solved again. Augmented::partnerEmd
/// is NaN. Throws ot::OtError as pointMixupWith() does, and for a flow that does not fit the
/// sets (an index out of range, an amount that is not positive and finite, arcs not
/// ascending by (i, j)).
Augmented pointMixupWithFlow(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                             std::span<const ot::Flow> flow, const PointMixupOptions& options = {});

/// The same with x's EMD-nearest candidate as the partner (Table 11: "Nearest EMD" and
/// "Optimal assignment"); `self` as in nearestByEmd().
Augmented pointMixup(const ot::PointSet& x, std::span<const ot::PointSet> candidates, std::int64_t self,
                     const PointMixupOptions& options = {});

} // namespace setscope::augment
