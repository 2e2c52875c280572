// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/ot/EmdKnn.h"

#include "core/data/Dataset.h"
#include "core/ot/Bounds.h"
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"
#include "core/job/Job.h"

#include <algorithm>
#include <string>

namespace setscope::ot {

namespace {

// A bound prunes only when it exceeds the k-th distance by more than rounding can explain.
// Cost-matrix entries come from ||x||² + ||y||² - 2 x·y and carry an absolute error that
// grows with the magnitude of the points (CostMatrix.h), centroids are float sums in
// double: 1e-9 of (k-th distance + largest point norm) covers both with room to spare for
// dimensions in the thousands, and is far below any gap pruning can use. Without a margin a
// tight bound (WCD = EMD for one-element sets) rounded up by one ulp would prune a
// candidate that ties the k-th best and has the smaller index.
constexpr double kMargin = 1e-9;

bool exceeds(double bound, double kth, double scale)
{
    return bound > kth + kMargin * (kth + scale);
}

bool before(const EmdNeighbour& x, const EmdNeighbour& y)
{
    return x.emd != y.emd ? x.emd < y.emd : x.item < y.item;
}

std::string itemName(std::int64_t i)
{
    return "item " + std::to_string(i);
}

// Checks the arguments and returns the candidates to consider: ascending, distinct,
// without the query.
std::vector<std::int64_t> candidateList(const data::Dataset& ds, std::int64_t query,
                                        const std::vector<std::int64_t>& candidates, int k)
{
    if (k < 1)
        throw OtError("k must be at least 1 (got " + std::to_string(k) + ")");
    const auto n = static_cast<std::int64_t>(ds.size());
    if (query < 0 || query >= n)
        throw OtError("query " + itemName(query) + " is out of range (the dataset has " + std::to_string(n) +
                      " items)");
    std::vector<std::int64_t> out;
    out.reserve(candidates.size());
    for (const std::int64_t c : candidates) {
        if (c < 0 || c >= n)
            throw OtError("candidate " + itemName(c) + " is out of range (the dataset has " + std::to_string(n) +
                          " items)");
        if (c != query)
            out.push_back(c);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Zero-weight elements take no part in a transport (seed 001 Eq. 1: f_ij ≤ w = 0), nor in
// the bounds. They are removed before the cost matrix instead of being left to the solver:
// fewer entries to compute. Returns `s` itself when it has no zero weight.
PointSet withoutZeroWeights(const PointSet& s, std::vector<float>& points, std::vector<float>& weights)
{
    if (std::all_of(s.weights, s.weights + s.n, [](float w) { return w > 0.0f; }))
        return s;
    points.clear();
    weights.clear();
    for (std::int64_t i = 0; i < s.n; ++i)
        if (s.weights[i] > 0.0f) {
            points.insert(points.end(), s.points + i * s.d, s.points + (i + 1) * s.d);
            weights.push_back(s.weights[i]);
        }
    return {points.data(), weights.data(), static_cast<std::int64_t>(weights.size()), s.d};
}

// The query side of every pair plus the buffers reused across candidates. Brute force and
// the pruned search both go through prepare() then solve(), so their distances are
// bit-identical.
class QuerySolver {
public:
    /// `control` (may be null) is polled inside every solve, so a cancel does not wait for
    /// a long exact EMD to finish.
    QuerySolver(const PointSet& query, job::JobControl* control)
        : m_query(withoutZeroWeights(query, m_queryPoints, m_queryWeightsF))
        , m_queryWeights(m_query.weights, m_query.weights + m_query.n)
    {
        m_options.control = control;
    }

    /// Takes candidate `c` (valid until the next call) and builds the query x candidate
    /// cost matrix into the reused buffer.
    void prepare(const PointSet& c)
    {
        m_candidate = withoutZeroWeights(c, m_candidatePoints, m_candidateWeightsF);
        costMatrix(m_query, m_candidate, GroundDistance::Euclidean, m_cost);
    }

    /// RWMD of the prepared pair.
    double rwmd() const
    {
        return relaxedEmd(m_cost.data(), m_query.weights, m_query.n, m_candidate.weights, m_candidate.n);
    }

    /// Exact EMD of the prepared pair.
    double solve()
    {
        m_candidateWeights.assign(m_candidate.weights, m_candidate.weights + m_candidate.n);
        return m_solver
            .solveCost(m_cost.data(), m_queryWeights.data(), m_query.n, m_candidateWeights.data(), m_candidate.n,
                       m_options)
            .emd;
    }

private:
    // Declared before m_query, which the constructor builds from them.
    std::vector<float> m_queryPoints, m_queryWeightsF;
    PointSet m_query;
    std::vector<double> m_queryWeights;
    std::vector<float> m_candidatePoints, m_candidateWeightsF;
    PointSet m_candidate;
    std::vector<double> m_candidateWeights;
    std::vector<double> m_cost;
    EmdOptions m_options;
    EmdSolver m_solver;
};

// The k best (emd, item) pairs seen so far; a max-heap whose front is the current k-th.
class TopK {
public:
    TopK(int k, std::size_t candidates)
        : m_k(static_cast<std::size_t>(k))
    {
        m_heap.reserve(std::min(m_k, candidates));
    }

    bool full() const { return m_heap.size() == m_k; }
    double kth() const { return m_heap.front().emd; }

    void offer(const EmdNeighbour& n)
    {
        if (!full()) {
            m_heap.push_back(n);
            std::push_heap(m_heap.begin(), m_heap.end(), before);
        } else if (before(n, m_heap.front())) {
            std::pop_heap(m_heap.begin(), m_heap.end(), before);
            m_heap.back() = n;
            std::push_heap(m_heap.begin(), m_heap.end(), before);
        }
    }

    std::vector<EmdNeighbour> take()
    {
        std::sort_heap(m_heap.begin(), m_heap.end(), before);
        return std::move(m_heap);
    }

private:
    std::size_t m_k;
    std::vector<EmdNeighbour> m_heap;
};

} // namespace

namespace {
/// What both searches do first: count the candidates, honour an early cancel, check the query.
PointSet startQuery(const data::Dataset& dataset, std::int64_t query, const std::vector<std::int64_t>& items,
                    EmdKnnResult& res, job::JobControl* control)
{
    res.stats.candidates = static_cast<std::int64_t>(items.size());
    if (control)
        control->checkpoint();
    const PointSet q = pointSet(dataset, static_cast<std::size_t>(query));
    validate(q, itemName(query));
    return q;
}
} // namespace

EmdKnnResult emdKnn(const data::Dataset& dataset, std::int64_t query, const std::vector<std::int64_t>& candidates,
                    int k, job::JobControl* control)
{
    const std::vector<std::int64_t> items = candidateList(dataset, query, candidates, k);
    EmdKnnResult res;
    const PointSet q = startQuery(dataset, query, items, res, control);
    const CentroidSummary qs = summarize(q);

    // Prefetch: one centroid summary per candidate, then the candidates in ascending order
    // of their centroid bound (ties by index, so the order is deterministic).
    struct Entry {
        double bound;
        std::int64_t item;
    };
    std::vector<Entry> order;
    order.reserve(items.size());
    double scale = qs.scale;
    for (std::size_t t = 0; t < items.size(); ++t) {
        if (control && t % 256 == 255)
            control->checkpoint();
        const PointSet c = pointSet(dataset, static_cast<std::size_t>(items[t]));
        validate(c, itemName(items[t]));
        const CentroidSummary cs = summarize(c);
        scale = std::max(scale, cs.scale);
        order.push_back({centroidBound(qs, cs, GroundDistance::Euclidean), items[t]});
    }
    std::sort(order.begin(), order.end(), [](const Entry& x, const Entry& y) {
        return x.bound != y.bound ? x.bound < y.bound : x.item < y.item;
    });

    // Prune. `scale` is the largest point norm over the query and every candidate, so the
    // stopping threshold does not depend on which candidate is at hand and stopping stays
    // valid for all the later (larger-bound) candidates.
    QuerySolver solver(q, control);
    TopK top(k, items.size());
    for (std::size_t t = 0; t < order.size(); ++t) {
        if (control)
            control->checkpoint();
        const bool full = top.full();
        if (full && exceeds(order[t].bound, top.kth(), scale)) {
            res.stats.prunedByWcd = static_cast<std::int64_t>(order.size() - t);
            break;
        }
        const PointSet c = pointSet(dataset, static_cast<std::size_t>(order[t].item));
        solver.prepare(c);
        if (full && exceeds(solver.rwmd(), top.kth(), scale)) {
            ++res.stats.prunedByRwmd;
            continue;
        }
        ++res.stats.exactSolves;
        top.offer({order[t].item, solver.solve()});
    }
    res.neighbours = top.take();
    return res;
}

EmdKnnResult emdKnnBruteForce(const data::Dataset& dataset, std::int64_t query,
                              const std::vector<std::int64_t>& candidates, int k, job::JobControl* control)
{
    const std::vector<std::int64_t> items = candidateList(dataset, query, candidates, k);
    EmdKnnResult res;
    const PointSet q = startQuery(dataset, query, items, res, control);
    QuerySolver solver(q, control);
    std::vector<EmdNeighbour> all;
    all.reserve(items.size());
    for (const std::int64_t item : items) {
        if (control)
            control->checkpoint();
        const PointSet c = pointSet(dataset, static_cast<std::size_t>(item));
        validate(c, itemName(item));
        solver.prepare(c);
        all.push_back({item, solver.solve()});
        ++res.stats.exactSolves;
    }
    const std::size_t keep = std::min(all.size(), static_cast<std::size_t>(k));
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(), before);
    all.resize(keep);
    res.neighbours = std::move(all);
    return res;
}

} // namespace setscope::ot
