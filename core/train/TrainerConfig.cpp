// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/TrainerConfig.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <set>
#include <stdexcept>

namespace setscope::train {

namespace {

// The fields resumeDifferences() compares, by JSON name.
const std::set<std::string> kStructuralFields{"model", "embedding_dim", "model_options"};
const std::vector<std::string> kOverridableFields{
    "recipe",           "recipe_options",  "loss",           "loss_options",        "augmentation",
    "augmentation_options", "sampler",     "sampler_options", "optimizer",          "optimizer_options",
    "schedule",         "preset",          "label_set",      "label_fraction",      "validation_fraction",
    "external_dataset", "seed",            "threads",        "batch_shards"};

std::string join(const std::vector<std::string>& v, const char* sep)
{
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : sep) + x;
    return s;
}

} // namespace

nlohmann::json TrainerConfig::toJson() const
{
    return nlohmann::json{
        {"recipe", recipe},
        {"recipe_options", recipeOptions},
        {"model", model},
        {"model_options", modelOptions},
        {"loss", loss},
        {"loss_options", lossOptions},
        {"augmentation", augmentation},
        {"augmentation_options", augmentationOptions},
        {"sampler", sampler},
        {"sampler_options", samplerOptions},
        {"optimizer", optimizer},
        {"optimizer_options", optimizerOptions},
        {"schedule", schedule},
        {"preset", preset},
        {"label_set", labelSet},
        {"label_fraction", labelFraction},
        {"validation_fraction", validationFraction},
        {"external_dataset", externalDataset},
        {"epochs", epochs},
        {"max_steps", maxSteps},
        {"embedding_dim", embeddingDim},
        {"seed", seed},
        {"device", device},
        {"emd_cache", emdCache},
        {"threads", threads},
        {"batch_shards", batchShards},
        {"checkpoint_dir", checkpointDir},
        {"checkpoint_every", checkpointEvery},
        {"resume_from", resumeFrom},
        {"resume_overrides", resumeOverrides},
        {"init_from", initFrom},
        {"snapshot_every", snapshotEvery},
        {"snapshot_items", snapshotItems},
        {"evaluate_each_epoch", evaluateEachEpoch},
        {"evaluate_every", evaluateEvery},
    };
}

namespace {
std::string numberText(const nlohmann::json& v)
{
    char buf[64];
    const double d = v.get<double>();
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, r.ptr);
}
} // namespace

TrainerConfig TrainerConfig::fromJson(const nlohmann::json& j)
{
    if (!j.is_object())
        throw std::invalid_argument("trainer config must be a JSON object");
    static const std::set<std::string> known{
        "recipe", "recipe_options", "model", "model_options", "loss", "loss_options", "augmentation",
        "augmentation_options", "sampler", "sampler_options", "optimizer", "optimizer_options", "schedule", "preset",
        "label_set", "label_fraction", "validation_fraction", "external_dataset", "epochs", "max_steps",
        "embedding_dim", "seed", "device", "emd_cache", "threads", "batch_shards", "checkpoint_dir", "checkpoint_every",
        "resume_from", "resume_overrides", "init_from", "snapshot_every", "snapshot_items", "evaluate_each_epoch",
        "evaluate_every",
        // stored before recipes; read into item options below
        "margin", "batch_classes", "batch_per_class", "learning_rate", "weight_decay"};
    for (const auto& [k, v] : j.items())
        if (!known.count(k))
            throw std::invalid_argument("unknown trainer option '" + k + "'");
    TrainerConfig c;
    try {
        c.recipe = j.value("recipe", c.recipe);
        c.recipeOptions = j.value("recipe_options", c.recipeOptions);
        c.model = j.value("model", c.model);
        c.modelOptions = j.value("model_options", c.modelOptions);
        c.loss = j.value("loss", c.loss);
        c.lossOptions = j.value("loss_options", c.lossOptions);
        c.augmentation = j.value("augmentation", c.augmentation);
        c.augmentationOptions = j.value("augmentation_options", c.augmentationOptions);
        c.sampler = j.value("sampler", c.sampler);
        c.samplerOptions = j.value("sampler_options", c.samplerOptions);
        c.optimizer = j.value("optimizer", c.optimizer);
        c.optimizerOptions = j.value("optimizer_options", c.optimizerOptions);
        c.schedule = j.value("schedule", c.schedule);
        c.preset = j.value("preset", c.preset);
        c.labelSet = j.value("label_set", c.labelSet);
        c.labelFraction = j.value("label_fraction", c.labelFraction);
        c.validationFraction = j.value("validation_fraction", c.validationFraction);
        c.externalDataset = j.value("external_dataset", c.externalDataset);
        c.epochs = j.value("epochs", c.epochs);
        c.maxSteps = j.value("max_steps", c.maxSteps);
        c.embeddingDim = j.value("embedding_dim", c.embeddingDim);
        c.seed = j.value("seed", c.seed);
        c.device = j.value("device", c.device);
        c.emdCache = j.value("emd_cache", c.emdCache);
        c.threads = j.value("threads", c.threads);
        c.batchShards = j.value("batch_shards", c.batchShards);
        c.checkpointDir = j.value("checkpoint_dir", c.checkpointDir);
        c.checkpointEvery = j.value("checkpoint_every", c.checkpointEvery);
        c.resumeFrom = j.value("resume_from", c.resumeFrom);
        c.resumeOverrides = j.value("resume_overrides", c.resumeOverrides);
        c.initFrom = j.value("init_from", c.initFrom);
        c.snapshotEvery = j.value("snapshot_every", c.snapshotEvery);
        c.snapshotItems = j.value("snapshot_items", c.snapshotItems);
        c.evaluateEachEpoch = j.value("evaluate_each_epoch", c.evaluateEachEpoch);
        c.evaluateEvery = j.value("evaluate_every", c.evaluateEvery);
        // Configurations stored before recipes (runs and checkpoints of earlier versions).
        if (j.contains("margin") && j.at("margin").get<double>() >= 0)
            c.lossOptions.emplace("margin", numberText(j.at("margin")));
        if (j.contains("batch_classes"))
            c.samplerOptions.emplace("classes", std::to_string(j.at("batch_classes").get<int>()));
        if (j.contains("batch_per_class"))
            c.samplerOptions.emplace("per-class", std::to_string(j.at("batch_per_class").get<int>()));
        if (j.contains("learning_rate"))
            c.optimizerOptions.emplace("lr", numberText(j.at("learning_rate")));
        if (j.contains("weight_decay") && j.at("weight_decay").get<double>() > 0)
            c.optimizerOptions.emplace("weight-decay", numberText(j.at("weight_decay")));
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("trainer config: ") + e.what());
    }
    c.validate();
    return c;
}

