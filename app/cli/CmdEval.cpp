// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/data/Dataset.h"
#include "core/eval/Metrics.h"
#include "core/train/TrainingJob.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

namespace setscope::cli {

namespace {

struct EvalOpt {
    std::string dataset, checkpoint, labelSet = "fine", coarse;
    std::vector<std::string> metrics, options;
    int threads = 0, k = 0;
    bool json = false, list = false;
};

void addEvalFlags(CLI::App* cmd, EvalOpt* o)
{
    cmd->add_option("--dataset", o->dataset, "dataset name or path");
    cmd->add_option("--checkpoint", o->checkpoint, "checkpoint to evaluate (default: the raw vectors)");
    cmd->add_option("--label-set", o->labelSet, "labels to score against")->capture_default_str();
    cmd->add_option("--metrics", o->metrics,
                    "metrics to compute, comma-separated (knn-accuracy, recall-hit, recall-class, precision, "
                    "neighbourhood-purity, ndcg, csl, nmi, emd-mse, kde-discrepancy; `--list` shows them with their "
                    "options); default: the standard scores of every training epoch")
        ->delimiter(',');
    cmd->add_option("--option", o->options,
                    "METRIC.KEY=VALUE: an option of one metric (repeatable), e.g. knn-accuracy.k=5, recall-class.ks=1,5,15 "
                    "(quote it), kde-discrepancy.sigma=0.5");
    cmd->add_option("--coarse", o->coarse,
                    "label set that groups --label-set (e.g. coarse), for ndcg and csl tree=coarse (seed 003)");
    cmd->add_option("-k", o->k, "kNN neighbours (short for --option knn-accuracy.k=K)")->check(CLI::PositiveNumber);
    cmd->add_option("--threads", o->threads, "threads for exact EMD (0 = all cores)")->capture_default_str();
    cmd->add_flag("--json", o->json, "print the values as JSON");
    cmd->add_flag("--list", o->list, "list the metrics and their options, then stop");
}

void listMetrics(const eval::MetricRegistry& registry)
{
    for (const eval::MetricDefinition& d : registry.all()) {
        std::printf("%-16s %s%s%s\n", d.name.c_str(), d.doc.c_str(), d.needsExactEmd ? " [exact EMD]" : "",
                    d.needsCoarseLabels ? " [--coarse]" : "");
        for (const sdk::OptionSpec& s : d.options)
            std::printf("    %-14s %s (%s, default %s)\n", s.name.c_str(), s.doc.c_str(), sdk::optionTypeName(s.type),
                        s.defaultValue.c_str());
    }
}

/// The flags as an eval::MetricRequest (the exact EMDs computed when a metric needs them).
eval::MetricRequest metricRequest(const EvalOpt& o, const data::Dataset& ds, const eval::MetricRegistry& registry)
{
    eval::MetricRequest request = o.metrics.empty() ? eval::standardMetrics() : eval::MetricRequest{};
    if (!o.metrics.empty())
        request.metrics = o.metrics;
    for (const std::string& opt : o.options) {
        const auto dot = opt.find('.');
        const auto eq = opt.find('=');
        if (dot == std::string::npos || eq == std::string::npos || eq < dot || dot == 0)
            throw std::invalid_argument("--option expects METRIC.KEY=VALUE, got '" + opt + "'");
        request.options[opt.substr(0, dot)][opt.substr(dot + 1, eq - dot - 1)] = opt.substr(eq + 1);
    }
    if (o.k > 0)
        request.options["knn-accuracy"]["k"] = std::to_string(o.k);
    for (const std::string& name : request.metrics)
        if (registry.require(name).needsExactEmd)
            request.exactEmd = eval::exactEmdOf(ds);
    request.threads = o.threads;
    request.coarseLabelSet = o.coarse;
    return request;
}

void printValues(const EvalOpt& o, const data::Dataset& ds, const std::string& what,
                 const std::vector<eval::MetricValue>& values)
{
    if (o.json) {
        nlohmann::ordered_json out = {{"dataset", ds.name()}, {"embedding", what}, {"label_set", o.labelSet}};
        if (!o.coarse.empty())
            out["coarse_label_set"] = o.coarse;
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const eval::MetricValue& v : values)
            list.push_back({{"name", v.name}, {"value", v.value}, {"doc", v.doc}});
        out["values"] = list;
        std::printf("%s\n", out.dump(2).c_str());
        return;
    }
    std::printf("%s on '%s' (label set '%s'%s)\n", what.c_str(), ds.name().c_str(), o.labelSet.c_str(),
                o.coarse.empty() ? "" : (", coarse '" + o.coarse + "'").c_str());
    for (const eval::MetricValue& v : values)
        std::printf("%-18s %.4f   %s\n", v.name.c_str(), v.value, v.doc.c_str());
}

int runEval(CliContext& c, const EvalOpt& o)
{
    const eval::MetricRegistry& registry = eval::builtinMetrics();
    if (o.list) {
        listMetrics(registry);
        return 0;
    }
    if (o.dataset.empty())
        throw std::invalid_argument("--dataset is required (or --list)");
    const auto ds = c.openDataset(o.dataset);
    const eval::MetricRequest request = metricRequest(o, *ds, registry);
    if (o.checkpoint.empty()) {
        printValues(o, *ds, "raw vectors", eval::evaluateRawMetrics(*ds, o.labelSet, request));
    } else {
        const train::Embeddings e = train::embedWithCheckpoint(o.checkpoint, *ds, c.registry);
        printValues(o, *ds, o.checkpoint, eval::evaluateMetrics(*ds, e.data.data(), e.dim, o.labelSet, request));
    }
    return 0;
}

} // namespace

void addEvalCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("eval", "Score raw vectors or a checkpoint's embedding with the named metrics of "
                                           "docs/METRICS.md (default: kNN accuracy, both Recall@K and precision@K)");
    auto o = std::make_shared<EvalOpt>();
    addEvalFlags(cmd, o.get());
    cmd->callback([ctx, o, &rc] { rc = runEval(ctx(), *o); });
}

} // namespace setscope::cli
