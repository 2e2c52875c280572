// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/augment/Augmentation.h"
#include "core/augment/PointDrop.h"
#include "core/augment/PointSwap.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
}

namespace setscope::workspace {

class Vocabulary;

/// One augmentation of one item and what it changed, as seed 001 Table 12 shows it
/// (original → substitute with the flow): what `setscope-cli augment` prints and the GUI's
/// PointSwap view shows.
enum class AugmentMethod { PointSwap, PointDrop, PointMixup };
const char* augmentMethodName(AugmentMethod m); ///< "pointswap", "pointdrop", "pointmixup"
/// Throws std::invalid_argument naming the accepted values.
AugmentMethod parseAugmentMethod(const std::string& name);

struct AugmentRequest {
    std::int64_t item = -1;
    AugmentMethod method = AugmentMethod::PointSwap;
    double omega = 0.5;  ///< PointSwap: probability of swapping each element (Eq. 6)
    int variant = 0;     ///< PointSwap: 0, or Table 11's ablations 1-3
    augment::FlowPick pick = augment::FlowPick::Proportional;
    double p = augment::kPointDropDocuments; ///< PointDrop
    double lambda = 0.5;                     ///< PointMixup: 0 = the item, 1 = its partner
    std::uint64_t seed = 1;

    /// Throws std::invalid_argument when the method's value (ω, p or λ) is outside [0, 1] or
    /// the variant is unknown, naming the option ("omega", "p", "lambda", "variant").
    void validate() const;
    /// The PointSwap options of this request (variant, ω, pick).
    augment::PointSwapOptions swapOptions() const;
};

/// The item an augmentation borrows from.
struct Partner {
    std::int64_t item = -1;
    double emd = std::numeric_limits<double>::quiet_NaN(); ///< EMD(item, partner) when known
    std::string chosenAs; ///< "the EMD-nearest of 1200 items of the train split (…)"
};

/// The EMD-nearest item of the train split (every item when there is none), with the exact
/// search pruned by lower bounds (ot::emdKnn). Throws std::invalid_argument when there is no
/// other item; job::Cancelled through `control`.
Partner nearestPartner(const data::Dataset& ds, std::int64_t item, job::JobControl* control = nullptr);

/// One changed element, described for people.
struct ChangeRow {
    augment::Change change;
    std::string original;   ///< the element of the item (word or coordinates)
    std::string substitute; ///< the partner's element (empty for PointDrop)
    double weight = 0.0;    ///< the element's weight in the item
    /// PointMixup: the mixed vector's nearest word (documents, with a vocabulary) or its first
    /// coordinates; the vector itself is augmented.points row change.output.
    std::string mixed;
};

struct AugmentPreview {
    AugmentRequest request;
    Partner partner; ///< item -1 for PointDrop
    augment::Augmented augmented;
    std::vector<ChangeRow> rows;
    std::int64_t elements = 0; ///< of the original item
    double totalWeight = 0.0;  ///< of the original item
};

/// Augments `request.item`. Methods that need a partner (PointSwap, PointMixup) use `partner`
/// when its item is set (the GUI finds it once and re-samples ω against it), else
/// nearestPartner(); PointSwap variants 1 and 2 draw a random partner of the train split from
/// the request's seed instead. `vocabulary` (may be null) names PointMixup's mixed vectors.
/// Throws std::invalid_argument (bad request, no partner) or ot::OtError (bad sets), naming
/// the item.
AugmentPreview previewAugmentation(const data::Dataset& ds, const AugmentRequest& request, Partner partner = {},
                                   const Vocabulary* vocabulary = nullptr, job::JobControl* control = nullptr);

} // namespace setscope::workspace