double TrainerConfig::effectiveValidationFraction() const
{
    if (validationFraction >= 0)
        return validationFraction;
    return recipe.empty() ? 0.0 : 0.1;
}

void TrainerConfig::validate() const
{
    auto fail = [](const std::string& m) { throw std::invalid_argument("trainer config: " + m); };
    if (epochs < 1)
        fail("epochs must be at least 1");
    if (maxSteps < 0)
        fail("max_steps must be >= 0");
    if (embeddingDim < 1)
        fail("embedding_dim must be at least 1");
    if (!(labelFraction > 0.0 && labelFraction <= 1.0))
        fail("label_fraction must be in (0, 1]");
    if (!(validationFraction < 0.9))
        fail("validation_fraction must be below 0.9 (< 0: the default)");
    if (schedule != "constant" && schedule != "cosine")
        fail("schedule must be constant or cosine, not '" + schedule + "'");
    if (!preset.empty() && preset != "paper" && preset != "cpu")
        fail("preset must be \"\", paper or cpu, not '" + preset + "'");
    if (!recipe.empty() && (!loss.empty() || !augmentation.empty() || !sampler.empty()))
        fail("recipe '" + recipe + "' names its own loss, augmentation and sampler; give their options instead of "
             "loss/augmentation/sampler (or drop the recipe)");
    if (threads < 0)
        fail("threads must be >= 0");
    if (batchShards < 1)
        fail("batch_shards must be at least 1");
    if (emdCache != "auto" && emdCache != "off")
        fail("emd_cache must be auto or off, not '" + emdCache + "'");
    if (checkpointEvery < 0 || snapshotEvery < 0)
        fail("checkpoint_every and snapshot_every must be >= 0");
    if (snapshotItems < 0)
        fail("snapshot_items must be 0 (every item) or more");
    if (evaluateEvery < 1)
        fail("evaluate_every must be at least 1 (epochs between evaluations)");
    for (const std::string& f : resumeOverrides) {
        if (kStructuralFields.count(f))
            fail("resume override '" + f + "' is not possible: a checkpoint's weights fit only the model, "
                 "embedding_dim and model_options it was trained with");
        if (std::find(kOverridableFields.begin(), kOverridableFields.end(), f) == kOverridableFields.end())
            fail("unknown resume override '" + f + "' (fields that may be overridden: " + join(kOverridableFields, ", ") +
                 "; epochs, max_steps, device and the checkpoint and snapshot settings may differ anyway)");
    }
}

std::vector<ConfigDifference> resumeDifferences(const TrainerConfig& checkpoint, const TrainerConfig& run)
{
    const nlohmann::json a = checkpoint.toJson(), b = run.toJson();
    std::vector<ConfigDifference> out;
    auto compare = [&](const std::string& field, bool structural) {
        if (a.at(field) != b.at(field))
            out.push_back({field, a.at(field).dump(), b.at(field).dump(), structural});
    };
    for (const char* f : {"model", "embedding_dim", "model_options"})
        compare(f, true);
    for (const std::string& f : kOverridableFields)
        compare(f, false);
    return out;
}

std::string describe(const std::vector<ConfigDifference>& differences)
{
    std::vector<std::string> parts;
    for (const ConfigDifference& d : differences)
        parts.push_back(d.field + " " + d.stored + " \u2192 " + d.requested);
    return join(parts, ", ");
}

} // namespace setscope::train
