// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/TrainerConfig.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace setscope::train {

namespace {

// The fields resumeDifferences() compares, by JSON name.
const std::set<std::string> kStructuralFields{"model", "embedding_dim", "model_options"};
const std::vector<std::string> kOverridableFields{"loss",          "margin",       "label_set",
                                                  "batch_classes", "batch_per_class", "learning_rate",
                                                  "weight_decay",  "seed",         "threads"};

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
        {"model", model},
        {"loss", loss},
        {"label_set", labelSet},
        {"epochs", epochs},
        {"max_steps", maxSteps},
        {"embedding_dim", embeddingDim},
        {"model_options", modelOptions},
        {"margin", margin},
        {"batch_classes", batchClasses},
        {"batch_per_class", batchPerClass},
        {"learning_rate", learningRate},
        {"weight_decay", weightDecay},
        {"seed", seed},
        {"device", device},
        {"threads", threads},
        {"checkpoint_dir", checkpointDir},
        {"checkpoint_every", checkpointEvery},
        {"resume_from", resumeFrom},
        {"resume_overrides", resumeOverrides},
        {"snapshot_every", snapshotEvery},
        {"snapshot_items", snapshotItems},
        {"evaluate_each_epoch", evaluateEachEpoch},
    };
}

TrainerConfig TrainerConfig::fromJson(const nlohmann::json& j)
{
    if (!j.is_object())
        throw std::invalid_argument("trainer config must be a JSON object");
    static const std::set<std::string> known{
        "model",        "loss",          "label_set",       "epochs",         "max_steps",     "embedding_dim",
        "model_options", "margin",       "batch_classes",   "batch_per_class", "learning_rate", "weight_decay",
        "seed",         "device",        "threads",         "checkpoint_dir", "checkpoint_every", "resume_from",
        "resume_overrides", "snapshot_every", "snapshot_items", "evaluate_each_epoch"};
    for (const auto& [k, v] : j.items())
        if (!known.count(k))
            throw std::invalid_argument("unknown trainer option '" + k + "'");
    TrainerConfig c;
    try {
        c.model = j.value("model", c.model);
        c.loss = j.value("loss", c.loss);
        c.labelSet = j.value("label_set", c.labelSet);
        c.epochs = j.value("epochs", c.epochs);
        c.maxSteps = j.value("max_steps", c.maxSteps);
        c.embeddingDim = j.value("embedding_dim", c.embeddingDim);
        c.modelOptions = j.value("model_options", c.modelOptions);
        c.margin = j.value("margin", c.margin);
        c.batchClasses = j.value("batch_classes", c.batchClasses);
        c.batchPerClass = j.value("batch_per_class", c.batchPerClass);
        c.learningRate = j.value("learning_rate", c.learningRate);
        c.weightDecay = j.value("weight_decay", c.weightDecay);
        c.seed = j.value("seed", c.seed);
        c.device = j.value("device", c.device);
        c.threads = j.value("threads", c.threads);
        c.checkpointDir = j.value("checkpoint_dir", c.checkpointDir);
        c.checkpointEvery = j.value("checkpoint_every", c.checkpointEvery);
        c.resumeFrom = j.value("resume_from", c.resumeFrom);
        c.resumeOverrides = j.value("resume_overrides", c.resumeOverrides);
        c.snapshotEvery = j.value("snapshot_every", c.snapshotEvery);
        c.snapshotItems = j.value("snapshot_items", c.snapshotItems);
        c.evaluateEachEpoch = j.value("evaluate_each_epoch", c.evaluateEachEpoch);
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("trainer config: ") + e.what());
    }
    c.validate();
    return c;
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
    if (batchClasses < 2)
        fail("batch_classes must be at least 2 (a batch needs negatives)");
    if (batchPerClass < 2)
        fail("batch_per_class must be at least 2 (a batch needs positives)");
    if (!(learningRate > 0.0))
        fail("learning_rate must be positive");
    if (weightDecay < 0.0)
        fail("weight_decay must be >= 0");
    if (threads < 0)
        fail("threads must be >= 0");
    if (checkpointEvery < 0 || snapshotEvery < 0)
        fail("checkpoint_every and snapshot_every must be >= 0");
    if (snapshotItems < 1)
        fail("snapshot_items must be at least 1");
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
