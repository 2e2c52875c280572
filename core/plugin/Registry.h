// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Registrar.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace setscope::plugin {

/// A plugin was refused (wrong ABI, LibTorch version, build type) or could not be loaded.
class PluginError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct LoadedPlugin {
    std::string path;
    std::string name;
    std::string version;
};

/// One registered item of a kind whose options `setscope-cli train` and the training panel take.
struct ItemRef {
    const char* kind;  ///< "recipe", "model", "loss", "augmentation", "sampler", "optimizer"
    const std::string* name;
    const std::string* description;
    const sdk::OptionSchema* options;
};

/// Those kinds, in the order they are listed: {kind, plural title}.
inline constexpr std::pair<const char*, const char*> kTrainingKinds[] = {
    {"recipe", "recipes"},           {"model", "models"},       {"loss", "losses"},
    {"augmentation", "augmentations"}, {"sampler", "samplers"}, {"optimizer", "optimizers"}};

/// What plugins (built-in and external) register into: dataset loaders, encoders, losses.
/// Fill it on the main thread at start-up; after that it is read-only and may be read from
/// any thread. Loaded plugin libraries stay mapped until the process exits (the registered
/// std::function objects point into them).
class Registry final : public sdk::Registrar {
public:
    void addLoader(sdk::LoaderInfo info) override;
    void addEncoder(sdk::EncoderInfo info) override;
    void addLoss(sdk::LossInfo info) override;
    void addOptimizer(sdk::OptimizerInfo info) override;
    void addAugmentation(sdk::AugmentationInfo info) override;
    void addSampler(sdk::SamplerInfo info) override;
    void addRecipe(sdk::RecipeInfo info) override;

    const std::vector<sdk::LoaderInfo>& loaders() const { return m_loaders; }
    const std::vector<sdk::EncoderInfo>& encoders() const { return m_encoders; }
    const std::vector<sdk::LossInfo>& losses() const { return m_losses; }
    const std::vector<sdk::OptimizerInfo>& optimizers() const { return m_optimizers; }
    const std::vector<sdk::AugmentationInfo>& augmentations() const { return m_augmentations; }
    const std::vector<sdk::SamplerInfo>& samplers() const { return m_samplers; }
    const std::vector<sdk::RecipeInfo>& recipes() const { return m_recipes; }

    /// Every recipe, model, loss, augmentation, sampler and optimizer, in kTrainingKinds'
    /// order, then in registration order. Valid while the registry is not changed.
    std::vector<ItemRef> trainingItems() const;

    /// nullptr when unknown (a later registration of the same name wins).
    const sdk::EncoderInfo* encoder(const std::string& name) const;
    const sdk::LossInfo* loss(const std::string& name) const;
    const sdk::OptimizerInfo* optimizer(const std::string& name) const;
    const sdk::AugmentationInfo* augmentation(const std::string& name) const;
    const sdk::SamplerInfo* sampler(const std::string& name) const;
    const sdk::RecipeInfo* recipe(const std::string& name) const;
    /// Throw std::invalid_argument listing what is available.
    const sdk::EncoderInfo& requireEncoder(const std::string& name) const;
    const sdk::LossInfo& requireLoss(const std::string& name) const;
    const sdk::OptimizerInfo& requireOptimizer(const std::string& name) const;
    const sdk::AugmentationInfo& requireAugmentation(const std::string& name) const;
    const sdk::SamplerInfo& requireSampler(const std::string& name) const;
    const sdk::RecipeInfo& requireRecipe(const std::string& name) const;

    /// The first loader whose canLoad() accepts `path` (later registrations win, so a
    /// plugin can override a built-in). Throws sdk::InputError naming the path and the
    /// loaders tried.
    const sdk::LoaderInfo& loaderFor(const std::string& path) const;

    /// Loads a plugin library from an absolute path no other user can write to
    /// (unsafePluginLocation()). Checks its info block against the host before calling
    /// anything else in it and throws PluginError with a message a user can act on.
    const LoadedPlugin& loadPlugin(const std::string& path);
    /// Loads every *.so in `dir`; returns one message per refused plugin (loading goes on).
    /// A relative or unsafe `dir` (unsafePluginLocation()) is refused as a whole, one message.
    std::vector<std::string> loadPluginDirectory(const std::string& dir);
    const std::vector<LoadedPlugin>& plugins() const { return m_plugins; }

private:
    std::vector<sdk::LoaderInfo> m_loaders;
    std::vector<sdk::EncoderInfo> m_encoders;
    std::vector<sdk::LossInfo> m_losses;
    std::vector<sdk::OptimizerInfo> m_optimizers;
    std::vector<sdk::AugmentationInfo> m_augmentations;
    std::vector<sdk::SamplerInfo> m_samplers;
    std::vector<sdk::RecipeInfo> m_recipes;
    std::vector<LoadedPlugin> m_plugins;
};

/// Where plugins are looked for, in order: each folder of $SETSCOPE_PLUGIN_PATH
/// (colon-separated, absolute paths only: a relative or empty entry would mean the working
/// directory, and is reported in `refused` instead), <exe dir>/../lib/setscope/plugins
/// (installed layout) and <exe dir>/../../plugins (build tree: executables in build/app/*,
/// plugins in build/plugins). Only existing folders are returned, without duplicates.
/// Registry::loadPluginDirectory() then refuses a folder other users can write to.
std::vector<std::string> defaultPluginDirectories(const std::string& executablePath,
                                                  std::vector<std::string>* refused = nullptr);

/// Why a plugin file or folder must not be loaded from, or nullopt when it may: a relative
/// path (plugins never come from the working directory), or the path or a folder above it
/// that another user could write to — owned by someone other than root or this user, or
/// writable by everyone, or by a group other than this user's private group (Debian's
/// user-private groups with umask 002 stay loadable); a sticky folder above it, such as
/// /tmp, is fine: others cannot replace what is ours in it. Checks the resolved path (symbolic links
/// followed) and every folder up to the root.
std::optional<std::string> unsafePluginLocation(const std::string& path);

} // namespace setscope::plugin
