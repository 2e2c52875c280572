// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/Emd.h"
#include "core/ot/PointSet.h"

#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace setscope::augment {

/// Random numbers of every augmentation. Draws go through uniform01() and uniformIndex()
/// below, not std::uniform_*_distribution (whose algorithms differ between standard
/// libraries), so a seed gives the same augmentation everywhere.
using Rng = std::mt19937_64;

/// A uniform double in [0, 1): the top 53 bits of one draw.
inline double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

/// A uniform integer in [0, n), n > 0, by rejection (no modulo bias); usually one draw.
std::uint64_t uniformIndex(Rng& rng, std::uint64_t n);

enum class ChangeKind {
    Swapped, ///< PointSwap: the element's vector was replaced by a partner element's
    Dropped, ///< PointDrop: the element is not in the augmented set
    Mixed,   ///< PointMixup: (1 - λ) x_i + λ y_j, one output element per arc of the flow
};
const char* changeKindName(ChangeKind k);

/// What an augmentation did to one element of the original set x: the record a view shows
/// as "original word → substitute" (seed 001 Table 12).
struct Change {
    ChangeKind kind = ChangeKind::Swapped;
    std::int64_t element = -1;        ///< index of the element in x
    std::int64_t output = -1;         ///< its index in the augmented set; -1 when dropped
    std::int64_t partnerSet = -1;     ///< the partner as the caller numbers it (candidate index or
                                      ///< the index given with the partner); -1 for PointDrop
    std::int64_t partnerElement = -1; ///< index of the substitute in the partner; -1 for PointDrop
    /// f_ij of the optimal flow x → partner (EMD, seed 001 Eq. 1) between the two elements;
    /// 0 when the substitute was not chosen along the flow (ablation variants (1) and (3),
    /// PointDrop).
    double flow = 0.0;
};

/// An augmented set (owned) and the record of what changed.
struct Augmented {
    std::vector<float> points;  ///< n x d, row-major
    std::vector<float> weights; ///< n
    std::int64_t n = 0;
    int d = 0;
    /// The partner the set was augmented with (candidate index or the index given), -1 for
    /// PointDrop.
    std::int64_t partner = -1;
    /// EMD(x, partner) when it was computed (the EMD-nearest search or the flow), else NaN.
    double partnerEmd = std::numeric_limits<double>::quiet_NaN();
    /// One entry per changed element of x (PointMixup: per arc of the flow), ascending by
    /// element, then by partner element.
    std::vector<Change> changes;

    /// A view of the augmented set, valid while this object lives and is not modified.
    ot::PointSet view() const { return {points.data(), weights.data(), n, d}; }
};

/// The EMD-nearest candidate to x: index into `candidates` and its EMD (seed 001 Eq. 2,
/// exact, partial transport for unequal masses). `self` (-1 for none) is skipped: the index
/// of x itself when x is one of the candidates (a mini-batch). Ties go to the lowest index.
/// Throws ot::OtError for a bad set ("candidate 3: ..."), a dimension mismatch, or when
/// there is no candidate besides `self`. Runs on the calling thread, one EmdSolver for all.
struct Nearest {
    std::int64_t index = -1;
    double emd = 0.0;
};
Nearest nearestByEmd(const ot::PointSet& x, std::span<const ot::PointSet> candidates, std::int64_t self = -1,
                     ot::GroundDistance ground = ot::GroundDistance::Euclidean);

/// Throws ot::OtError "<what>: <name> must be in [0, 1] (got v)" unless 0 <= v <= 1 (NaN fails).
void checkProbability(double v, const char* what, const char* name);

/// ot::validate() with `what` ("PointSwap") before its message: "PointSwap: candidate 3 is empty".
void checkSet(const ot::PointSet& s, const std::string& name, const char* what);

/// Validates x and partner (ot::validate with "set x" / "partner set") and their dimensions;
/// `what` ("PointSwap") starts the message.
void checkPair(const ot::PointSet& x, const ot::PointSet& partner, const char* what);

/// Checks a flow handed to pointSwapWithFlow() / pointMixupWithFlow(): arcs ascending by
/// (i, j) without repeats, i in [0, x.n), j in [0, partner.n), amounts positive and finite.
/// Throws ot::OtError starting with `what` ("PointSwap: flow arc 3 ...").
void checkFlow(std::span<const ot::Flow> flow, const ot::PointSet& x, const ot::PointSet& partner, const char* what);

} // namespace setscope::augment
