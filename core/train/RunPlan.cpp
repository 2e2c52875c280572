// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/RunPlan.h"

#include "core/plugin/Registry.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace setscope::train {

namespace {

/// The papers' training defaults (seed 000 §VI-A, seed 001 §6.2.2).
const std::map<std::string, std::string> kPaperOptimizer{{"lr", "1e-05"}, {"beta1", "0.9"}, {"beta2", "0.999"},
                                                         {"eps", "1e-07"}};
constexpr const char* kPaperBatch = "64";
/// The cpu preset (docs/BENCHMARKS.md "step profile"): the authors' run.sh learning rate and
/// batch, and a self-attention encoder small enough for thousands of steps an hour on 2 cores.
const std::map<std::string, std::string> kCpuOptimizer{{"lr", "0.0001"}, {"beta1", "0.9"}, {"beta2", "0.999"},
                                                       {"eps", "1e-07"}};
constexpr const char* kCpuBatch = "32";
const std::map<std::string, std::string> kCpuSelfAttention{{"layers", "2"}, {"heads", "4"}, {"ff", "256"}, {"rho", "256"}};

const std::map<std::string, std::string>& presetOptimizer(const std::string& preset)
{
    static const std::map<std::string, std::string> none;
    return preset == "paper" ? kPaperOptimizer : preset == "cpu" ? kCpuOptimizer : none;
}

const char* presetBatch(const std::string& preset)
{
    return preset == "paper" ? kPaperBatch : preset == "cpu" ? kCpuBatch : nullptr;
}

/// `base` with `over` on top, keeping only keys `schema` declares when `onlyDeclared`.
std::map<std::string, std::string> layered(const std::map<std::string, std::string>& base,
                                           const std::map<std::string, std::string>& over,
                                           const sdk::OptionSchema& schema, bool onlyDeclared)
{
    std::map<std::string, std::string> out = base;
    for (const auto& [k, v] : over)
        if (!onlyDeclared || sdk::findOption(schema, k))
            out[k] = v;
    return out;
}

/// Every key of `given` must be declared by at least one of `schemas`.
void checkDeclared(const std::map<std::string, std::string>& given, const std::vector<const sdk::OptionSchema*>& schemas,
                   const std::vector<std::string>& owners, const char* kind)
{
    for (const auto& [k, v] : given) {
        bool found = false;
        for (const sdk::OptionSchema* s : schemas)
            found = found || sdk::findOption(*s, k);
        if (!found) {
            std::string list;
            for (std::size_t i = 0; i < owners.size(); ++i)
                if (std::find(owners.begin(), owners.begin() + static_cast<std::ptrdiff_t>(i), owners[i]) ==
                    owners.begin() + static_cast<std::ptrdiff_t>(i)) // two stages may share an item
                    list += (list.empty() ? "" : ", ") + owners[i];
            throw std::invalid_argument(std::string(kind) + " option '" + k + "' is not an option of " +
                                        (list.empty() ? std::string("any ") + kind + " of this run" : list));
        }
    }
}

/// The stages `cfg` runs: its recipe's for `recipeOptions` (resolved against the recipe's
/// schema), or one stage from cfg.loss / augmentation / sampler without a recipe.
std::vector<sdk::RecipeStage> stagesOf(const TrainerConfig& cfg, const plugin::Registry& registry,
                                       const sdk::OptionValues& recipeOptions)
{
    if (cfg.recipe.empty()) {
        sdk::RecipeStage s;
        s.name = "train";
        s.loss = cfg.loss.empty() ? "triplet" : cfg.loss;
        s.augmentation = cfg.augmentation;
        s.sampler = cfg.sampler;
        s.labels = sdk::StageLabels::Training; // read when the loss or the sampler asks for them
        return {s};
    }
    std::vector<sdk::RecipeStage> stages = registry.requireRecipe(cfg.recipe).stages(recipeOptions);
    if (stages.empty())
        throw std::invalid_argument("recipe " + cfg.recipe + " has no stages");
    return stages;
}

} // namespace

std::string RunPlan::describe() const
{
    std::string s;
    for (const PlannedStage& p : stages) {
        s += (s.empty() ? "" : " \u2192 ") + p.stage.name + " (" + p.loss->name;
        if (p.augmentation)
            s += " + " + p.augmentation->name;
        s += ", " + std::to_string(p.epochs) + (p.epochs == 1 ? " epoch" : " epochs");
        if (p.stage.external)
            s += ", external data";
        if (p.stage.resetHead)
            s += ", head re-initialised";
        s += ")";
    }
    return s;
}

