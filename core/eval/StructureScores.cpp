// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/eval/StructureScores.h"

#include "core/job/Job.h"

#include <faiss/Clustering.h>
#include <faiss/IndexFlat.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace setscope::eval {

namespace {

/// The labelled rows of `items`, gathered, after the checks every neighbour score shares.
struct Labelled {
    std::vector<std::int64_t> rows; ///< indices into items
    std::vector<float> data;
    MatrixView view;
};

Labelled labelledRows(MatrixView items, const std::vector<std::int32_t>& labels, const std::string& what)
{
    if (static_cast<std::int64_t>(labels.size()) != items.rows)
        throw std::invalid_argument(what + ": " + std::to_string(labels.size()) + " labels for " +
                                    std::to_string(items.rows) + " rows");
    Labelled l;
    for (std::int64_t i = 0; i < items.rows; ++i)
        if (labels[static_cast<std::size_t>(i)] >= 0)
            l.rows.push_back(i);
    if (l.rows.size() < 2)
        throw std::invalid_argument(what + " needs at least two labelled items, got " + std::to_string(l.rows.size()));
    if (items.cols < 1)
        throw std::invalid_argument(what + ": the items have no dimensions");
    l.data = gatherRows(items, l.rows);
    l.view = {l.data.data(), static_cast<std::int64_t>(l.rows.size()), items.cols};
    return l;
}

void requireK(int k, const std::string& what)
{
    if (k < 1)
        throw std::invalid_argument(what + ": k must be at least 1 (got " + std::to_string(k) + ")");
}

/// Calls fn(q, ids, distances, count) with the `k` nearest other rows of `m` for each row q
/// (ascending distance, q itself left out by index). Queries go to FAISS in chunks so that a
/// full ranking (k = rows - 1) needs memory for a chunk only.
template <class Fn>
void forEachRanking(MatrixView m, int k, job::JobControl* control, Fn&& fn)
{
    // Values FAISS's float distances cannot hold are searched scaled (the ranking is the same).
    const double scale = faissScale({{m, "items"}}, "neighbour ranking");
    std::vector<float> scaled;
    if (scale != 1.0) {
        scaled = scaledCopy(m, scale);
        m.data = scaled.data();
    }
    faiss::IndexFlatL2 index(m.cols);
    index.add(m.rows, m.data);
    const int kk = static_cast<int>(std::min<std::int64_t>(m.rows, static_cast<std::int64_t>(k) + 1));
    const std::int64_t chunk = std::max<std::int64_t>(1, std::min<std::int64_t>(2048, (std::int64_t{1} << 22) / kk));
    std::vector<float> d(static_cast<std::size_t>(chunk * kk));
    std::vector<std::int64_t> ids(static_cast<std::size_t>(chunk * kk));
    std::vector<std::int64_t> rowIds(static_cast<std::size_t>(k));
    std::vector<double> rowDist(static_cast<std::size_t>(k));
    for (std::int64_t q0 = 0; q0 < m.rows; q0 += chunk) {
        if (control)
            control->checkpoint();
        const std::int64_t nq = std::min(chunk, m.rows - q0);
        index.search(nq, m.row(q0), kk, d.data(), ids.data());
        for (std::int64_t q = 0; q < nq; ++q) {
            int count = 0;
            for (int j = 0; j < kk && count < k; ++j) {
                const std::size_t o = static_cast<std::size_t>(q * kk + j);
                if (ids[o] < 0 || ids[o] == q0 + q)
                    continue;
                rowIds[static_cast<std::size_t>(count)] = ids[o];
                rowDist[static_cast<std::size_t>(count)] =
                    std::isfinite(d[o]) ? std::sqrt(std::max(0.0, static_cast<double>(d[o]))) / scale : INFINITY;
                ++count;
            }
            fn(q0 + q, rowIds.data(), rowDist.data(), count);
        }
    }
}

} // namespace

