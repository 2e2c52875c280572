// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `retrieve`: the top K of one item by a checkpoint's embedding and by exact EMD, side by
// side, with the time each path takes (seed 001 §7.7: embedding search against EMD search).
#include "CliContext.h"
#include "Commands.h"
#include "ConsoleSink.h"

#include "core/data/Dataset.h"
#include "core/model/ModelHandle.h"
#include "core/workspace/Models.h"
#include "core/workspace/Retrieval.h"

#include <setscope/sdk/Errors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace setscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// "0.35 ms", "1.2 s": query-time numbers span microseconds to minutes.
std::string formatDuration(double s)
{
    char buf[32];
    if (s < 1e-3)
        std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    else if (s < 1.0)
        std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
    else if (s < 60)
        std::snprintf(buf, sizeof buf, "%.2f s", s);
    else
        return formatSeconds(s);
    return buf;
}

/// The model's side besides the query: its width and the once-for-all-queries costs.
struct ModelCosts {
    int dim = 0;
    double loadSeconds = 0.0;
    double databaseSeconds = 0.0;
};

struct RetrieveOpt {
    std::string dataset, checkpoint, candidates = "train", labelSet = "fine";
    std::int64_t query = -1;
    int k = 10;
    int threads = 0;
    bool bruteForce = false, json = false, otherData = false;
};

void addRetrieveFlags(CLI::App* cmd, RetrieveOpt* o)
{
    cmd->add_option("--dataset", o->dataset, "dataset name or path")->required();
    cmd->add_option("--checkpoint", o->checkpoint, "checkpoint trained on this dataset (setscope-cli train)")->required();
    cmd->add_option("--query", o->query, "query item (index into the dataset)")->required();
    cmd->add_option("--k", o->k, "neighbours")->capture_default_str()->check(CLI::PositiveNumber);
    cmd->add_option("--candidates", o->candidates, "train (the train split; every item when there is none) | all")
        ->capture_default_str();
    cmd->add_option("--label-set", o->labelSet, "labels to show and compare")->capture_default_str();
    cmd->add_option("--threads", o->threads, "threads of the exact search (0 = all cores)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--brute-force", o->bruteForce, "exact EMD to every candidate instead of the pruned search");
    cmd->add_flag("--allow-other-data", o->otherData,
                  "use a checkpoint trained on other data of the same dimension (transfer)");
    cmd->add_flag("--json", o->json, "print the result as JSON");
}

void printRetrievalJson(const RetrieveOpt& o, const data::Dataset& ds, std::size_t q, const workspace::RetrievalResult& r,
                        const ModelCosts& m)
{
    auto list = [&](const std::vector<workspace::RetrievalHit>& hits, const char* key) {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < hits.size(); ++i)
            a.push_back({{"rank", i + 1},
                         {"item", hits[i].item},
                         {"label", labelOf(ds, static_cast<std::size_t>(hits[i].item), o.labelSet)},
                         {key, hits[i].distance},
                         {"same_label", hits[i].sameLabel},
                         {"in_both", hits[i].inBoth}});
        return a;
    };
    auto score = [](const workspace::RetrievalScore& s) {
        return nlohmann::ordered_json{
            {"recall_hit", s.recallHit}, {"recall_class", s.recallClass}, {"precision", s.precision}};
    };
    nlohmann::ordered_json out = {
        {"dataset", ds.name()},
        {"checkpoint", o.checkpoint},
        {"query", {{"item", q}, {"label", labelOf(ds, q, o.labelSet)}, {"elements", ds.setSize(q)}}},
        {"k", r.k},
        {"candidates", r.candidates},
        {"label_set", o.labelSet},
        {"embedding",
         {{"distance", "euclidean"},
          {"dim", m.dim},
          {"neighbours", list(r.byEmbedding, "distance")},
          {"same_label", r.embeddingScore.correct},
          {"scores", score(r.embeddingScore)},
          {"seconds", {{"encode", r.encodeSeconds}, {"search", r.searchSeconds}, {"total", r.embeddingSeconds()}}},
          {"load_seconds", m.loadSeconds},
          {"database_seconds", m.databaseSeconds}}},
        {"exact",
         {{"method", r.exactMethod},
          {"threads", r.threads},
          {"neighbours", list(r.byEmd, "emd")},
          {"same_label", r.emdScore.correct},
          {"scores", score(r.emdScore)},
          {"exact_solves", r.exactStats.exactSolves},
          {"pruned_by_wcd", r.exactStats.prunedByWcd},
          {"pruned_by_rwmd", r.exactStats.prunedByRwmd},
          {"seconds", {{"emd", r.exactSeconds}}}}},
        {"overlap", r.overlap}};
    std::printf("%s\n", out.dump(2).c_str());
}

