// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Augmentation.h>
#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/LoadContext.h>
#include <setscope/sdk/Options.h>
#include <setscope/sdk/Recipe.h>
#include <setscope/sdk/Sampler.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace at {
class Tensor;
}
namespace torch::optim {
class Optimizer;
}

namespace setscope::sdk {

class SetEncoder;   // <setscope/sdk/Model.h>
class MetricLoss;   // <setscope/sdk/Model.h>
struct EncoderSpec; // <setscope/sdk/Model.h>
struct LossSpec;    // <setscope/sdk/Model.h>
struct OptimizerSpec; // <setscope/sdk/Model.h>

/// A dataset reader. `canLoad` is asked first (cheaply: extension, magic bytes, or a
/// directory layout); `load` then fills the sink or throws InputError.
///
/// The options a user gives after the path ("PATH?points=2048,seed=3") are checked against
/// `options` by the host and reach `load` resolved (defaults filled in); a loader without
/// options declares none, and the host refuses any option given to it. `load` runs on the
/// thread that opens the dataset (a worker in the GUI) and reports progress and polls for
/// cancel through `context`.
struct LoaderInfo {
    std::string name;                    ///< e.g. "idx"
    std::string description;             ///< one line for `setscope-cli plugins`
    std::vector<std::string> extensions; ///< lower-case, with the dot (".gz", ".npy")
    OptionSchema options;                ///< checked and defaulted by the host before load() sees them
    std::function<bool(const std::string& path)> canLoad;
    std::function<void(const std::string& path, const OptionValues& options, DatasetSink& sink, LoadContext& context)>
        load;
};

using EncoderFactory = std::function<std::shared_ptr<SetEncoder>(const EncoderSpec&)>;
using LossFactory = std::function<std::shared_ptr<MetricLoss>(const LossSpec&)>;
/// Builds an optimizer over `parameters` (torch::optim::Optimizer; declared in Model.h's
/// includes, so only Torch code names the type).
using OptimizerFactory =
    std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<at::Tensor> parameters, const OptimizerSpec&)>;
using AugmentationFactory = std::function<std::unique_ptr<SetAugmentation>(const AugmentationSpec&)>;
using SamplerFactory = std::function<std::unique_ptr<BatchSampler>(const SamplerSpec&)>;

struct EncoderInfo {
    std::string name;
    std::string description;
    OptionSchema options; ///< checked and defaulted by the host before create() sees them
    EncoderFactory create;
};

struct LossInfo {
    std::string name;
    std::string description;
    OptionSchema options; ///< checked and defaulted by the host before create() sees them
    LossFactory create;
};

struct OptimizerInfo {
    std::string name;
    std::string description;
    OptionSchema options; ///< must declare "lr" (Real)
    OptimizerFactory create;
};

struct AugmentationInfo {
    std::string name;
    std::string description;
    OptionSchema options;
    AugmentationFactory create;
};

struct SamplerInfo {
    std::string name;
    std::string description;
    OptionSchema options;
    /// True when batches are formed from labels (the pool's labels must be >= 0).
    bool needsLabels = false;
    SamplerFactory create;
};

struct RecipeInfo {
    std::string name;
    std::string description;
    OptionSchema options;
    /// The stages for the given (resolved) options. Option values of a stage's items that
    /// the user gives on the command line override the recipe's.
    std::function<std::vector<RecipeStage>(const OptionValues&)> stages;
};

/// What a plugin registers its features with. The host implements it; it is only valid
/// during the plugin's register call, which runs on the host's main thread.
class Registrar {
public:
    virtual ~Registrar() = default;
    virtual void addLoader(LoaderInfo info) = 0;
    virtual void addEncoder(EncoderInfo info) = 0;
    virtual void addLoss(LossInfo info) = 0;
    virtual void addOptimizer(OptimizerInfo info) = 0;
    virtual void addAugmentation(AugmentationInfo info) = 0;
    virtual void addSampler(SamplerInfo info) = 0;
    virtual void addRecipe(RecipeInfo info) = 0;
};

} // namespace setscope::sdk