double neighbourhoodPurity(MatrixView items, const std::vector<std::int32_t>& labels, int k, job::JobControl* control)
{
    const std::string what = "neighbourhood purity";
    requireK(k, what);
    const Labelled l = labelledRows(items, labels, what);
    const int kEff = static_cast<int>(std::min<std::int64_t>(k, l.view.rows - 1));
    auto label = [&](std::int64_t r) { return labels[static_cast<std::size_t>(l.rows[static_cast<std::size_t>(r)])]; };
    double sum = 0.0;
    forEachRanking(l.view, kEff, control, [&](std::int64_t q, const std::int64_t* ids, const double*, int count) {
        int same = 0;
        for (int j = 0; j < count; ++j)
            same += label(ids[j]) == label(q) ? 1 : 0;
        sum += count > 0 ? static_cast<double>(same) / count : 0.0;
    });
    return sum / static_cast<double>(l.view.rows);
}

NdcgResult ndcg(MatrixView items, const std::vector<std::int32_t>& fine, const std::vector<std::int32_t>& coarse, int k,
                DcgGain gain, job::JobControl* control)
{
    const std::string what = "nDCG";
    if (k < 0)
        throw std::invalid_argument(what + ": k must be at least 1, or 0 for every other item (got " + std::to_string(k) + ")");
    if (coarse.size() != fine.size())
        throw std::invalid_argument(what + ": " + std::to_string(coarse.size()) + " coarse labels for " +
                                    std::to_string(fine.size()) + " fine labels");
    const Labelled l = labelledRows(items, fine, what);
    const std::int64_t n = l.view.rows;
    const int kEff = static_cast<int>(k == 0 ? n - 1 : std::min<std::int64_t>(k, n - 1));
    auto fineOf = [&](std::int64_t r) { return fine[static_cast<std::size_t>(l.rows[static_cast<std::size_t>(r)])]; };
    auto coarseOf = [&](std::int64_t r) { return coarse[static_cast<std::size_t>(l.rows[static_cast<std::size_t>(r)])]; };

    // Relevance counts for the ideal ranking: per fine class, per coarse class, and per
    // (fine, coarse) pair, over the labelled rows.
    std::map<std::int32_t, std::int64_t> fineCount, coarseCount;
    std::map<std::pair<std::int32_t, std::int32_t>, std::int64_t> pairCount;
    for (std::int64_t r = 0; r < n; ++r) {
        ++fineCount[fineOf(r)];
        if (coarseOf(r) >= 0) {
            ++coarseCount[coarseOf(r)];
            ++pairCount[{fineOf(r), coarseOf(r)}];
        }
    }
    constexpr double gainFine = 1.0; // 2^1 - 1 and 1 alike
    const double gainCoarse = gain == DcgGain::Exponential ? std::sqrt(2.0) - 1.0 : 0.5; // 2^0.5 - 1 or 0.5
    std::vector<double> discounted(static_cast<std::size_t>(kEff) + 1, 0.0); // Σ_{r <= i} 1/log2(r+1)
    for (int r = 1; r <= kEff; ++r)
        discounted[static_cast<std::size_t>(r)] = discounted[static_cast<std::size_t>(r) - 1] + 1.0 / std::log2(r + 1.0);

    NdcgResult out;
    out.cutoff = kEff;
    double sum = 0.0;
    forEachRanking(l.view, kEff, control, [&](std::int64_t q, const std::int64_t* ids, const double*, int count) {
        const std::int32_t f = fineOf(q), c = coarseOf(q);
        const std::int64_t nFine = fineCount[f] - 1;
        const std::int64_t nCoarse = c >= 0 ? coarseCount[c] - pairCount[{f, c}] : 0;
        const auto upTo = [&](std::int64_t r) { return discounted[static_cast<std::size_t>(std::min<std::int64_t>(r, kEff))]; };
        const double ideal = gainFine * upTo(nFine) + gainCoarse * (upTo(nFine + nCoarse) - upTo(nFine));
        if (ideal <= 0.0) {
            ++out.skipped;
            return;
        }
        double dcg = 0.0;
        for (int j = 0; j < count; ++j) {
            const double rel = fineOf(ids[j]) == f ? gainFine : (c >= 0 && coarseOf(ids[j]) == c) ? gainCoarse : 0.0;
            dcg += rel / std::log2(j + 2.0);
        }
        sum += dcg / ideal;
        ++out.queries;
    });
    out.ndcg = out.queries > 0 ? sum / static_cast<double>(out.queries) : 0.0;
    return out;
}

