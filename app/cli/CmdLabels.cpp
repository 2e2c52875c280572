// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/data/Dataset.h"
#include "core/data/LabelMapping.h"
#include "core/project/LabelSets.h"
#include "core/project/ProjectStore.h"
#include "core/workspace/Workspace.h"

#include <setscope/sdk/Errors.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace setscope::cli {

namespace {

struct LabelsOptions {
    std::string project;
    std::string dataset;
    std::string labelSet;
    std::string mapping;
    std::string file;
};

/// The project (which must exist, except for derive/import, which create it) and the dataset
/// attached to it with the project's labels.
std::unique_ptr<workspace::Workspace> open(CliContext& c, const LabelsOptions& o, bool create)
{
    if (!create && !std::filesystem::exists(o.project))
        throw std::runtime_error(o.project + ": no such project file");
    auto ws = std::make_unique<workspace::Workspace>(c.registry);
    ws->openProject(o.project);
    ws->attach(c.openDataset(o.dataset), o.dataset);
    return ws;
}

project::LabelSetRecord requireSet(const project::ProjectStore& store, std::int64_t datasetId, const std::string& name)
{
    if (const auto r = store.findLabelSet(datasetId, name))
        return *r;
    std::string names;
    for (const auto& r : store.labelSets(datasetId))
        names += (names.empty() ? "" : ", ") + r.name;
    throw sdk::InputError("--label-set", "", "no label set '" + name + "' for this dataset (there are: " + names + ")");
}

void printDerived(const project::DerivedLabelSet& d, const std::string& name, const std::string& project)
{
    if (d.created)
        std::printf("created label set '%s' (id %lld) in %s\n", name.c_str(), static_cast<long long>(d.labelSetId),
                    project.c_str());
    else if (d.editId)
        std::printf("label set '%s': %lld items changed in edit %lld (undo: setscope-cli labels undo)\n", name.c_str(),
                    static_cast<long long>(d.changed), static_cast<long long>(d.editId));
    else
        std::printf("label set '%s': no label changed\n", name.c_str());
    for (const auto& c : d.addedClasses)
        std::printf("  new class '%s'\n", c.c_str());
}

/// What every `labels` subcommand shares: the options, the context, the exit code, and the
/// --project / --dataset options each one requires.
struct LabelsCommand {
    CLI::App* cmd;
    ContextFn ctx;
    std::shared_ptr<LabelsOptions> o;
    int* rc;
    void common(CLI::App* sub) const
    {
        sub->add_option("--project", o->project, "project file (*.setscope)")->required();
        sub->add_option("--dataset", o->dataset, "dataset name or path")->required();
    }
};

void addLabelsList(const LabelsCommand& c)
{
    CLI::App* cmd = c.cmd;
    const ContextFn& ctx = c.ctx;
    const auto& o = c.o;
    int& rc = *c.rc;
    auto* list = cmd->add_subcommand("list", "The dataset's label sets: classes, items per class, edits, mapping");
    c.common(list);
    list->callback([ctx, o, &rc] {
        const auto ws = open(ctx(), *o, false);
        for (const auto& r : ws->project()->labelSets(ws->projectDatasetId())) {
            const data::LabelSet& ls = ws->dataset()->requireLabelSet(r.name);
            const auto hist = ws->project()->history(r.id);
            int undone = 0;
            for (const auto& e : hist)
                undone += e.undone;
            std::printf("%s: %zu classes, %zu unlabelled, %zu edits (%d undone)", r.name.c_str(), r.classNames.size(),
                        ls.unlabelledCount(), hist.size(), undone);
            if (const auto m = ws->project()->labelMapping(r.id))
                std::printf(", derived from '%s'", m->source.c_str());
            std::printf("\n");
            const auto counts = ls.counts();
            for (std::size_t k = 0; k < r.classNames.size(); ++k)
                std::printf("  %3zu  %-24s %zu\n", k, r.classNames[k].c_str(), k < counts.size() ? counts[k] : 0);
        }
        rc = 0;
    });
}

void addLabelsDerive(const LabelsCommand& c)
{
    CLI::App* cmd = c.cmd;
    const ContextFn& ctx = c.ctx;
    const auto& o = c.o;
    int& rc = *c.rc;
    auto* derive = cmd->add_subcommand("derive", "Create or re-derive a label set from another by a mapping file "
                                                 "(JSON, docs/LABELS.md); a re-derive is one undoable edit");
    c.common(derive);
    derive->add_option("--mapping", o->mapping, "mapping file (JSON: name, from, classes)")->required();
    derive->callback([ctx, o, &rc] {
        const data::LabelMapping m = data::readLabelMapping(o->mapping);
        const auto ws = open(ctx(), *o, true);
        const auto d = project::deriveLabelSet(*ws->project(), ws->projectDatasetId(), *ws->dataset(), m);
        printDerived(d, m.name, o->project);
        rc = 0;
    });
}

void addLabelsMapping(const LabelsCommand& c)
{
    CLI::App* cmd = c.cmd;
    const ContextFn& ctx = c.ctx;
    const auto& o = c.o;
    int& rc = *c.rc;
    auto* mapping = cmd->add_subcommand("mapping", "Print the mapping a label set was derived by (JSON; edit it and "
                                                   "derive again)");
    c.common(mapping);
    mapping->add_option("--label-set", o->labelSet, "label set")->required();
    mapping->callback([ctx, o, &rc] {
        const auto ws = open(ctx(), *o, false);
        const auto r = requireSet(*ws->project(), ws->projectDatasetId(), o->labelSet);
        const auto m = ws->project()->labelMapping(r.id);
        if (!m)
            throw std::runtime_error("label set '" + o->labelSet + "' was not derived by a mapping");
        std::printf("%s", m->mappingJson.c_str());
        rc = 0;
    });
}

void addLabelsExport(const LabelsCommand& c)
{
    CLI::App* cmd = c.cmd;
    const ContextFn& ctx = c.ctx;
    const auto& o = c.o;
    int& rc = *c.rc;
    auto* exp = cmd->add_subcommand("export", "Write a label set as CSV (item,<label set>; unlabelled items left out)");
    c.common(exp);
    exp->add_option("--label-set", o->labelSet, "label set")->required();
    exp->add_option("--out", o->file, "CSV file to write")->required();
    exp->callback([ctx, o, &rc] {
        const auto ws = open(ctx(), *o, false);
        const auto r = requireSet(*ws->project(), ws->projectDatasetId(), o->labelSet);
        const auto labels = ws->project()->labels(r.id);
        project::writeLabelCsv(o->file, r.name, r.classNames, labels);
        std::size_t labelled = 0;
        for (const auto l : labels)
            labelled += l >= 0;
        std::printf("wrote %s (%zu labelled items of %zu)\n", o->file.c_str(), labelled, labels.size());
        rc = 0;
    });
}

void addLabelsImport(const LabelsCommand& c)
{
    CLI::App* cmd = c.cmd;
    const ContextFn& ctx = c.ctx;
    const auto& o = c.o;
    int& rc = *c.rc;
    auto* imp = cmd->add_subcommand("import", "Set a label set from CSV (item,<class name>): creates it, or changes "
                                              "the items that differ in one undoable edit; items not in the file "
                                              "become unlabelled");
    c.common(imp);
    imp->add_option("--label-set", o->labelSet, "label set")->required();
    imp->add_option("--in", o->file, "CSV file to read")->required();
    imp->callback([ctx, o, &rc] {
        const auto ws = open(ctx(), *o, true);
        std::vector<std::string> classes;
        if (const auto r = ws->project()->findLabelSet(ws->projectDatasetId(), o->labelSet))
            classes = r->classNames;
        const auto labels =
            project::readLabelCsv(o->file, static_cast<std::int64_t>(ws->dataset()->size()), classes);
        const auto d = project::writeLabelSet(*ws->project(), ws->projectDatasetId(), o->labelSet, classes, labels,
                                              "imported from " + std::filesystem::path(o->file).filename().string());
        printDerived(d, o->labelSet, o->project);
        rc = 0;
    });
}

void addLabelsUndoRedo(const LabelsCommand& c)
{
    CLI::App* cmd = c.cmd;
    const ContextFn& ctx = c.ctx;
    const auto& o = c.o;
    int& rc = *c.rc;
    for (const bool forward : {false, true}) {
        auto* sub = cmd->add_subcommand(forward ? "redo" : "undo",
                                        forward ? "Re-apply the earliest undone edit of a label set"
                                                : "Revert the latest edit of a label set");
        c.common(sub);
        sub->add_option("--label-set", o->labelSet, "label set")->required();
        sub->callback([ctx, o, forward, &rc] {
            const auto ws = open(ctx(), *o, false);
            const auto r = requireSet(*ws->project(), ws->projectDatasetId(), o->labelSet);
            const auto hist = ws->project()->history(r.id);
            const bool done = forward ? ws->project()->redo(r.id) : ws->project()->undo(r.id);
            if (!done) {
                std::printf("label set '%s': nothing to %s\n", r.name.c_str(), forward ? "redo" : "undo");
                rc = 1;
                return;
            }
            // The edit just replayed: the earliest undone one (redo) or the latest live one (undo).
            std::string what;
            for (const auto& e : hist)
                if (forward ? (e.undone && what.empty()) : !e.undone)
                    what = e.description;
            std::printf("label set '%s': %s \"%s\"\n", r.name.c_str(), forward ? "redid" : "undid", what.c_str());
            rc = 0;
        });
    }
}

} // namespace

void addLabelsCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("labels", "List, derive (coarse from fine, by a mapping file), import, export, undo "
                                             "and redo the label sets of a dataset in a project");
    cmd->require_subcommand(1);
    const LabelsCommand c{cmd, std::move(ctx), std::make_shared<LabelsOptions>(), &rc};
    addLabelsList(c);
    addLabelsDerive(c);
    addLabelsMapping(c);
    addLabelsExport(c);
    addLabelsImport(c);
    addLabelsUndoRedo(c);
}

} // namespace setscope::cli
