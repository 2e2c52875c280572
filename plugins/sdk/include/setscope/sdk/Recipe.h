// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Recipes as a registry kind: a named training method of the papers ("ours", "ours+ps",
// "int", "tl", ...) as one or more stages, each naming its loss, augmentation and sampler
// with their options. Torch-free.

#include <setscope/sdk/Options.h>

#include <map>
#include <string>
#include <vector>

namespace setscope::sdk {

/// Which labels a stage trains with.
enum class StageLabels {
    None,     ///< self-supervised: labels are not read (EMD pseudo-labels, augmentations)
    Training, ///< supervised: the run's label set on the training pool, thinned by the run's label fraction
    /// semi-supervised (seed 004): the whole training pool, the run's labels on its kept share
    /// (labelsPerClass, else the label fraction) and -1 on every other item
    SemiSupervised,
};

struct RecipeStage {
    std::string name;       ///< "pre-train", "fine-tune": shown in progress and stored with checkpoints
    std::string loss;       ///< a registered loss
    std::map<std::string, std::string> lossOptions;
    std::string augmentation; ///< a registered augmentation, "" for none
    std::map<std::string, std::string> augmentationOptions;
    std::string sampler;    ///< a registered sampler
    std::map<std::string, std::string> samplerOptions;
    StageLabels labels = StageLabels::None;
    /// Trains on the run's external dataset (recipe option "external"), not the target's.
    bool external = false;
    /// Re-initialise the encoder's head (SetEncoder::resetHead()) before the stage.
    bool resetHead = false;
    /// Epochs of this stage; 0 = the run's epochs.
    int epochs = 0;
    /// Labelled stages: keep this many labels per class of the training pool (seeded), the
    /// rest unlabelled; 0 = the run's label fraction decides.
    int labelsPerClass = 0;
    /// Metrics (eval registry names, e.g. "nmi") scored each epoch of this stage besides the
    /// standard ones; empty for most recipes (they cost an evaluation each epoch).
    std::vector<std::string> metrics;
};

} // namespace setscope::sdk