Dendrogram::Dendrogram(int leaves, std::vector<Merge> merges)
    : m_leaves(leaves), m_merges(std::move(merges))
{
    if (leaves < 1)
        throw std::invalid_argument("dendrogram: needs at least one leaf, got " + std::to_string(leaves));
    if (static_cast<std::int64_t>(m_merges.size()) != leaves - 1)
        throw std::invalid_argument("dendrogram: " + std::to_string(leaves) + " leaves need " +
                                    std::to_string(leaves - 1) + " merges, got " + std::to_string(m_merges.size()));
    const int nodes = 2 * leaves - 1;
    std::vector<std::vector<int>> members(static_cast<std::size_t>(nodes));
    std::vector<double> height(static_cast<std::size_t>(nodes), 0.0);
    std::vector<bool> used(static_cast<std::size_t>(nodes), false);
    for (int i = 0; i < leaves; ++i)
        members[static_cast<std::size_t>(i)] = {i};
    m_lca.assign(static_cast<std::size_t>(leaves) * static_cast<std::size_t>(leaves), 0.0);
    for (std::size_t m = 0; m < m_merges.size(); ++m) {
        const Merge& g = m_merges[m];
        const int self = leaves + static_cast<int>(m);
        for (int child : {g.a, g.b})
            if (child < 0 || child >= self || used[static_cast<std::size_t>(child)])
                throw std::invalid_argument("dendrogram: merge " + std::to_string(m) + " joins node " + std::to_string(child) +
                                            ", which does not exist yet or was merged before");
        if (g.a == g.b)
            throw std::invalid_argument("dendrogram: merge " + std::to_string(m) + " joins node " + std::to_string(g.a) +
                                        " with itself");
        if (!std::isfinite(g.height) || g.height < height[static_cast<std::size_t>(g.a)] ||
            g.height < height[static_cast<std::size_t>(g.b)])
            throw std::invalid_argument("dendrogram: merge " + std::to_string(m) + " has height " + std::to_string(g.height) +
                                        ", below one of its children or not finite");
        used[static_cast<std::size_t>(g.a)] = used[static_cast<std::size_t>(g.b)] = true;
        height[static_cast<std::size_t>(self)] = g.height;
        const auto& A = members[static_cast<std::size_t>(g.a)];
        const auto& B = members[static_cast<std::size_t>(g.b)];
        for (int a : A)
            for (int b : B) {
                m_lca[static_cast<std::size_t>(a) * static_cast<std::size_t>(leaves) + static_cast<std::size_t>(b)] = g.height;
                m_lca[static_cast<std::size_t>(b) * static_cast<std::size_t>(leaves) + static_cast<std::size_t>(a)] = g.height;
            }
        auto& S = members[static_cast<std::size_t>(self)];
        S.insert(S.end(), A.begin(), A.end());
        S.insert(S.end(), B.begin(), B.end());
        members[static_cast<std::size_t>(g.a)].clear();
        members[static_cast<std::size_t>(g.b)].clear();
    }
}