std::map<std::string, std::string> presetModelOptions(const std::string& preset, const sdk::EncoderInfo& model)
{
    std::map<std::string, std::string> out;
    if (preset == "cpu" && model.name == "selfattn")
        for (const auto& [k, v] : kCpuSelfAttention)
            if (sdk::findOption(model.options, k))
                out[k] = v;
    return out;
}

TrainerConfig applyPreset(TrainerConfig cfg, const plugin::Registry& registry)
{
    if (const sdk::EncoderInfo* model = registry.encoder(cfg.model))
        for (const auto& [k, v] : presetModelOptions(cfg.preset, *model))
            cfg.modelOptions.emplace(k, v); // what was given stays
    return cfg;
}

DatasetDefaults datasetDefaults(bool setsDataset, const std::string& recipe, bool cuda)
{
    if (!setsDataset)
        return {"", "mlp", ""};
    return {"ours", recipe == "exemplar" ? "deepsets" : "selfattn", cuda ? "paper" : "cpu", 30};
}

RunPlan planRun(const TrainerConfig& given, const plugin::Registry& registry)
{
    given.validate();
    const TrainerConfig cfg = applyPreset(given, registry);
    RunPlan plan;
    plan.encoder = &registry.requireEncoder(cfg.model);
    plan.modelOptions = sdk::OptionValues::resolve(plan.encoder->options, cfg.modelOptions, "model " + cfg.model);
    plan.optimizer = &registry.requireOptimizer(cfg.optimizer);
    plan.optimizerOptions = sdk::OptionValues::resolve(
        plan.optimizer->options,
        // The preset sets what the optimizer declares (SGD has no betas); what the user gives
        // is checked in full.
        layered(layered({}, presetOptimizer(cfg.preset), plan.optimizer->options, /*onlyDeclared=*/true),
                cfg.optimizerOptions, plan.optimizer->options, /*onlyDeclared=*/false),
        "optimizer " + cfg.optimizer);
    plan.validationFraction = cfg.effectiveValidationFraction();

    if (cfg.recipe.empty() && !cfg.recipeOptions.empty())
        throw std::invalid_argument("recipe options given without a recipe");
    if (!cfg.recipe.empty())
        plan.recipeOptions = sdk::OptionValues::resolve(registry.requireRecipe(cfg.recipe).options, cfg.recipeOptions,
                                                        "recipe " + cfg.recipe);
    const std::vector<sdk::RecipeStage> stages = stagesOf(cfg, registry, plan.recipeOptions);

    std::vector<const sdk::OptionSchema*> lossSchemas, augSchemas, samplerSchemas;
    std::vector<std::string> lossNames, augNames, samplerNames;
    for (const sdk::RecipeStage& s : stages) {
        PlannedStage p;
        p.stage = s;
        p.loss = &registry.requireLoss(s.loss);
        lossSchemas.push_back(&p.loss->options);
        lossNames.push_back("loss " + s.loss);
        p.lossOptions = sdk::OptionValues::resolve(p.loss->options, layered(s.lossOptions, cfg.lossOptions, p.loss->options, true),
                                                   "loss " + s.loss);
        if (!s.augmentation.empty()) {
            p.augmentation = &registry.requireAugmentation(s.augmentation);
            augSchemas.push_back(&p.augmentation->options);
            augNames.push_back("augmentation " + s.augmentation);
            p.augmentationOptions = sdk::OptionValues::resolve(
                p.augmentation->options, layered(s.augmentationOptions, cfg.augmentationOptions, p.augmentation->options, true),
                "augmentation " + s.augmentation);
        }
        if (!s.sampler.empty()) {
            p.sampler = &registry.requireSampler(s.sampler);
            samplerSchemas.push_back(&p.sampler->options);
            samplerNames.push_back("sampler " + s.sampler);
        }
        // The recipe's own sampler options are checked strictly at resolve time; the user's go
        // to a fixed sampler only when it declares them (another stage's sampler may).
        p.samplerGiven = s.samplerOptions;
        for (const auto& [k, v] : cfg.samplerOptions)
            if (!p.sampler || sdk::findOption(p.sampler->options, k))
                p.samplerGiven[k] = v;
        p.epochs = s.epochs > 0 ? s.epochs : cfg.epochs;
        plan.needsExternal = plan.needsExternal || s.external;
        plan.stages.push_back(std::move(p));
    }
    checkDeclared(cfg.lossOptions, lossSchemas, lossNames, "loss");
    checkDeclared(cfg.augmentationOptions, augSchemas, augNames, "augmentation");
    if (cfg.augmentationOptions.size() && augSchemas.empty())
        throw std::invalid_argument("augmentation options given but this run has no augmentation");
    // Samplers chosen at stage start are checked then (resolveSamplerOptions); fixed ones now.
    bool samplerOpen = false;
    for (PlannedStage& p : plan.stages) {
        if (p.sampler)
            (void)resolveSamplerOptions(*p.sampler, p, cfg);
        else
            samplerOpen = true;
    }
    if (!samplerOpen)
        checkDeclared(cfg.samplerOptions, samplerSchemas, samplerNames, "sampler");
    if (plan.needsExternal && cfg.externalDataset.empty())
        throw std::invalid_argument("recipe " + cfg.recipe + " trains on an external dataset first: give it with "
                                    "--external DATASET");
    if (!plan.needsExternal && !cfg.externalDataset.empty())
        throw std::invalid_argument("an external dataset was given but no stage of this run uses it (recipe ext does)");
    return plan;
}

