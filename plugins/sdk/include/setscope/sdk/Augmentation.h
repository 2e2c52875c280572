// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Set augmentations as a registry kind: PointSwap, PointDrop, PointMixup and plugins'.
// They run on the sets of a mini-batch before collation. Torch-free.

#include <setscope/sdk/Options.h>
#include <setscope/sdk/Sets.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace setscope::sdk {

/// What an augmentation did to one element of the original set (for views such as seed 001
/// Table 12: "original word -> substitute").
struct AugmentChange {
    std::string kind;                 ///< "swapped", "dropped", "mixed"
    std::int64_t element = -1;        ///< index in the original set
    std::int64_t output = -1;         ///< index in the augmented set; -1 when dropped
    std::int64_t partnerSet = -1;     ///< batch index of the partner set; -1 when none
    std::int64_t partnerElement = -1; ///< element of the partner; -1 when none
    double flow = 0.0;                ///< f_ij of the optimal flow, 0 when not chosen along it
};

struct AugmentedSet {
    OwnedSet set;
    std::int64_t partner = -1; ///< batch index of the partner set, -1 when none
    std::vector<AugmentChange> changes;
};

/// What an augmentation sees of the batch.
struct AugmentationBatch {
    std::span<const SetRef> sets;
    /// Non-null when the augmentation's needsTransport() is true.
    BatchTransport* transport = nullptr;
};

/// One augmentation, built once per run from its options. augment() is called on the
/// training thread, once per set of each batch, with a seed derived from the run's seed,
/// the step and the set's position, so a run is reproducible.
class SetAugmentation {
public:
    virtual ~SetAugmentation() = default;
    /// True when augment() uses batch.transport (EMD-nearest partner, flows).
    virtual bool needsTransport() const = 0;
    /// The augmented version of batch.sets[index]. Must return a set with at least one
    /// element of positive weight. Throws std::invalid_argument for a bad set.
    virtual AugmentedSet augment(const AugmentationBatch& batch, std::int64_t index, std::uint64_t seed) = 0;
};

struct AugmentationSpec {
    OptionValues options; ///< resolved against the augmentation's schema
};

} // namespace setscope::sdk