void printRetrievalTable(const RetrieveOpt& o, const data::Dataset& ds, std::size_t q, const workspace::RetrievalResult& r,
                         const ModelCosts& m)
{
    const int k = r.k;
    const double embeddingS = r.embeddingSeconds();
    std::printf("query %zu (label %s, %zu elements) in '%s': %d nearest of %zu candidates (%s)\n", q,
                labelOf(ds, q, o.labelSet).c_str(), ds.setSize(q), ds.name().c_str(), k, static_cast<std::size_t>(r.candidates),
                r.pool == "train split" ? "train split" : "every item");
    std::printf("embedding: %s (%d-d, Euclidean distance); exact: EMD, %s search\n", o.checkpoint.c_str(), m.dim,
                r.exactMethod.c_str());
    std::printf("* same label as the query   = in both lists\n\n");
    std::printf("%4s   %-33s   %s\n", "rank", "by embedding", "by exact EMD");
    std::printf("%4s   %-1s %8s %-10s %9s %1s   %-1s %8s %-10s %9s\n", "", "", "item", "label", "distance", "", "",
                "item", "label", "EMD");
    auto cell = [&](const workspace::RetrievalHit& h) {
        std::string label = labelOf(ds, static_cast<std::size_t>(h.item), o.labelSet);
        if (label.size() > 10)
            label = label.substr(0, 9) + "~";
        char buf[96];
        std::snprintf(buf, sizeof buf, "%-1s %8lld %-10s %9.6g %1s", h.sameLabel ? "*" : "",
                      static_cast<long long>(h.item), label.c_str(), h.distance, h.inBoth ? "=" : "");
        return std::string(buf);
    };
    for (std::size_t i = 0; i < static_cast<std::size_t>(k); ++i) {
        const std::string a = i < r.byEmbedding.size() ? cell(r.byEmbedding[i]) : "";
        const std::string b = i < r.byEmd.size() ? cell(r.byEmd[i]) : "";
        char buf[160];
        std::snprintf(buf, sizeof buf, "%4zu   %-33s   %s", i + 1, a.c_str(), b.c_str());
        std::string line = buf;
        while (!line.empty() && line.back() == ' ') // no trailing blanks when a row has no marks
            line.pop_back();
        std::printf("%s\n", line.c_str());
    }
    std::printf("\nin both lists: %d of %d; same label: embedding %d, exact %d\n", r.overlap, k,
                r.embeddingScore.correct, r.emdScore.correct);
    if (r.queryLabelled)
        std::printf("recall-hit@%d / recall-class@%d / precision@%d (docs/METRICS.md): embedding %.0f / %.4f / %.2f, "
                    "exact %.0f / %.4f / %.2f\n",
                    k, k, k, r.embeddingScore.recallHit, r.embeddingScore.recallClass, r.embeddingScore.precision,
                    r.emdScore.recallHit, r.emdScore.recallClass, r.emdScore.precision);
    std::printf("time, embedding: %s = encode the query %s + search %s (FAISS, exact L2); loading the model "
                "(%s) and embedding the database (%s), once for all queries, not counted\n",
                formatDuration(embeddingS).c_str(), formatDuration(r.encodeSeconds).c_str(),
                formatDuration(r.searchSeconds).c_str(),
                formatDuration(m.loadSeconds).c_str(), formatDuration(m.databaseSeconds).c_str());
    std::printf("time, exact:     %s = EMD search, %lld exact EMDs of %lld candidates (%lld skipped by WCD, "
                "%lld by RWMD), %d thread%s\n",
                formatDuration(r.exactSeconds).c_str(), static_cast<long long>(r.exactStats.exactSolves),
                static_cast<long long>(r.exactStats.candidates), static_cast<long long>(r.exactStats.prunedByWcd),
                static_cast<long long>(r.exactStats.prunedByRwmd), r.threads, r.threads == 1 ? "" : "s");
    std::printf("exact / embedding: %.1fx (%.1fx without encoding)\n", r.exactSeconds / embeddingS,
                r.exactSeconds / std::max(r.searchSeconds, 1e-9));
}

int runRetrieve(CliContext& c, const RetrieveOpt& o)
{
    const auto ds = c.openDataset(o.dataset);
    const std::size_t q = checkItem(*ds, o.query, "--query");
    if (o.candidates != "train" && o.candidates != "all")
        throw std::invalid_argument("--candidates must be train or all, not '" + o.candidates + "'");
    // The model is loaded once and the database embedded once (as a retrieval service
    // would); a query's time is encoding it plus the search (workspace::compareRetrieval).
    ModelCosts costs;
    auto t0 = Clock::now();
    const std::shared_ptr<const model::ModelHandle> model = workspace::openModel(o.checkpoint, c.registry);
    costs.loadSeconds = secondsSince(t0);
    checkModelFitsDataset(*model, *ds, o.checkpoint, o.otherData);
    t0 = Clock::now();
    const std::vector<float> db = model->embed(*ds);
    costs.databaseSeconds = secondsSince(t0);
    costs.dim = model->dim();
    workspace::RetrievalOptions ro;
    ro.k = o.k;
    ro.allCandidates = o.candidates == "all";
    ro.labelSet = o.labelSet;
    ro.bruteForce = o.bruteForce;
    ro.threads = o.threads;
    ConsoleSink sink;
    if (!o.json)
        ro.progress = [&sink](std::int64_t done, std::int64_t total) { sink.progress(done, total, "exact EMD kNN"); };
    const workspace::RetrievalResult r = workspace::compareRetrieval(*ds, *model, db, static_cast<std::int64_t>(q), ro);
    if (o.json) {
        printRetrievalJson(o, *ds, q, r, costs);
    } else {
        sink.finished(job::JobStatus::Finished, {}); // clears the progress bar
        printRetrievalTable(o, *ds, q, r, costs);
    }
    return 0;
}

} // namespace

void addRetrieveCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("retrieve", "The K nearest items of one query by a checkpoint's embedding and by "
                                               "exact EMD, side by side, with the time of each path (seed 001 §7.7)");
    auto o = std::make_shared<RetrieveOpt>();
    addRetrieveFlags(cmd, o.get());
    cmd->callback([ctx, o, &rc] { rc = runRetrieve(ctx(), *o); });
}

} // namespace setscope::cli
