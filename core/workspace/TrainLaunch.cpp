// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/TrainLaunch.h"

#include "core/project/LabelSets.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/Workspace.h"

#include <stdexcept>

namespace setscope::workspace {

ResolvedTrain resolveTrain(const TrainRequest& request, const plugin::Registry& registry, const OpenDatasetFn& open)
{
    ResolvedTrain out;
    train::TrainerConfig& cfg = out.config;
    cfg = request.config;
    // A dataset of sets trains the set encoder unless the model is given (issue 28 §5): the MLP
    // sees only the set's mean, which for centred point clouds is the same point; and for the
    // epochs a first run needs to learn something. Decided before the item options are handed
    // out, so that --layers and the like reach it.
    if (!request.modelGiven) {
        out.dataset = open(request.dataset);
        if (!out.dataset->isVectorDataset()) {
            const train::DatasetDefaults d =
                train::datasetDefaults(true, cfg.recipe, train::resolveDevice(cfg.device).rfind("cuda", 0) == 0);
            cfg.model = d.model;
            if (!request.presetGiven)
                cfg.preset = d.preset;
            if (!request.epochsGiven && d.epochs > 0)
                cfg.epochs = d.epochs;
            out.defaultsNote = "a dataset of sets: model " + cfg.model +
                               (cfg.preset.empty() ? std::string() : ", preset " + cfg.preset) + ", " +
                               std::to_string(cfg.epochs) + (cfg.epochs == 1 ? " epoch" : " epochs") +
                               " (--model, --preset and --epochs choose others)";
        }
    }
    train::applyItemOptions(cfg, request.itemOptions, registry);
    if (cfg.recipe.empty() && cfg.loss.empty())
        cfg.loss = "triplet"; // recorded as what runs
    if (!request.coarseMapping.empty()) {
        out.coarse = data::readLabelMapping(request.coarseMapping);
        if (!request.labelSetGiven)
            cfg.labelSet = out.coarse->name;
    }
    // The settings a run of local ranks chooses (the parts of a batch, a rank's threads) follow
    // the checkpoint unless given: a run resumes on another number of ranks as it was.
    if (!cfg.resumeFrom.empty() && (!request.shardsGiven || !request.threadsGiven)) {
        const train::TrainerConfig stored = train::checkpointConfig(cfg.resumeFrom);
        if (!request.shardsGiven)
            cfg.batchShards = stored.batchShards;
        if (!request.threadsGiven)
            cfg.threads = stored.threads;
    }
    cfg.validate();
    train::resolveDevice(cfg.device); // fails early with a clear message
    out.plan = train::planRun(cfg, registry);
    return out;
}

int batchShardsFor(const train::TrainerConfig& config, bool shardsGiven, int processes)
{
    int shards = config.batchShards;
    if (shards == 1 && !shardsGiven)
        shards = processes;
    if (shards % processes != 0)
        throw std::invalid_argument("--batch-shards " + std::to_string(shards) + " is not a multiple of --nproc " +
                                    std::to_string(processes) + " (each rank takes whole parts of a batch)");
    return shards;
}

PreparedTrain prepareTrainData(const ResolvedTrain& resolved, const TrainRequest& request, Workspace& ws,
                               const OpenDatasetFn& open)
{
    PreparedTrain out;
    const train::TrainerConfig& cfg = resolved.config;
    std::shared_ptr<const data::Dataset> ds = resolved.dataset ? resolved.dataset : open(request.dataset);
    if (resolved.plan.needsExternal)
        out.external = open(cfg.externalDataset);
    // Checked as the job will check them: with the preset's model options written in (a
    // checkpoint of a --preset cpu run records them). A checkpoint that does not fit is refused
    // before any other work.
    const train::TrainerConfig checked = train::applyPreset(cfg, ws.registry());
    if (!cfg.resumeFrom.empty()) {
        const std::string overridden = train::checkResume(checked, *ds);
        out.notes.push_back("resuming from " + cfg.resumeFrom + ": " +
                            (overridden.empty() ? std::string("an exact continuation")
                                                : "with " + overridden + " (overridden: not an exact continuation)"));
    } else if (!cfg.initFrom.empty()) {
        train::checkResume(checked, *ds); // the weights' fit
        out.notes.push_back("starting from the weights of " + cfg.initFrom);
    }
    if (!request.project.empty()) {
        ws.openProject(request.project);
        ws.attach(std::move(ds), request.dataset);
    } else {
        ws.adoptDataset(std::move(ds), request.dataset);
    }
    if (resolved.coarse) {
        const data::LabelMapping& m = *resolved.coarse;
        if (ws.project()) {
            const project::DerivedLabelSet d = project::deriveLabelSet(*ws.project(), ws.projectDatasetId(), *ws.dataset(), m);
            ws.reloadLabelSet(m.name);
            out.notes.push_back("label set '" + m.name + "' " + (d.created ? "derived" : "re-derived") +
                                " in the project (" + std::to_string(d.changed) + " items changed)");
        } else { // this run's labels only: the dataset as loaded with the mapped set
            ws.adoptDataset(std::make_shared<const data::Dataset>(ws.dataset()->withLabelSet(m.apply(*ws.dataset()))),
                            request.dataset);
        }
    }
    return out;
}

} // namespace setscope::workspace