Dendrogram Dendrogram::averageLinkage(MatrixView points)
{
    if (points.rows < 1 || points.cols < 1)
        throw std::invalid_argument("average linkage: needs at least one point with at least one dimension");
    if (points.rows > 100000)
        throw std::invalid_argument("average linkage: " + std::to_string(points.rows) + " classes are too many (O(n^3))");
    const int n = static_cast<int>(points.rows);
    const int nodes = 2 * n - 1;
    // Distances between nodes by node id; a new node's row is filled when it is made.
    std::vector<double> D(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(nodes), 0.0);
    auto at = [&](int a, int b) -> double& { return D[static_cast<std::size_t>(a) * static_cast<std::size_t>(nodes) + static_cast<std::size_t>(b)]; };
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) {
            double s = 0.0;
            for (int c = 0; c < points.cols; ++c) {
                const double x = static_cast<double>(points.row(a)[c]) - points.row(b)[c];
                s += x * x;
            }
            at(a, b) = at(b, a) = std::sqrt(s);
        }
    std::vector<int> active(static_cast<std::size_t>(n)); // ascending node ids: the scan order breaks ties
    std::vector<double> size(static_cast<std::size_t>(nodes), 1.0);
    for (int i = 0; i < n; ++i)
        active[static_cast<std::size_t>(i)] = i;
    std::vector<Merge> merges;
    for (int m = 0; m + 1 < n; ++m) {
        std::size_t bi = 0, bj = 1;
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < active.size(); ++i)
            for (std::size_t j = i + 1; j < active.size(); ++j)
                if (at(active[i], active[j]) < best) {
                    best = at(active[i], active[j]);
                    bi = i;
                    bj = j;
                }
        const int a = active[bi], b = active[bj], self = n + m;
        const double sa = size[static_cast<std::size_t>(a)], sb = size[static_cast<std::size_t>(b)];
        // UPGMA: the mean distance over member pairs is the size-weighted mean of the parts'.
        for (int c : active)
            if (c != a && c != b)
                at(self, c) = at(c, self) = (sa * at(a, c) + sb * at(b, c)) / (sa + sb);
        size[static_cast<std::size_t>(self)] = sa + sb;
        merges.push_back({a, b, best});
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(bj));
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(bi));
        active.push_back(self);
    }
    return Dendrogram(n, std::move(merges));
}

Dendrogram Dendrogram::twoLevel(const std::vector<std::int32_t>& coarseOf, double coarseHeight)
{
    if (coarseOf.empty())
        throw std::invalid_argument("class tree: the fine -> coarse mapping is empty");
    if (!(coarseHeight > 0.0 && coarseHeight <= 1.0))
        throw std::invalid_argument("class tree: the coarse level's height must be in (0, 1], got " + std::to_string(coarseHeight));
    const int n = static_cast<int>(coarseOf.size());
    std::map<std::int32_t, std::vector<int>> groups;
    for (int c = 0; c < n; ++c) {
        if (coarseOf[static_cast<std::size_t>(c)] < 0)
            throw std::invalid_argument("class tree: fine class " + std::to_string(c) + " has no coarse class");
        groups[coarseOf[static_cast<std::size_t>(c)]].push_back(c);
    }
    std::vector<Merge> merges;
    auto chain = [&](const std::vector<int>& nodes, double h) {
        int root = nodes.front();
        for (std::size_t i = 1; i < nodes.size(); ++i) {
            merges.push_back({root, nodes[i], h});
            root = n + static_cast<int>(merges.size()) - 1;
        }
        return root;
    };
    std::vector<int> groupRoots;
    for (const auto& [coarse, members] : groups)
        groupRoots.push_back(chain(members, coarseHeight));
    chain(groupRoots, 1.0);
    return Dendrogram(n, std::move(merges));
}

double Dendrogram::lcaHeight(int a, int b) const
{
    if (a < 0 || b < 0 || a >= m_leaves || b >= m_leaves)
        throw std::out_of_range("dendrogram: leaf " + std::to_string(a < 0 || a >= m_leaves ? a : b) + " outside [0, " +
                                std::to_string(m_leaves) + ")");
    return m_lca[static_cast<std::size_t>(a) * static_cast<std::size_t>(m_leaves) + static_cast<std::size_t>(b)];
}

