// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/data/Dataset.h"
#include "core/project/ProjectStore.h"
#include "core/workspace/Substructure.h"
#include "core/workspace/Workspace.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace setscope::cli {

namespace {

struct SubstructureOpt {
    std::string dataset, checkpoint, project, fine, coarse;
    std::int64_t run = 0;
    int k = 10, items = 2000;
    bool json = false;
};

void addSubstructureFlags(CLI::App* cmd, SubstructureOpt* o)
{
    cmd->add_option("--dataset", o->dataset, "dataset name or path")->required();
    cmd->add_option("--checkpoint", o->checkpoint, "the run's checkpoint (default with --project: the newest weak-metric run's)");
    cmd->add_option("--project", o->project, "project file: its labels (derived sets) and its runs");
    cmd->add_option("--run", o->run, "with --project: this run instead of the newest weak-metric one");
    cmd->add_option("--fine", o->fine, "the fine label set (default: a set the coarse one groups, else 'fine')");
    cmd->add_option("--coarse", o->coarse, "the coarse label set (default: the one the run was trained on)");
    cmd->add_option("-k", o->k, "neighbours of neighbourhood purity")->capture_default_str()->check(CLI::PositiveNumber);
    cmd->add_option("--items", o->items, "items scored (stratified, test split first; 0 = all)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--json", o->json, "print the report as JSON");
}

/// The checkpoint and fine label set to report on: as given, or with --project the newest
/// weak-metric run's (or --run's). `ds` becomes the project's version of the dataset.
std::pair<std::string, std::string> pickRun(const SubstructureOpt& o, workspace::Workspace& ws,
                                            std::shared_ptr<const data::Dataset>& ds)
{
    std::string checkpoint = o.checkpoint, fine = o.fine;
    if (!o.project.empty()) {
        ws.openProject(o.project);
        ws.attach(std::move(ds), o.dataset);
        ds = ws.dataset();
        if (checkpoint.empty()) {
            const auto runs = workspace::weakMetricRuns(*ws.project(), ws.projectDatasetId(), *ds);
            const workspace::WeakMetricRun* pick = nullptr;
            for (const workspace::WeakMetricRun& w : runs)
                if (!pick && (o.run == 0 || w.runId == o.run))
                    pick = &w;
            if (!pick)
                throw std::invalid_argument(o.run ? "project " + o.project + ": run " + std::to_string(o.run) +
                                                        " is not a weak-metric run with a checkpoint"
                                                  : "project " + o.project + ": no weak-metric run with a checkpoint");
            checkpoint = pick->checkpoint;
            if (fine.empty() && o.coarse.empty())
                fine = pick->fineLabelSet;
        }
    }
    if (checkpoint.empty())
        throw std::invalid_argument("--checkpoint is required (or --project with a weak-metric run)");
    return {checkpoint, fine};
}

void printReport(const SubstructureOpt& o, const data::Dataset& ds, const std::string& checkpoint,
                 const workspace::SubstructureReport& r)
{
    if (o.json) {
        nlohmann::ordered_json out = {{"dataset", ds.name()},     {"checkpoint", checkpoint},
                                      {"fine", r.fineLabelSet},     {"coarse", r.coarseLabelSet},
                                      {"items", r.items.size()},    {"k", r.k},
                                      {"before", r.before.what},    {"after", r.after.what}};
        nlohmann::ordered_json values = nlohmann::ordered_json::array();
        for (const std::string& name : workspace::substructureMetricNames())
            values.push_back({{"name", name}, {"before", r.before.value(name)}, {"after", r.after.value(name)}});
        out["values"] = values;
        if (!r.note.empty())
            out["note"] = r.note;
        std::printf("%s\n", out.dump(2).c_str());
        return;
    }
    std::printf("'%s': trained on '%s', scored against '%s' on %zu items (each against the others)\n",
                ds.name().c_str(), r.coarseLabelSet.c_str(), r.fineLabelSet.c_str(), r.items.size());
    std::printf("before: %s\nafter:  %s\n", r.before.what.c_str(), r.after.what.c_str());
    std::printf("%-22s %8s %8s %9s\n", "", "before", "after", "change");
    for (const std::string& name : workspace::substructureMetricNames())
        std::printf("%-22s %8.4f %8.4f %+9.4f\n", name.c_str(), r.before.value(name), r.after.value(name),
                    r.after.value(name) - r.before.value(name));
    if (!r.note.empty())
        std::printf("note: %s\n", r.note.c_str());
}

int runSubstructure(CliContext& c, const SubstructureOpt& o)
{
    workspace::Workspace ws(c.registry);
    auto ds = c.openDataset(o.dataset);
    const auto [checkpoint, fine] = pickRun(o, ws, ds);
    workspace::SubstructureOptions opt;
    opt.fineLabelSet = fine;
    opt.coarseLabelSet = o.coarse;
    opt.k = o.k;
    opt.maxItems = o.items;
    opt.tsne.maxIterations = 250; // the maps are not printed: a short t-SNE keeps the command quick
    const workspace::SubstructureReport r = workspace::substructureOfCheckpoint(*ds, checkpoint, c.registry, opt, nullptr);
    printReport(o, *ds, checkpoint, r);
    return 0;
}

} // namespace

void addSubstructureCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand(
        "substructure", "What a weak-metric run kept of the fine labels (the GUI's Substructure view): neighbourhood "
                        "purity, nDCG and CSL w.r.t. the fine labels before (raw features, or the run's --init-from "
                        "network) and after training on a coarse label set, on a stratified subset of items");
    auto o = std::make_shared<SubstructureOpt>();
    addSubstructureFlags(cmd, o.get());
    cmd->callback([ctx, o, &rc] { rc = runSubstructure(ctx(), *o); });
}

} // namespace setscope::cli