sdk::OptionValues resolveSamplerOptions(const sdk::SamplerInfo& sampler, const PlannedStage& stage,
                                        const TrainerConfig& cfg)
{
    std::map<std::string, std::string> given;
    if (const char* batch = presetBatch(cfg.preset); batch && sdk::findOption(sampler.options, "batch-size"))
        given["batch-size"] = batch;
    for (const auto& [k, v] : stage.samplerGiven)
        if (sdk::findOption(sampler.options, k) || !stage.stage.sampler.empty())
            given[k] = v;
    return sdk::OptionValues::resolve(sampler.options, given, "sampler " + sampler.name);
}

void applyItemOptions(TrainerConfig& cfg, const std::map<std::string, std::string>& options,
                      const plugin::Registry& registry)
{
    // The items this config selects, by kind.
    std::vector<const sdk::OptionSchema*> recipe, model, loss, aug, sampler, optimizer;
    model.push_back(&registry.requireEncoder(cfg.model).options);
    optimizer.push_back(&registry.requireOptimizer(cfg.optimizer).options);
    sdk::OptionValues recipeValues;
    if (!cfg.recipe.empty()) {
        const sdk::RecipeInfo& r = registry.requireRecipe(cfg.recipe);
        recipe.push_back(&r.options);
        // The stages a recipe has may depend on its options: plan with the recipe options given.
        std::map<std::string, std::string> recipeGiven = cfg.recipeOptions;
        for (const auto& [k, v] : options)
            if (sdk::findOption(r.options, k))
                recipeGiven[k] = v;
        recipeValues = sdk::OptionValues::resolve(r.options, recipeGiven, "recipe " + cfg.recipe);
    }
    const std::vector<sdk::RecipeStage> stages = stagesOf(cfg, registry, recipeValues);
    bool openSampler = false;
    for (const sdk::RecipeStage& s : stages) {
        loss.push_back(&registry.requireLoss(s.loss).options);
        if (!s.augmentation.empty())
            aug.push_back(&registry.requireAugmentation(s.augmentation).options);
        if (!s.sampler.empty())
            sampler.push_back(&registry.requireSampler(s.sampler).options);
        else
            openSampler = true;
    }
    if (openSampler) // chosen at stage start: any registered sampler may receive the option
        for (const sdk::SamplerInfo& si : registry.samplers())
            sampler.push_back(&si.options);

    auto declares = [](const std::vector<const sdk::OptionSchema*>& v, const std::string& k) {
        for (const sdk::OptionSchema* s : v)
            if (sdk::findOption(*s, k))
                return true;
        return false;
    };
    for (const auto& [k, v] : options) {
        bool used = false;
        auto put = [&](const std::vector<const sdk::OptionSchema*>& kind, std::map<std::string, std::string>& into) {
            if (declares(kind, k)) {
                into[k] = v;
                used = true;
            }
        };
        put(recipe, cfg.recipeOptions);
        put(model, cfg.modelOptions);
        put(loss, cfg.lossOptions);
        put(aug, cfg.augmentationOptions);
        put(sampler, cfg.samplerOptions);
        put(optimizer, cfg.optimizerOptions);
        if (!used) {
            std::set<std::string> owners;
            for (const plugin::ItemRef& item : registry.trainingItems())
                if (sdk::findOption(*item.options, k))
                    owners.insert(std::string(item.kind) + " " + *item.name);
            std::string list;
            for (const std::string& o : owners)
                list += (list.empty() ? "" : ", ") + o;
            throw std::invalid_argument("--" + k + ": no item of this run has that option" +
                                        (list.empty() ? std::string() : " (" + list + " does)"));
        }
    }
}

} // namespace setscope::train