double Dendrogram::normalisedLcaHeight(int a, int b) const
{
    const double h = lcaHeight(a, b);
    return rootHeight() > 0.0 ? h / rootHeight() : 0.0;
}

CslResult contextSensitiveLoss(MatrixView items, const std::vector<std::int32_t>& labels, const Dendrogram& tree, int k,
                               CslPrediction prediction, job::JobControl* control)
{
    const std::string what = "context-sensitive loss";
    requireK(k, what);
    const Labelled l = labelledRows(items, labels, what);
    for (std::int64_t r : l.rows)
        if (labels[static_cast<std::size_t>(r)] >= tree.leaves())
            throw std::invalid_argument(what + ": item " + std::to_string(r) + " has label " +
                                        std::to_string(labels[static_cast<std::size_t>(r)]) + ", but the class tree has " +
                                        std::to_string(tree.leaves()) + " classes");
    const int kEff = static_cast<int>(std::min<std::int64_t>(k, l.view.rows - 1));
    auto label = [&](std::int64_t r) { return labels[static_cast<std::size_t>(l.rows[static_cast<std::size_t>(r)])]; };
    CslResult out;
    double penalty = 0.0;
    auto predict = [&](std::int32_t y, std::int32_t yHat) {
        ++out.predictions;
        if (y == yHat)
            return;
        ++out.wrong;
        penalty += tree.normalisedLcaHeight(y, yHat);
    };
    std::vector<std::int32_t> nbLabels;
    std::vector<double> nbDist;
    forEachRanking(l.view, kEff, control, [&](std::int64_t q, const std::int64_t* ids, const double* dist, int count) {
        if (prediction == CslPrediction::Neighbours) {
            for (int j = 0; j < count; ++j)
                predict(label(q), label(ids[j]));
            return;
        }
        nbLabels.assign(static_cast<std::size_t>(count), 0);
        nbDist.assign(dist, dist + count);
        for (int j = 0; j < count; ++j)
            nbLabels[static_cast<std::size_t>(j)] = label(ids[j]);
        predict(label(q), weightedVote(nbLabels, nbDist));
    });
    if (out.predictions > 0) {
        out.total = penalty / static_cast<double>(out.predictions);
        out.errorRate = static_cast<double>(out.wrong) / static_cast<double>(out.predictions);
    }
    out.average = out.wrong > 0 ? penalty / static_cast<double>(out.wrong) : 0.0;
    return out;
}

