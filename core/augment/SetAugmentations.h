// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// PointSwap, PointDrop and PointMixup as sdk::SetAugmentation (the registry's kind): options
// declared in a schema, the partner and its optimal flow taken from the step's
// sdk::BatchTransport instead of being solved again.
//
// Common to the three: augment() runs on the training thread; `seed` seeds an augment::Rng,
// so the same (batch, index, seed) gives the same set; batch.sets[index] is validated first
// (std::invalid_argument, an ot::OtError, "batch set 3: PointSwap: set x is empty"); an index
// outside the batch throws std::out_of_range. The returned set always has an element of
// positive weight (PointSwap keeps x's weights, PointMixup x's total weight, PointDrop keeps
// one element when it would drop them all). AugmentChange::partnerSet is a batch index.

#include "core/augment/PointDrop.h"
#include "core/augment/PointMixup.h"
#include "core/augment/PointSwap.h"

#include <setscope/sdk/Augmentation.h>
#include <setscope/sdk/Options.h>
#include <setscope/sdk/Registrar.h>

namespace setscope::augment {

/// The sdk view of an augmented set: Augmented::changes become sdk::AugmentChange records
/// (kind "swapped" / "dropped" / "mixed", see changeKindName()).
sdk::AugmentedSet toSdk(Augmented a);

/// A batch set as an ot::PointSet (same layout, not copied).
inline ot::PointSet toPointSet(const sdk::SetRef& s) { return {s.values, s.weights, s.count, s.dim}; }

/// PointSwap (seed 001 §4.2, Eq. 6) and its ablation variants (Table 11).
/// Options: omega (ω, 0.5), variant (0 = PointSwap, 1-3 = Table 11 rows (1)-(3)), pick
/// (proportional | largest: which j with f_ij > 0 replaces x_i).
/// Partner: variants 0 and 3 take transport->nearest(index); variants 1 and 2 draw a
/// uniformly random other set of the batch (the first draw of the seed's Rng). The flow of
/// variants 0 and 2 is transport->flows(index, partner), reused, not solved again.
/// A batch of one set has no partner: the set comes back unchanged (partner -1, no changes).
class PointSwapAugmentation final : public sdk::SetAugmentation {
public:
    static sdk::OptionSchema schema();
    /// `options` resolved against schema().
    explicit PointSwapAugmentation(const sdk::OptionValues& options);

    /// False for variant 1 only (random partner, uniform substitute: no EMD at all).
    bool needsTransport() const override;
    sdk::AugmentedSet augment(const sdk::AugmentationBatch& batch, std::int64_t index, std::uint64_t seed) override;

    const PointSwapOptions& options() const { return m_options; }
    int variant() const { return m_variant; }

private:
    PointSwapOptions m_options;
    int m_variant = 0;
};

/// PointDrop (seed 001 §6.3): drops each element with probability p (pointDrop()). When every
/// element of positive weight would be dropped, the one whose draw came closest to keeping it
/// stays (so the seed chooses it). Option: p (0.5, the paper's value for documents; it uses
/// 0.7 for graphs, Table 10). No transport.
class PointDropAugmentation final : public sdk::SetAugmentation {
public:
    static sdk::OptionSchema schema();
    explicit PointDropAugmentation(const sdk::OptionValues& options);

    bool needsTransport() const override { return false; }
    sdk::AugmentedSet augment(const sdk::AugmentationBatch& batch, std::int64_t index, std::uint64_t seed) override;

    const PointDropOptions& options() const { return m_options; }

private:
    PointDropOptions m_options;
};

/// PointMixup (seed 001 ref. [26], pointMixupWith()) with the EMD-nearest set of the batch,
/// along transport->flows(index, partner). Option: lambda (λ, 0.5). No randomness: the seed
/// is not used. A batch of one set comes back unchanged (partner -1, no changes).
class PointMixupAugmentation final : public sdk::SetAugmentation {
public:
    static sdk::OptionSchema schema();
    explicit PointMixupAugmentation(const sdk::OptionValues& options);

    bool needsTransport() const override { return true; }
    sdk::AugmentedSet augment(const sdk::AugmentationBatch& batch, std::int64_t index, std::uint64_t seed) override;

    const PointMixupOptions& options() const { return m_options; }

private:
    PointMixupOptions m_options;
};

/// The registry's entries "pointswap", "pointdrop" and "pointmixup".
sdk::AugmentationInfo pointSwapInfo();
sdk::AugmentationInfo pointDropInfo();
sdk::AugmentationInfo pointMixupInfo();

} // namespace setscope::augment
