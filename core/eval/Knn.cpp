// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/eval/Knn.h"

#include "core/job/Job.h"
#include "core/util/FloatRange.h"

#include <faiss/IndexFlat.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <map>
#include <stdexcept>

namespace setscope::eval {

namespace {

constexpr std::int64_t kChunk = 2048;

} // namespace

std::vector<float> gatherRows(MatrixView m, const std::vector<std::int64_t>& rows)
{
    std::vector<float> out(rows.size() * static_cast<std::size_t>(m.cols));
    for (std::size_t i = 0; i < rows.size(); ++i)
        std::copy(m.row(rows[i]), m.row(rows[i]) + m.cols, out.begin() + static_cast<std::ptrdiff_t>(i * m.cols));
    return out;
}

double faissScale(std::initializer_list<NamedView> views, const std::string& what)
{
    double maxAbs = 0.0;
    int cols = 1;
    for (const NamedView& v : views) {
        cols = std::max(cols, v.view.cols);
        const std::size_t count = static_cast<std::size_t>(v.view.rows) * static_cast<std::size_t>(v.view.cols);
        for (std::size_t k = 0; k < count; ++k) {
            const float x = v.view.data[k];
            if (!std::isfinite(x))
                throw std::invalid_argument(what + ": row " + std::to_string(k / static_cast<std::size_t>(v.view.cols)) +
                                            " of the " + v.name + " holds " + (std::isnan(x) ? "NaN" : "an infinite value") +
                                            " (a model whose weights diverged gives such embeddings)");
            maxAbs = std::max(maxAbs, static_cast<double>(std::fabs(x)));
        }
    }
    const double bound = util::maxSafeMagnitude(cols);
    if (maxAbs <= bound)
        return 1.0;
    // The smallest power of two that brings maxAbs within the bound.
    int e = 0;
    (void)std::frexp(maxAbs / bound, &e);
    return std::ldexp(1.0, -e);
}

std::vector<float> scaledCopy(MatrixView m, double scale)
{
    std::vector<float> out(static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols));
    for (std::size_t k = 0; k < out.size(); ++k)
        out[k] = static_cast<float>(static_cast<double>(m.data[k]) * scale);
    return out;
}

Neighbours nearestNeighbours(MatrixView base, MatrixView queries, int k, bool queriesAreBase, job::JobControl* control)
{
    if (base.cols != queries.cols)
        throw std::invalid_argument("nearest neighbours: base has dimension " + std::to_string(base.cols) +
                                    ", queries have " + std::to_string(queries.cols));
    if (k <= 0)
        throw std::invalid_argument("nearest neighbours: k must be positive");
    Neighbours out;
    out.k = k;
    out.ids.assign(static_cast<std::size_t>(queries.rows * k), -1);
    out.distances.assign(static_cast<std::size_t>(queries.rows * k), INFINITY);
    if (base.rows == 0 || queries.rows == 0)
        return out;
    const double scale = faissScale({{base, "base"}, {queries, "queries"}}, "nearest neighbours");
    std::vector<float> scaledBase, scaledQueries;
    if (scale != 1.0) {
        const bool same = queries.data == base.data && queries.rows == base.rows;
        scaledBase = scaledCopy(base, scale);
        if (!same)
            scaledQueries = scaledCopy(queries, scale);
        base.data = scaledBase.data();
        queries.data = same ? scaledBase.data() : scaledQueries.data();
    }

    faiss::IndexFlatL2 index(base.cols);
    index.add(base.rows, base.data);
    const int kk = static_cast<int>(std::min<std::int64_t>(base.rows, k + (queriesAreBase ? 1 : 0)));
    std::vector<float> d(static_cast<std::size_t>(kChunk * kk));
    std::vector<std::int64_t> ids(static_cast<std::size_t>(kChunk * kk));
    for (std::int64_t q0 = 0; q0 < queries.rows; q0 += kChunk) {
        if (control)
            control->checkpoint();
        const std::int64_t nq = std::min(kChunk, queries.rows - q0);
        index.search(nq, queries.row(q0), kk, d.data(), ids.data());
        for (std::int64_t q = 0; q < nq; ++q) {
            int outJ = 0;
            for (int j = 0; j < kk && outJ < k; ++j) {
                const std::int64_t id = ids[static_cast<std::size_t>(q * kk + j)];
                if (id < 0 || (queriesAreBase && id == q0 + q))
                    continue;
                const std::size_t o = static_cast<std::size_t>((q0 + q) * k + outJ);
                out.ids[o] = id;
                // Rounding can make a squared distance slightly negative; a distance float cannot
                // hold (after scaling back) is +infinity, never NaN.
                const float sq = d[static_cast<std::size_t>(q * kk + j)];
                const double dist = std::sqrt(sq > 0.0f ? static_cast<double>(sq) : 0.0) / scale;
                out.distances[o] = std::isfinite(sq) && dist <= static_cast<double>(FLT_MAX) ? static_cast<float>(dist)
                                                                                             : INFINITY;
                ++outJ;
            }
        }
    }
    return out;
}