Dendrogram classMeanDendrogram(MatrixView features, const std::vector<std::int32_t>& labels)
{
    if (static_cast<std::int64_t>(labels.size()) != features.rows)
        throw std::invalid_argument("class-mean dendrogram: " + std::to_string(labels.size()) + " labels for " +
                                    std::to_string(features.rows) + " rows");
    const std::int32_t maxLabel = labels.empty() ? -1 : *std::max_element(labels.begin(), labels.end());
    if (maxLabel < 0)
        throw std::invalid_argument("class-mean dendrogram: no labelled item");
    const std::size_t classes = static_cast<std::size_t>(maxLabel) + 1;
    const std::size_t dim = static_cast<std::size_t>(features.cols);
    std::vector<double> sums(classes * dim, 0.0);
    std::vector<std::int64_t> counts(classes, 0);
    for (std::int64_t i = 0; i < features.rows; ++i) {
        const std::int32_t y = labels[static_cast<std::size_t>(i)];
        if (y < 0)
            continue;
        ++counts[static_cast<std::size_t>(y)];
        for (std::size_t c = 0; c < dim; ++c)
            sums[static_cast<std::size_t>(y) * dim + c] += features.row(i)[c];
    }
    std::vector<int> present;
    std::vector<float> means;
    for (std::size_t y = 0; y < classes; ++y)
        if (counts[y] > 0) {
            present.push_back(static_cast<int>(y));
            for (std::size_t c = 0; c < dim; ++c)
                means.push_back(static_cast<float>(sums[y * dim + c] / static_cast<double>(counts[y])));
        }
    const Dendrogram sub = Dendrogram::averageLinkage({means.data(), static_cast<std::int64_t>(present.size()), features.cols});
    if (present.size() == classes)
        return sub;
    // Renumber the present classes' tree to label ids; the absent labels join at the root's
    // height, one after the other, so that no height among the present classes changes.
    const int n = static_cast<int>(classes);
    const int p = static_cast<int>(present.size());
    std::vector<int> nodeOf(static_cast<std::size_t>(2 * p - 1));
    for (int i = 0; i < p; ++i)
        nodeOf[static_cast<std::size_t>(i)] = present[static_cast<std::size_t>(i)];
    std::vector<Dendrogram::Merge> merges;
    for (std::size_t m = 0; m < sub.merges().size(); ++m) {
        const auto& g = sub.merges()[m];
        merges.push_back({nodeOf[static_cast<std::size_t>(g.a)], nodeOf[static_cast<std::size_t>(g.b)], g.height});
        nodeOf[static_cast<std::size_t>(p) + m] = n + static_cast<int>(merges.size()) - 1;
    }
    int root = nodeOf.back();
    for (std::size_t y = 0; y < classes; ++y)
        if (counts[y] == 0) {
            merges.push_back({root, static_cast<int>(y), sub.rootHeight()});
            root = n + static_cast<int>(merges.size()) - 1;
        }
    return Dendrogram(n, std::move(merges));
}

std::vector<std::int32_t> coarseOfFine(const std::vector<std::int32_t>& fine, const std::vector<std::int32_t>& coarse)
{
    if (fine.size() != coarse.size())
        throw std::invalid_argument("fine -> coarse mapping: " + std::to_string(coarse.size()) + " coarse labels for " +
                                    std::to_string(fine.size()) + " fine labels");
    const std::int32_t maxFine = fine.empty() ? -1 : *std::max_element(fine.begin(), fine.end());
    if (maxFine < 0)
        throw std::invalid_argument("fine -> coarse mapping: no item has a fine label");
    std::vector<std::int32_t> out(static_cast<std::size_t>(maxFine) + 1, -1);
    std::vector<std::size_t> witness(out.size(), 0);
    std::int32_t maxCoarse = -1;
    for (std::size_t i = 0; i < fine.size(); ++i) {
        if (fine[i] < 0 || coarse[i] < 0)
            continue;
        std::int32_t& c = out[static_cast<std::size_t>(fine[i])];
        if (c >= 0 && c != coarse[i])
            throw std::invalid_argument("fine -> coarse mapping: fine class " + std::to_string(fine[i]) + " has items of coarse classes " +
                                        std::to_string(c) + " (item " + std::to_string(witness[static_cast<std::size_t>(fine[i])]) +
                                        ") and " + std::to_string(coarse[i]) + " (item " + std::to_string(i) +
                                        "); the coarse labels are not a grouping of the fine ones");
        c = coarse[i];
        witness[static_cast<std::size_t>(fine[i])] = i;
        maxCoarse = std::max(maxCoarse, coarse[i]);
    }
    for (std::int32_t& c : out)
        if (c < 0)
            c = ++maxCoarse;
    return out;
}

