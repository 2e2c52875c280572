// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/EmdKnn.h"

#include "core/dist/Communicator.h"
#include "core/eval/Knn.h"

#include <bit>
#include <numeric>
#include <span>
#include <stdexcept>

namespace setscope::workspace {

EmdKnnItems emdKnnItems(const data::Dataset& ds, const EmdKnnRequest& r)
{
    if (r.candidates != "train" && r.candidates != "all")
        throw std::invalid_argument("--candidates must be train or all");
    EmdKnnItems out;
    if (r.candidates == "train")
        out.candidates = ds.indices(data::Split::Train);
    if (out.candidates.empty()) {
        out.candidates.resize(ds.size());
        std::iota(out.candidates.begin(), out.candidates.end(), 0);
    }
    if (r.limit > 0 && static_cast<std::size_t>(r.limit) < out.candidates.size())
        out.candidates.resize(static_cast<std::size_t>(r.limit));
    out.queries = r.queries;
    const auto test = ds.indices(data::Split::Test);
    for (std::int64_t t = 0; t < r.testQueries && static_cast<std::size_t>(t) < test.size(); ++t)
        out.queries.push_back(test[static_cast<std::size_t>(t)]);
    if (out.queries.empty())
        out.queries.push_back(test.empty() ? 0 : test.front());
    return out;
}

std::vector<ot::EmdKnnResult> emdKnnOnRanks(const std::shared_ptr<dist::Communicator>& comm, const data::Dataset& ds,
                                            const std::vector<std::int64_t>& queries,
                                            const std::vector<std::int64_t>& cands, int k,
                                            const ot::EmdKnnOptions& options)
{
    if (!comm)
        return ot::emdKnnQueries(ds, queries, cands, k, options);
    const int world = comm->size(), me = comm->rank();
    std::vector<std::int64_t> mine;
    for (std::size_t i = static_cast<std::size_t>(me); i < queries.size(); i += static_cast<std::size_t>(world))
        mine.push_back(queries[i]);
    const std::vector<ot::EmdKnnResult> own = ot::emdKnnQueries(ds, mine, cands, k, options);
    // One message per rank: per query its counters, its neighbour count, then item and EMD (bits).
    constexpr int kTagSize = 21, kTagData = 22;
    if (me != 0) {
        std::vector<std::int64_t> msg;
        for (const ot::EmdKnnResult& r : own) {
            msg.insert(msg.end(), {r.stats.candidates, r.stats.exactSolves, r.stats.prunedByWcd, r.stats.prunedByRwmd,
                                   r.stats.speculativeSolves, static_cast<std::int64_t>(r.neighbours.size())});
            for (const ot::EmdNeighbour& nb : r.neighbours)
                msg.insert(msg.end(), {nb.item, std::bit_cast<std::int64_t>(nb.emd)});
        }
        const std::int64_t size = static_cast<std::int64_t>(msg.size());
        comm->send(std::span<const std::int64_t>(&size, 1), 0, kTagSize);
        comm->send(std::span<const std::int64_t>(msg), 0, kTagData);
        return own;
    }
    std::vector<ot::EmdKnnResult> all(queries.size());
    for (std::size_t j = 0; j < own.size(); ++j)
        all[j * static_cast<std::size_t>(world)] = own[j];
    for (int src = 1; src < world; ++src) {
        std::int64_t size = 0;
        comm->recv(std::span<std::int64_t>(&size, 1), src, kTagSize);
        std::vector<std::int64_t> msg(static_cast<std::size_t>(size));
        comm->recv(std::span<std::int64_t>(msg), src, kTagData);
        std::size_t at = 0;
        for (std::size_t i = static_cast<std::size_t>(src); i < queries.size(); i += static_cast<std::size_t>(world)) {
            if (at + 6 > msg.size())
                throw std::runtime_error("rank " + std::to_string(src) + " sent fewer kNN results than it has queries");
            ot::EmdKnnResult& r = all[i];
            r.stats = {msg[at], msg[at + 1], msg[at + 2], msg[at + 3], msg[at + 4]};
            const auto n = static_cast<std::size_t>(msg[at + 5]);
            at += 6;
            if (at + 2 * n > msg.size())
                throw std::runtime_error("rank " + std::to_string(src) + " sent a truncated kNN result");
            for (std::size_t t = 0; t < n; ++t, at += 2)
                r.neighbours.push_back({msg[at], std::bit_cast<double>(msg[at + 1])});
        }
    }
    return all;
}

EmdKnnSummary summariseEmdKnn(const data::Dataset& ds, const std::string& labelSet,
                              const std::vector<std::int64_t>& queries, const std::vector<ot::EmdKnnResult>& results)
{
    EmdKnnSummary out;
    const data::LabelSet* ls = ds.labelSet(labelSet);
    for (std::size_t qi = 0; qi < queries.size() && qi < results.size(); ++qi) {
        const ot::EmdKnnResult& r = results[qi];
        out.total.candidates += r.stats.candidates;
        out.total.exactSolves += r.stats.exactSolves;
        out.total.prunedByWcd += r.stats.prunedByWcd;
        out.total.prunedByRwmd += r.stats.prunedByRwmd;
        out.total.speculativeSolves += r.stats.speculativeSolves;
        const auto q = static_cast<std::size_t>(queries[qi]);
        if (!ls || ls->labels[q] < 0)
            continue;
        std::vector<std::int32_t> labels;
        std::vector<double> distances;
        for (const ot::EmdNeighbour& nb : r.neighbours) {
            labels.push_back(ls->labels[static_cast<std::size_t>(nb.item)]);
            distances.push_back(nb.emd);
        }
        ++out.scored;
        out.correct += eval::weightedVote(labels, distances) == ls->labels[q];
    }
    return out;
}

} // namespace setscope::workspace