std::int32_t weightedVote(const std::vector<std::int32_t>& labels, const std::vector<double>& distances)
{
    if (labels.size() != distances.size())
        throw std::invalid_argument("weightedVote: " + std::to_string(labels.size()) + " labels for " +
                                    std::to_string(distances.size()) + " distances");
    bool anyZero = false;
    for (std::size_t i = 0; i < labels.size(); ++i)
        anyZero = anyZero || (labels[i] >= 0 && distances[i] <= 0.0);
    std::map<std::int32_t, double> votes;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] < 0)
            continue;
        if (anyZero)
            votes[labels[i]] += distances[i] <= 0.0 ? 1.0 : 0.0;
        else
            votes[labels[i]] += 1.0 / distances[i];
    }
    std::int32_t best = -1;
    double bestW = -1.0;
    for (const auto& [label, w] : votes) // ascending label: ties go to the smallest
        if (w > bestW) {
            bestW = w;
            best = label;
        }
    return best;
}

KnnResult knnClassify(MatrixView reference, const std::vector<std::int32_t>& referenceLabels, MatrixView queries,
                      const std::vector<std::int32_t>& queryLabels, int k, bool queriesAreReference,
                      job::JobControl* control)
{
    if (static_cast<std::int64_t>(referenceLabels.size()) != reference.rows ||
        static_cast<std::int64_t>(queryLabels.size()) != queries.rows)
        throw std::invalid_argument("kNN: label count does not match row count");

    // Only labelled references vote. Keep a map back to original row ids so that
    // self-exclusion still works when the queries are the reference set.
    std::vector<std::int64_t> keep;
    for (std::int64_t i = 0; i < reference.rows; ++i)
        if (referenceLabels[static_cast<std::size_t>(i)] >= 0)
            keep.push_back(i);
    const std::vector<float> refData = gatherRows(reference, keep);
    const MatrixView ref{refData.data(), static_cast<std::int64_t>(keep.size()), reference.cols};

    KnnResult res;
    res.predicted.assign(static_cast<std::size_t>(queries.rows), -1);
    if (keep.empty())
        return res;

    // With self-exclusion the query's own row may be among the k+1 nearest; search one more.
    const int kk = k + (queriesAreReference ? 1 : 0);
    const Neighbours nb = nearestNeighbours(ref, queries, kk, false, control);
    std::int64_t correct = 0;
    std::vector<std::int32_t> labels;
    std::vector<double> distances;
    for (std::int64_t q = 0; q < queries.rows; ++q) {
        const std::int32_t truth = queryLabels[static_cast<std::size_t>(q)];
        if (truth < 0)
            continue;
        labels.clear();
        distances.clear();
        for (int j = 0; j < kk && static_cast<int>(labels.size()) < k; ++j) {
            const std::int64_t id = nb.ids[static_cast<std::size_t>(q * kk + j)];
            if (id < 0)
                continue;
            const std::int64_t orig = keep[static_cast<std::size_t>(id)];
            if (queriesAreReference && orig == q)
                continue;
            labels.push_back(referenceLabels[static_cast<std::size_t>(orig)]);
            distances.push_back(static_cast<double>(nb.distances[static_cast<std::size_t>(q * kk + j)]));
        }
        const std::int32_t best = weightedVote(labels, distances);
        res.predicted[static_cast<std::size_t>(q)] = best;
        ++res.evaluated;
        if (best == truth)
            ++correct;
    }
    res.accuracy = res.evaluated ? static_cast<double>(correct) / static_cast<double>(res.evaluated) : 0.0;
    return res;
}

std::vector<double> recallAtK(MatrixView items, const std::vector<std::int32_t>& labels, const std::vector<int>& ks,
                              job::JobControl* control)
{
    if (static_cast<std::int64_t>(labels.size()) != items.rows)
        throw std::invalid_argument("Recall@K: label count does not match row count");
    std::vector<std::int64_t> keep;
    for (std::int64_t i = 0; i < items.rows; ++i)
        if (labels[static_cast<std::size_t>(i)] >= 0)
            keep.push_back(i);
    std::vector<double> out(ks.size(), 0.0);
    if (keep.size() < 2 || ks.empty())
        return out;
    const std::vector<float> data = gatherRows(items, keep);
    const MatrixView m{data.data(), static_cast<std::int64_t>(keep.size()), items.cols};
    const int kmax = *std::max_element(ks.begin(), ks.end());
    const Neighbours nb = nearestNeighbours(m, m, kmax, true, control);
    std::vector<std::int64_t> hits(ks.size(), 0);
    for (std::int64_t q = 0; q < m.rows; ++q) {
        const std::int32_t lq = labels[static_cast<std::size_t>(keep[static_cast<std::size_t>(q)])];
        int firstHit = -1; // rank (0-based) of the first neighbour with the same label
        for (int j = 0; j < kmax; ++j) {
            const std::int64_t id = nb.ids[static_cast<std::size_t>(q * kmax + j)];
            if (id >= 0 && labels[static_cast<std::size_t>(keep[static_cast<std::size_t>(id)])] == lq) {
                firstHit = j;
                break;
            }
        }
        for (std::size_t t = 0; t < ks.size(); ++t)
            if (firstHit >= 0 && firstHit < ks[t])
                ++hits[t];
    }
    for (std::size_t t = 0; t < ks.size(); ++t)
        out[t] = static_cast<double>(hits[t]) / static_cast<double>(m.rows);
    return out;
}

} // namespace setscope::eval
