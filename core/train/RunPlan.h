// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainerConfig.h"

#include <setscope/sdk/Registrar.h>

#include <string>
#include <vector>

namespace setscope::plugin {
class Registry;
}

namespace setscope::train {

/// One stage of a run with its items looked up and their options resolved.
struct PlannedStage {
    sdk::RecipeStage stage;                        ///< names as the recipe (or the config) gives them
    const sdk::LossInfo* loss = nullptr;
    const sdk::AugmentationInfo* augmentation = nullptr; ///< null: no augmentation
    /// null: chosen when the stage starts (class-balanced when the loss reads labels, else random)
    const sdk::SamplerInfo* sampler = nullptr;
    sdk::OptionValues lossOptions;
    sdk::OptionValues augmentationOptions;
    std::map<std::string, std::string> samplerGiven; ///< resolved when the sampler is known
    int epochs = 1;
};

/// What a TrainerConfig means with a registry: every item found, every option checked.
struct RunPlan {
    const sdk::EncoderInfo* encoder = nullptr;
    const sdk::OptimizerInfo* optimizer = nullptr;
    sdk::OptionValues modelOptions;
    sdk::OptionValues optimizerOptions;
    sdk::OptionValues recipeOptions;
    std::vector<PlannedStage> stages;
    double validationFraction = 0.0;
    bool needsExternal = false; ///< a stage trains on config.externalDataset

    /// "pre-train (wsset + pointswap, 10 epochs) → fine-tune (triplet, 10 epochs)"
    std::string describe() const;
};

/// Builds the plan: the recipe's stages (or one stage from loss / augmentation / sampler),
/// the preset's defaults, then the config's options on every stage item that declares them.
/// Throws std::invalid_argument naming the item and option for an unknown item, an option no
/// selected item declares, or a value its schema refuses. Torch-free.
RunPlan planRun(const TrainerConfig& config, const plugin::Registry& registry);

/// The model options `preset` sets for `model` (those its schema declares): the cpu preset's
/// smaller self-attention encoder; empty for other presets and models.
std::map<std::string, std::string> presetModelOptions(const std::string& preset, const sdk::EncoderInfo& model);

/// `config` with its preset's model options written into modelOptions where not given, so
/// that the recorded config (runs, checkpoints) names the encoder it built. planRun() and
/// TrainingJob apply it; applying it twice changes nothing.
TrainerConfig applyPreset(TrainerConfig config, const plugin::Registry& registry);

/// What a user who opens a dataset and presses Start gets (issue 28 §5): for a dataset of
/// sets (documents, graphs, point clouds) the papers' method, recipe `ours` with the
/// self-attention set encoder (DeepSets for `exemplar`, as seed 001) and the `cpu` preset
/// (`paper` when training on CUDA) for 30 epochs; for plain vectors and images the MLP, no
/// preset, the trainer's epochs.
struct DatasetDefaults {
    std::string recipe; ///< "ours" for sets, "" (the supervised triplet loss) for vectors
    std::string model;
    std::string preset;
    /// 30 for sets: a first run that learns something (on `debian-descriptions`, 570 steps, about
    /// a minute on 2 cores; the trainer's 3 epochs, 57 steps, leave the untrained encoder's
    /// neighbours: docs/RESULTS.md "What a user meets first"); 0 = the trainer's default.
    int epochs = 0;
};
DatasetDefaults datasetDefaults(bool setsDataset, const std::string& recipe, bool cuda);

/// Resolves a sampler's options for a stage (the preset's batch size, then what was given).
sdk::OptionValues resolveSamplerOptions(const sdk::SamplerInfo& sampler, const PlannedStage& stage,
                                        const TrainerConfig& config);

/// Splits the option flags of a command line (name -> value, without "--") over the items a
/// config selects: each goes to every selected item (recipe, model, loss, augmentation,
/// sampler, optimizer) whose schema declares it. Throws std::invalid_argument naming the
/// option and the registered items that do declare it when no selected one does.
void applyItemOptions(TrainerConfig& config, const std::map<std::string, std::string>& options,
                      const plugin::Registry& registry);

} // namespace setscope::train