double normalizedMutualInformation(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b)
{
    if (a.size() != b.size())
        throw std::invalid_argument("NMI: labellings of " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                                    " items");
    std::map<std::int32_t, double> ca, cb;
    std::map<std::pair<std::int32_t, std::int32_t>, double> joint;
    double n = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] < 0 || b[i] < 0)
            continue;
        ca[a[i]] += 1.0;
        cb[b[i]] += 1.0;
        joint[{a[i], b[i]}] += 1.0;
        n += 1.0;
    }
    if (n == 0.0)
        throw std::invalid_argument("NMI: no item is labelled in both labellings");
    auto entropy = [n](const std::map<std::int32_t, double>& counts) {
        double h = 0.0;
        for (const auto& [label, c] : counts)
            h -= (c / n) * std::log(c / n);
        return h;
    };
    const double ha = entropy(ca), hb = entropy(cb);
    if (ca.size() == 1 && cb.size() == 1)
        return 1.0; // two single clusters agree perfectly (scikit-learn's convention)
    double mi = 0.0;
    for (const auto& [key, c] : joint)
        mi += (c / n) * std::log(c * n / (ca[key.first] * cb[key.second]));
    const double mean = (ha + hb) / 2.0;
    return mean > 0.0 ? std::clamp(mi / mean, 0.0, 1.0) : 0.0;
}

NmiResult kmeansNmi(MatrixView items, const std::vector<std::int32_t>& labels, const KmeansNmiOptions& options,
                    job::JobControl* control)
{
    const std::string what = "NMI";
    if (options.iterations < 1 || options.redos < 1)
        throw std::invalid_argument(what + ": k-means needs at least one iteration and one run");
    const Labelled l = labelledRows(items, labels, what);
    std::vector<std::int32_t> y;
    std::set<std::int32_t> distinct;
    for (std::int64_t r : l.rows) {
        y.push_back(labels[static_cast<std::size_t>(r)]);
        distinct.insert(y.back());
    }
    NmiResult out;
    out.clusters = static_cast<int>(distinct.size());
    out.items = l.view.rows;
    std::vector<std::int32_t> cluster(y.size(), 0);
    if (out.clusters > 1) {
        if (control)
            control->checkpoint();
        faiss::ClusteringParameters cp;
        cp.niter = options.iterations;
        cp.nredo = options.redos;
        cp.seed = options.seed;
        cp.verbose = false;
        cp.min_points_per_centroid = 1; // few items per class is fine here: no warning
        // Cluster every item: FAISS subsamples above max_points_per_centroid per centroid.
        cp.max_points_per_centroid = static_cast<int>(std::min<std::int64_t>(
            std::numeric_limits<int>::max() / 2, l.view.rows / out.clusters + 1));
        // FAISS's k-means asserts (aborts the process) when a distance overflows float: values
        // beyond that are clustered scaled, which assigns them alike.
        MatrixView view = l.view;
        const double scale = faissScale({{view, "items"}}, "k-means NMI");
        std::vector<float> scaled;
        if (scale != 1.0) {
            scaled = scaledCopy(view, scale);
            view.data = scaled.data();
        }
        faiss::Clustering clustering(view.cols, static_cast<std::size_t>(out.clusters), cp);
        faiss::IndexFlatL2 index(view.cols);
        clustering.train(view.rows, view.data, index);
        if (control)
            control->checkpoint();
        // The index holds the final centroids: assign every item to its nearest one.
        std::vector<float> d(static_cast<std::size_t>(l.view.rows));
        std::vector<std::int64_t> ids(static_cast<std::size_t>(l.view.rows));
        index.search(view.rows, view.data, 1, d.data(), ids.data());
        for (std::size_t i = 0; i < cluster.size(); ++i) {
            if (ids[i] < 0 || ids[i] >= out.clusters)
                throw std::runtime_error("k-means NMI: FAISS assigned item " + std::to_string(l.rows[i]) +
                                         " to no cluster");
            cluster[i] = static_cast<std::int32_t>(ids[i]);
        }
    }
    out.nmi = normalizedMutualInformation(cluster, y);
    out.assignment.assign(static_cast<std::size_t>(items.rows), -1);
    for (std::size_t i = 0; i < l.rows.size(); ++i)
        out.assignment[static_cast<std::size_t>(l.rows[i])] = cluster[i];
    return out;
}

} // namespace setscope::eval
