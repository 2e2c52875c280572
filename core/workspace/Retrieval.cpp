// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/Retrieval.h"

#include "core/data/Dataset.h"
#include "core/eval/Knn.h"
#include "core/job/Job.h"
#include "core/model/ModelHandle.h"
#include "core/workspace/ItemText.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

namespace setscope::workspace {

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

} // namespace

std::string modelMismatch(const model::ModelHandle& model, const data::Dataset& ds, bool allowOtherData)
{
    if (model.inputDim() != ds.dim())
        return "checkpoint for " + std::to_string(model.inputDim()) + "-d elements, dataset '" + ds.name() + "' has " +
               std::to_string(ds.dim()) + "-d";
    if (!allowOtherData && model.datasetHash() != ds.contentHash())
        return "checkpoint trained on other data (dataset hash " + model.datasetHash() + ", this dataset " +
               ds.contentHash() + ")";
    return {};
}

RetrievalScore scoreList(const data::Dataset& dataset, const std::string& labelSet, std::int64_t query,
                         std::span<const std::int64_t> list, std::span<const std::int64_t> candidates)
{
    RetrievalScore s;
    const data::LabelSet* ls = dataset.labelSet(labelSet);
    if (!ls || list.empty())
        return s;
    const std::int32_t ql = ls->labels[static_cast<std::size_t>(query)];
    if (ql < 0)
        return s;
    for (const std::int64_t i : list)
        s.correct += ls->labels[static_cast<std::size_t>(i)] == ql ? 1 : 0;
    std::int64_t others = 0; // n_c - 1: the query's class among the candidates
    for (const std::int64_t i : candidates)
        others += (i != query && ls->labels[static_cast<std::size_t>(i)] == ql) ? 1 : 0;
    s.recallHit = s.correct > 0 ? 1.0 : 0.0;
    s.recallClass = others > 0 ? static_cast<double>(s.correct) / static_cast<double>(others) : 0.0;
    s.precision = static_cast<double>(s.correct) / static_cast<double>(list.size());
    return s;
}

RetrievalResult compareRetrieval(const data::Dataset& ds, const model::ModelHandle& model,
                                 std::span<const float> database, std::int64_t query, const RetrievalOptions& o)
{
    requireItem(ds, query, "query");
    const int dim = model.dim();
    if (database.size() != ds.size() * static_cast<std::size_t>(dim))
        throw std::invalid_argument("the embedded database has " + std::to_string(database.size()) +
                                    " values, expected " + std::to_string(ds.size()) + " items x " +
                                    std::to_string(dim));
    if (o.k < 1)
        throw std::invalid_argument("k must be at least 1");

    RetrievalResult r;
    r.query = query;
    r.labelSet = o.labelSet;
    const std::vector<std::int64_t> cands = otherItems(ds, query, o.allCandidates, &r.pool);
    if (cands.empty())
        throw std::invalid_argument("dataset '" + ds.name() + "' has no item to retrieve besides the query");
    r.candidates = static_cast<std::int64_t>(cands.size());
    r.k = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(o.k), cands.size()));
    const data::LabelSet* ls = ds.labelSet(o.labelSet);
    r.queryLabelled = ls && ls->labels[static_cast<std::size_t>(query)] >= 0;

    // --- embedding path: encode the query, search the embedded candidates ----------------
    const std::vector<float> base =
        eval::gatherRows({database.data(), static_cast<std::int64_t>(ds.size()), dim}, cands);
    auto t0 = Clock::now();
    const std::vector<float> qv = model.embed(ds, {query}, o.control);
    r.encodeSeconds = secondsSince(t0);
    t0 = Clock::now();
    const eval::Neighbours nn =
        eval::nearestNeighbours({base.data(), r.candidates, dim}, {qv.data(), 1, dim}, r.k, false, o.control);
    r.searchSeconds = secondsSince(t0);
    for (int j = 0; j < r.k; ++j)
        if (const std::int64_t id = nn.ids[static_cast<std::size_t>(j)]; id >= 0) // -1: fewer candidates than k
            r.byEmbedding.push_back({cands[static_cast<std::size_t>(id)], static_cast<double>(nn.distances[static_cast<std::size_t>(j)])});

    // --- exact path ------------------------------------------------------------------------
    ot::EmdKnnOptions eo;
    eo.method = o.bruteForce ? ot::EmdKnnMethod::BruteForce : ot::EmdKnnMethod::Pruned;
    eo.threads = o.threads;
    eo.control = o.control;
    if (o.progress)
        eo.progress = [&o](const ot::EmdKnnProgress& p) { o.progress(p.candidatesDone, p.candidates); };
    r.exactMethod = o.bruteForce ? "brute-force" : "pruned";
    r.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    t0 = Clock::now();
    const ot::EmdKnnResult exact = ot::emdKnnQueries(ds, {query}, cands, r.k, eo).front();
    r.exactSeconds = secondsSince(t0);
    r.exactStats = exact.stats;
    for (const ot::EmdNeighbour& n : exact.neighbours)
        r.byEmd.push_back({n.item, n.emd});

    // --- marks and scores --------------------------------------------------------------------
    std::set<std::int64_t> inEmb, inEmd;
    for (const RetrievalHit& h : r.byEmbedding)
        inEmb.insert(h.item);
    for (const RetrievalHit& h : r.byEmd)
        inEmd.insert(h.item);
    const std::int32_t ql = r.queryLabelled ? ls->labels[static_cast<std::size_t>(query)] : -1;
    auto mark = [&](std::vector<RetrievalHit>& hits, const std::set<std::int64_t>& other) {
        std::vector<std::int64_t> ids;
        for (RetrievalHit& h : hits) {
            h.sameLabel = ql >= 0 && ls->labels[static_cast<std::size_t>(h.item)] == ql;
            h.inBoth = other.count(h.item) != 0;
            ids.push_back(h.item);
        }
        return scoreList(ds, o.labelSet, query, ids, cands);
    };
    r.embeddingScore = mark(r.byEmbedding, inEmd);
    r.emdScore = mark(r.byEmd, inEmb);
    for (const RetrievalHit& h : r.byEmbedding)
        r.overlap += h.inBoth ? 1 : 0;
    return r;
}

} // namespace setscope::workspace
