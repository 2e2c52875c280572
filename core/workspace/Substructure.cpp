// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/Substructure.h"

#include "core/data/Dataset.h"
#include "core/data/SetMeans.h"
#include "core/job/Job.h"
#include "core/model/ModelHandle.h"
#include "core/project/ProjectStore.h"
#include "core/train/SnapshotSubset.h"
#include "core/train/TrainedModel.h"
#include "core/workspace/ItemText.h"
#include "core/workspace/Models.h"
#include "core/workspace/Retrieval.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

namespace setscope::workspace {

namespace {

using Progress = std::function<void(std::int64_t, std::int64_t, const std::string&)>;

std::string labelSetNames(const data::Dataset& ds)
{
    std::string out;
    for (const data::LabelSet& ls : ds.labelSets())
        out += (out.empty() ? "" : ", ") + ls.name;
    return out.empty() ? "none" : out;
}

int classesInUse(const data::LabelSet& ls)
{
    int n = 0;
    for (const std::size_t c : ls.counts())
        n += c > 0 ? 1 : 0;
    return n;
}

/// The fine classes (by name) that have items in more than one coarse class.
std::vector<std::string> splitClasses(const data::LabelSet& fine, const data::LabelSet& coarse)
{
    std::vector<std::int32_t> target(fine.classNames.size(), -1);
    std::vector<bool> split(fine.classNames.size(), false);
    for (std::size_t i = 0; i < fine.labels.size() && i < coarse.labels.size(); ++i) {
        const std::int32_t f = fine.labels[i], c = coarse.labels[i];
        if (f < 0 || c < 0)
            continue;
        std::int32_t& t = target[static_cast<std::size_t>(f)];
        if (t < 0)
            t = c;
        else if (t != c)
            split[static_cast<std::size_t>(f)] = true;
    }
    std::vector<std::string> out;
    for (std::size_t f = 0; f < split.size(); ++f)
        if (split[f])
            out.push_back(fine.classNames[f]);
    return out;
}

/// The fine set for `coarse`: the first of finerLabelSets(), else a set called "fine".
std::string fineFor(const data::Dataset& ds, const std::string& coarse)
{
    const std::vector<std::string> finer = finerLabelSets(ds, coarse);
    if (!finer.empty())
        return finer.front();
    if (coarse != "fine" && ds.labelSet("fine"))
        return "fine";
    return {};
}

} // namespace

double SubstructureSide::value(const std::string& name) const
{
    for (const eval::MetricValue& v : metrics)
        if (v.name == name)
            return v.value;
    return std::numeric_limits<double>::quiet_NaN();
}

const std::vector<std::string>& substructureMetricNames()
{
    static const std::vector<std::string> names{"neighbourhood-purity", "ndcg", "csl-average", "csl-total"};
    return names;
}

std::vector<std::string> finerLabelSets(const data::Dataset& ds, const std::string& coarse)
{
    const data::LabelSet* c = ds.labelSet(coarse);
    if (!c)
        return {};
    const int coarseClasses = classesInUse(*c);
    std::vector<std::pair<int, std::string>> found;
    for (const data::LabelSet& ls : ds.labelSets()) {
        if (ls.name == coarse)
            continue;
        const int n = classesInUse(ls);
        if (n > coarseClasses && splitClasses(ls, *c).empty())
            found.emplace_back(n, ls.name);
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> out;
    for (auto& f : found)
        out.push_back(std::move(f.second));
    return out;
}

std::vector<float> inputFeaturesOf(const data::Dataset& ds, const std::vector<std::int64_t>& items)
{
    for (const std::int64_t i : items)
        requireItem(ds, i);
    return data::weightedMeans(ds, items);
}

eval::Dendrogram fineClassTree(const data::Dataset& ds, const std::string& fine)
{
    const data::LabelSet& f = ds.requireLabelSet(fine);
    const std::int64_t n = static_cast<std::int64_t>(ds.size());
    if (ds.isVectorDataset())
        return eval::classMeanDendrogram({ds.values().data(), n, ds.dim()}, f.labels);
    std::vector<std::int64_t> all(ds.size());
    std::iota(all.begin(), all.end(), 0);
    const std::vector<float> means = inputFeaturesOf(ds, all);
    return eval::classMeanDendrogram({means.data(), n, ds.dim()}, f.labels);
}

std::vector<eval::MetricValue> substructureScores(const data::Dataset& ds, const std::vector<std::int64_t>& items,
                                                  const std::vector<float>& embedding, int dim, const std::string& fine,
                                                  const std::string& coarse, int k, const eval::Dendrogram& tree,
                                                  job::JobControl* control)
{
    const std::int64_t n = static_cast<std::int64_t>(items.size());
    if (dim <= 0 || embedding.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(dim))
        throw std::invalid_argument("substructure scores: the embedding has " + std::to_string(embedding.size()) +
                                    " values for " + std::to_string(n) + " items of dimension " + std::to_string(dim));
    const data::LabelSet& f = ds.requireLabelSet(fine);
    const data::LabelSet& c = ds.requireLabelSet(coarse);
    std::vector<std::int32_t> fineLabels(items.size()), coarseLabels(items.size());
    for (std::size_t r = 0; r < items.size(); ++r) {
        const std::size_t i = requireItem(ds, items[r]);
        fineLabels[r] = f.labels[i];
        coarseLabels[r] = c.labels[i];
    }
    eval::MetricInput in;
    in.embedding = {embedding.data(), n, dim};
    in.labels = &fineLabels;
    in.coarseLabels = &coarseLabels;
    in.queries.resize(items.size());
    std::iota(in.queries.begin(), in.queries.end(), 0);
    in.references = in.queries;
    in.leaveOneOut = true;
    in.protocol = "leave-one-out";
    in.control = control;
    const eval::MetricRegistry& registry = eval::builtinMetrics();
    std::vector<eval::MetricValue> out = registry.compute("neighbourhood-purity", in, {{"k", std::to_string(k)}});
    const std::vector<eval::MetricValue> ndcg = registry.compute("ndcg", in);
    out.insert(out.end(), ndcg.begin(), ndcg.end());
    // CSL on the whole dataset's class tree (the registry's csl builds it from the rows it is
    // given, here only the scored items).
    const eval::CslResult r = eval::contextSensitiveLoss(in.embedding, fineLabels, tree, 1,
                                                         eval::CslPrediction::Neighbours, control);
    const std::string what = "the nearest neighbour as ŷ, average-linkage dendrogram of the input class means, " +
                             std::to_string(r.predictions) + " predictions, " + std::to_string(r.wrong) +
                             " wrong (seed 003 §4.4)";
    out.push_back({"csl-average", r.average, "mean LCA height (root = 1) of the wrong predictions, " + what});
    out.push_back({"csl-total", r.total, "mean CSL over all predictions (0 when right), " + what});
    return out;
}

SubstructureReport substructureReport(const data::Dataset& ds, const model::ModelHandle& after,
                                      const model::ModelHandle* before, const SubstructureOptions& options,
                                      job::JobControl* control, const Progress& progress)
{
    auto report = [&](std::int64_t d, std::int64_t t, const std::string& w) {
        if (progress)
            progress(d, t, w);
    };
    auto poll = [&] {
        if (control)
            control->checkpoint();
    };
    SubstructureReport out;
    out.k = options.k;
    out.coarseLabelSet = options.coarseLabelSet.empty() ? after.labelSet() : options.coarseLabelSet;
    if (!ds.labelSet(out.coarseLabelSet))
        throw std::invalid_argument("the run was trained on label set '" + out.coarseLabelSet + "', which dataset '" +
                                    ds.name() + "' does not have (it has: " + labelSetNames(ds) + ")");
    out.fineLabelSet = options.fineLabelSet.empty() ? fineFor(ds, out.coarseLabelSet) : options.fineLabelSet;
    const std::string weakHint = "the substructure view needs a weak-metric run (trained on labels that group the fine "
                                 "ones, e.g. setscope-cli train --coarse MAP or --label-set coarse)";
    if (out.fineLabelSet.empty() && ds.labelSets().size() > 1)
        throw std::invalid_argument("the run was trained on '" + out.coarseLabelSet +
                                    "', which groups none of the other label sets of dataset '" + ds.name() +
                                    "' (it has: " + labelSetNames(ds) + "): not on a coarse label set; " + weakHint);
    if (out.fineLabelSet.empty())
        throw std::invalid_argument("dataset '" + ds.name() + "' has no fine label set for '" + out.coarseLabelSet +
                                    "': no other label set has classes that '" + out.coarseLabelSet +
                                    "' groups, and none is called 'fine' (it has: " + labelSetNames(ds) + ")");
    const data::LabelSet* fine = ds.labelSet(out.fineLabelSet);
    if (!fine)
        throw std::invalid_argument("dataset '" + ds.name() + "' has no label set '" + out.fineLabelSet +
                                    "' (it has: " + labelSetNames(ds) + ")");
    if (out.fineLabelSet == out.coarseLabelSet)
        throw std::invalid_argument("the run was trained on '" + out.coarseLabelSet +
                                    "' itself, not on a coarse label set: " + weakHint);
    if (options.k < 1)
        throw std::invalid_argument("substructure: k must be at least 1, got " + std::to_string(options.k));
    const data::LabelSet& coarse = ds.requireLabelSet(out.coarseLabelSet);
    const std::vector<std::string> split = splitClasses(*fine, coarse);
    if (!split.empty()) {
        std::string names;
        for (const std::string& s : split)
            names += (names.empty() ? "'" : ", '") + s + "'";
        out.note = "'" + out.coarseLabelSet + "' does not group '" + out.fineLabelSet + "': the items of " + names +
                   " are in more than one of its classes";
    }
    if (const std::string why = modelMismatch(after, ds); !why.empty())
        throw std::invalid_argument(why);
    if (before)
        if (const std::string why = modelMismatch(*before, ds, true); !why.empty())
            throw std::invalid_argument("the run's initial network: " + why);

    // The scored items: labelled in the fine set (purity and CSL need a label), stratified.
    std::vector<std::int32_t> stratum = fine->labels;
    for (const std::int64_t i : train::snapshotSubset(ds, stratum, options.maxItems, options.seed))
        if (fine->labels[static_cast<std::size_t>(i)] >= 0)
            out.items.push_back(i);
    if (out.items.size() < 3)
        throw std::invalid_argument("substructure: fewer than 3 items with a '" + out.fineLabelSet + "' label to score");
    poll();

    report(0, 0, "the fine classes' tree");
    const eval::Dendrogram tree = fineClassTree(ds, out.fineLabelSet);
    poll();
    report(0, 0, "embedding " + std::to_string(out.items.size()) + " items");
    if (before) {
        out.before.embedding = before->embed(ds, out.items, control);
        out.before.dim = before->dim();
        out.before.what = "the run's initial network (step " + std::to_string(before->step()) + ")";
    } else {
        out.before.embedding = inputFeaturesOf(ds, out.items);
        out.before.raw = true;
        out.before.dim = ds.dim();
        out.before.what = std::string("raw input features (") + std::to_string(ds.dim()) + "-d" +
                          (ds.isVectorDataset() ? ")" : ", the weighted mean point of each set)");
    }
    out.after.embedding = after.embed(ds, out.items, control);
    out.after.dim = after.dim();
    out.after.what = "trained on '" + out.coarseLabelSet + "' (step " + std::to_string(after.step()) + ")";

    const std::int64_t n = static_cast<std::int64_t>(out.items.size());
    const int iterations = options.tsne.maxIterations;
    int sideIndex = 0;
    for (SubstructureSide* side : {&out.before, &out.after}) {
        const std::string name = sideIndex == 0 ? "before" : "after";
        poll();
        report(0, 0, "scoring the map " + name + " training");
        side->metrics = substructureScores(ds, out.items, side->embedding, side->dim, out.fineLabelSet,
                                           out.coarseLabelSet, options.k, tree, control);
        report(0, 0, "t-SNE affinities " + name + " training");
        layout::FastTsne tsne(side->embedding.data(), n, side->dim, options.tsne, control);
        while (!tsne.done()) {
            tsne.step(25, control);
            report(static_cast<std::int64_t>(sideIndex) * iterations + tsne.iteration(), 2LL * iterations,
                   "t-SNE " + name + " training");
        }
        side->map.items = out.items;
        side->map.xy = tsne.embedding();
        side->map.iteration = tsne.iteration();
        side->map.converged = true;
        ++sideIndex;
    }
    out.before.map.sourceStep = before ? before->step() : 0;
    out.after.map.sourceStep = after.step();
    return out;
}

SubstructureReport substructureOfCheckpoint(const data::Dataset& ds, const std::string& checkpoint,
                                            const plugin::Registry& registry, const SubstructureOptions& options,
                                            job::JobControl* control, const Progress& progress)
{
    if (progress)
        progress(0, 0, "loading " + std::filesystem::path(checkpoint).filename().string());
    // The trained model itself: its configuration says which checkpoint it started from.
    const auto after = train::TrainedModel::fromCheckpoint(checkpoint, registry, control);
    std::shared_ptr<const model::ModelHandle> before;
    const std::string& init = after->config().initFrom;
    std::error_code ec;
    if (!init.empty() && std::filesystem::is_regular_file(init, ec))
        before = openModel(init, registry, control);
    SubstructureReport out = substructureReport(ds, *after, before.get(), options, control, progress);
    out.after.what = std::filesystem::path(checkpoint).filename().string() + ", " + out.after.what;
    if (before)
        out.before.what = "the run's initial network, " + std::filesystem::path(init).filename().string() + " (step " +
                          std::to_string(before->step()) + ")";
    else if (!init.empty())
        out.before.what += "; the run's initial network " + init + " is gone";
    return out;
}

std::unique_ptr<job::TaskJob<SubstructureReport>> makeSubstructureJob(std::shared_ptr<const data::Dataset> dataset,
                                                                      std::string checkpoint,
                                                                      const plugin::Registry& registry,
                                                                      SubstructureOptions options)
{
    const std::string what = "substructure of " + std::filesystem::path(checkpoint).filename().string();
    return std::make_unique<job::TaskJob<SubstructureReport>>(
        what, [dataset = std::move(dataset), checkpoint = std::move(checkpoint), &registry,
               options = std::move(options)](job::JobControl& control, const auto& progress) {
            return substructureOfCheckpoint(*dataset, checkpoint, registry, options, &control, progress);
        });
}

std::vector<WeakMetricRun> weakMetricRuns(const project::ProjectStore& store, std::int64_t datasetId,
                                          const data::Dataset& ds)
{
    namespace fs = std::filesystem;
    std::vector<WeakMetricRun> out;
    for (const project::RunRecord& run : store.runs()) {
        if (run.datasetId != datasetId)
            continue;
        const auto cps = store.checkpoints(run.id);
        if (cps.empty())
            continue;
        nlohmann::json config;
        try {
            config = nlohmann::json::parse(run.configJson);
        } catch (const nlohmann::json::exception&) {
            continue; // not a configuration this build reads: not listed
        }
        WeakMetricRun w;
        w.runId = run.id;
        w.status = run.status;
        w.coarseLabelSet = config.value("label_set", std::string("fine"));
        w.recipe = config.value("recipe", std::string());
        if (w.recipe.empty())
            w.recipe = config.value("loss", std::string());
        if (!ds.labelSet(w.coarseLabelSet))
            continue;
        if (const auto ls = store.findLabelSet(datasetId, w.coarseLabelSet))
            if (const auto mapping = store.labelMapping(ls->id); mapping && ds.labelSet(mapping->source))
                w.fineLabelSet = mapping->source;
        if (w.fineLabelSet.empty())
            w.fineLabelSet = fineFor(ds, w.coarseLabelSet);
        if (w.fineLabelSet.empty() || w.fineLabelSet == w.coarseLabelSet)
            continue;
        const project::CheckpointRecord& last = cps.back();
        w.step = last.step;
        std::error_code ec;
        const fs::path best = fs::path(last.path).parent_path() / "best.pt";
        w.checkpoint = fs::is_regular_file(best, ec) ? best.string() : last.path;
        const std::string init = config.value("init_from", std::string());
        w.fromInitial = !init.empty() && fs::is_regular_file(init, ec);
        out.push_back(std::move(w));
    }
    std::reverse(out.begin(), out.end());
    return out;
}

} // namespace setscope::workspace
