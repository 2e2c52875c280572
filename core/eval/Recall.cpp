// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/eval/Recall.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace setscope::eval {

RetrievalScores retrievalAtK(MatrixView items, const std::vector<std::int32_t>& labels, const std::vector<int>& ks,
                             job::JobControl* control)
{
    if (static_cast<std::int64_t>(labels.size()) != items.rows)
        throw std::invalid_argument("Recall@K: " + std::to_string(labels.size()) + " labels for " +
                                    std::to_string(items.rows) + " rows");
    for (int k : ks)
        if (k < 1)
            throw std::invalid_argument("Recall@K: K must be at least 1 (got " + std::to_string(k) + ")");
    RetrievalScores out;
    out.ks = ks;
    out.recallHit.assign(ks.size(), 0.0);
    out.recallClass.assign(ks.size(), 0.0);
    out.precision.assign(ks.size(), 0.0);

    std::vector<std::int64_t> keep;
    std::map<std::int32_t, std::int64_t> classSize;
    for (std::int64_t i = 0; i < items.rows; ++i)
        if (const std::int32_t l = labels[static_cast<std::size_t>(i)]; l >= 0) {
            keep.push_back(i);
            ++classSize[l];
        }
    if (keep.size() < 2 || ks.empty())
        return out;
    const std::vector<float> data = gatherRows(items, keep);
    const MatrixView m{data.data(), static_cast<std::int64_t>(keep.size()), items.cols};
    const int kmax = *std::max_element(ks.begin(), ks.end());
    const Neighbours nb = nearestNeighbours(m, m, kmax, true, control);
    const std::int64_t others = m.rows - 1;

    std::vector<double> hit(ks.size(), 0.0), cls(ks.size(), 0.0), prec(ks.size(), 0.0);
    std::vector<int> prefix(static_cast<std::size_t>(kmax) + 1);
    for (std::int64_t q = 0; q < m.rows; ++q) {
        const std::int32_t lq = labels[static_cast<std::size_t>(keep[static_cast<std::size_t>(q)])];
        // prefix[j] = same-class items among the j nearest
        for (int j = 0; j < kmax; ++j) {
            const std::int64_t id = nb.ids[static_cast<std::size_t>(q * kmax + j)];
            const bool same = id >= 0 && labels[static_cast<std::size_t>(keep[static_cast<std::size_t>(id)])] == lq;
            prefix[static_cast<std::size_t>(j) + 1] = prefix[static_cast<std::size_t>(j)] + (same ? 1 : 0);
        }
        const std::int64_t sameOthers = classSize[lq] - 1;
        for (std::size_t t = 0; t < ks.size(); ++t) {
            const int h = prefix[static_cast<std::size_t>(ks[t])];
            hit[t] += h > 0 ? 1.0 : 0.0;
            prec[t] += static_cast<double>(h) / static_cast<double>(std::min<std::int64_t>(ks[t], others));
            if (sameOthers > 0)
                cls[t] += static_cast<double>(h) / static_cast<double>(sameOthers);
        }
        if (sameOthers > 0)
            ++out.recallClassQueries;
    }
    out.queries = m.rows;
    for (std::size_t t = 0; t < ks.size(); ++t) {
        out.recallHit[t] = hit[t] / static_cast<double>(m.rows);
        out.precision[t] = prec[t] / static_cast<double>(m.rows);
        out.recallClass[t] = out.recallClassQueries ? cls[t] / static_cast<double>(out.recallClassQueries) : 0.0;
    }
    return out;
}

std::vector<double> recallHitAtK(MatrixView items, const std::vector<std::int32_t>& labels, const std::vector<int>& ks,
                                 job::JobControl* control)
{
    return retrievalAtK(items, labels, ks, control).recallHit;
}

std::vector<double> recallClassAtK(MatrixView items, const std::vector<std::int32_t>& labels,
                                   const std::vector<int>& ks, job::JobControl* control)
{
    return retrievalAtK(items, labels, ks, control).recallClass;
}

std::vector<double> precisionAtK(MatrixView items, const std::vector<std::int32_t>& labels, const std::vector<int>& ks,
                                 job::JobControl* control)
{
    return retrievalAtK(items, labels, ks, control).precision;
}

} // namespace setscope::eval
