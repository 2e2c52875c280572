// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/augment/Augmentation.h"
#include "core/ot/Emd.h"

namespace setscope::augment {

/// How the partner x^p of x is chosen (seed 001 Table 11, column "Nearest EMD").
enum class PartnerChoice {
    NearestEmd, ///< x's EMD-nearest candidate (PointSwap, variant (3))
    Random,     ///< a uniformly random candidate other than x (variants (1), (2))
};

/// How the substitute of a swapped element is chosen (Table 11, column "Optimal assignment").
enum class SubstituteChoice {
    Assignment, ///< an element j of the partner with f_ij > 0 in the optimal flow (PointSwap, variant (2))
    Uniform,    ///< a uniformly random element of the partner, ignoring the flow (variants (1), (3))
};

/// Which of several elements with positive flow replaces x_i. Eq. 6 only asks for "some
/// word vector x^p_j whose assignment flow x_i → x^p_j is nonzero" (seed 001 §4.2).
enum class FlowPick {
    Proportional, ///< j drawn with probability f_ij / Σ_j f_ij (default: every j with flow can occur, as its share of x_i's mass)
    Largest,      ///< the j with the largest f_ij (ties: lowest j)
};

/// PointSwap (seed 001 §4.2, Eq. 6) and the ablation variants (1)-(3) of §7.8.2 / Table 11.
struct PointSwapOptions {
    /// ω: each element is swapped when its uniform draw u_i < ω (Eq. 6). The paper's best
    /// and default value is 0.5 (Table 10). Must be in [0, 1].
    double omega = 0.5;
    PartnerChoice partner = PartnerChoice::NearestEmd;
    SubstituteChoice substitute = SubstituteChoice::Assignment;
    FlowPick pick = FlowPick::Proportional;
    /// Ground distance of the EMD (partner search and flow); WMD's Euclidean by default.
    ot::GroundDistance ground = ot::GroundDistance::Euclidean;

    /// The paper's variant: 0 = PointSwap itself, 1 = random partner, uniform substitute;
    /// 2 = random partner, substitute along the flow; 3 = EMD-nearest partner, uniform
    /// substitute. Other fields keep their values. Throws ot::OtError for another number.
    static PointSwapOptions variant(int v, double omega = 0.5);
};

/// PointSwap of x with a given partner (index `partnerIndex` in the caller's numbering, copied
/// into the record; options.partner is not used). Every element i of x draws u_i; when
/// u_i < ω it is replaced by an element j of the partner: with SubstituteChoice::Assignment,
/// one with f_ij > 0 in the exact optimal flow x → partner (ot::emd), chosen by options.pick;
/// an element without outgoing flow (zero weight, or mass left unmoved when x is heavier
/// than the partner) stays. With SubstituteChoice::Uniform, a uniformly random element of
/// positive weight of the partner.
///
/// Weights: a swapped element keeps x_i's weight (Eq. 6 replaces the vector only), so the
/// augmented set has x's size and weights; two elements swapped to the same partner element
/// stay two elements. Draws: one u_i per element in order, each followed, for an element that is
/// swapped, by one draw for its substitute (none with FlowPick::Largest). Throws ot::OtError for an
/// ω outside [0, 1], a bad set or a dimension mismatch, naming the set.
Augmented pointSwapWith(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                        const PointSwapOptions& options, Rng& rng);

/// PointSwap of x with a given partner along a given optimal flow x → partner (`flow`: the
/// non-zero arcs of ot::emd(x, partner) with flows, ascending by i then j; e.g. the one the
/// training step's sdk::BatchTransport already solved), so the pair is not solved again.
/// Otherwise exactly pointSwapWith(): same draws, same result for the same flow. With
/// SubstituteChoice::Uniform the flow is not used (and may be empty). Augmented::partnerEmd
/// is NaN (the caller knows the EMD). Throws ot::OtError as pointSwapWith() does, and for a
/// flow that does not fit the sets (an index out of range, an amount that is not positive
/// and finite, arcs not ascending by (i, j)).
Augmented pointSwapWithFlow(const ot::PointSet& x, const ot::PointSet& partner, std::int64_t partnerIndex,
                            std::span<const ot::Flow> flow, const PointSwapOptions& options, Rng& rng);

/// PointSwap of x with its partner among `candidates` (a mini-batch or the dataset),
/// chosen by options.partner: the EMD-nearest (nearestByEmd(), no draw) or a uniformly random
/// candidate (one draw). `self` is x's index among the candidates, -1 when x is not one of
/// them. Result::partner is the candidate index.
Augmented pointSwap(const ot::PointSet& x, std::span<const ot::PointSet> candidates, std::int64_t self,
                    const PointSwapOptions& options, Rng& rng);

} // namespace setscope::augment
