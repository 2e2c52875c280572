// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
//
// Exact EMD: the transportation problem solved by the primal network simplex on the
// bipartite graph rows (supplies, set A) -> columns (demands, set B), with a dense
// row-major cost matrix.
//
// - Start: a basic feasible solution from the row-minimum rule (every row ships to its
//   cheapest columns that still have demand), completed to a spanning tree by zero-flow
//   arcs. Far fewer pivots than an artificial start.
// - Tree: parent pointers, a preorder thread, subtree sizes and last descendants
//   (Ahuja, Magnanti & Orlin, Network Flows §11.5): a pivot reverses the stem and splices
//   the thread in O(stem + depth), and shifts the potentials of the moved subtree in one
//   tight pass over its thread.
// - Pricing: block search over whole rows of the cost matrix (contiguous memory).
// - Anti-cycling: strongly feasible trees (Cunningham 1976; Ahuja, Magnanti & Orlin,
//   Network Flows §11.5): zero-flow tree arcs always point towards the root, which the
//   start guarantees, and the leaving arc is the last blocking arc met when walking the
//   pivot cycle from its apex in the direction of the entering arc. This makes the method
//   finite on the highly degenerate problems uniform weights produce.
// - Unequal masses: a zero-cost slack row or column takes the heavier side's excess, so
//   the real arcs carry exactly min(Σa, Σb) (seed 001 Eq. 1, condition 4).
// - Bounded: a pivot cap (emdPivotCap) turns a cycling bug into an OtError, and an optional
//   JobControl is polled every few thousand pivots, so no solve is a hang a cancel cannot end.

#include "core/ot/Emd.h"
#include "core/util/Numeric.h"

#include "core/ot/CostMatrix.h"
#include "core/job/Job.h"

#include <algorithm>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <limits>
#include <numeric>

namespace setscope::ot {

namespace {


/// min_c (row[c] + pc[c]): the pricing inner loop (reduced cost + the row's potential),
/// two lanes at a time.
double rowMinimum(const double* row, const double* pc, std::int64_t n)
{
#if defined(__SSE2__)
    __m128d m0 = _mm_set1_pd(util::kInfinity), m1 = m0;
    std::int64_t c = 0;
    for (; c + 4 <= n; c += 4) {
        m0 = _mm_min_pd(m0, _mm_add_pd(_mm_loadu_pd(row + c), _mm_loadu_pd(pc + c)));
        m1 = _mm_min_pd(m1, _mm_add_pd(_mm_loadu_pd(row + c + 2), _mm_loadu_pd(pc + c + 2)));
    }
    m0 = _mm_min_pd(m0, m1);
    double out = std::min(_mm_cvtsd_f64(m0), _mm_cvtsd_f64(_mm_unpackhi_pd(m0, m0)));
    for (; c < n; ++c)
        out = std::min(out, row[c] + pc[c]);
    return out;
#else
    double out = util::kInfinity;
    for (std::int64_t c = 0; c < n; ++c)
        out = std::min(out, row[c] + pc[c]);
    return out;
#endif
}

/// The first c with row[c] + pc[c] == value (computed as in rowMinimum, so it is found).
std::int64_t rowArgMinimum(const double* row, const double* pc, std::int64_t n, double value)
{
    std::int64_t c = 0;
#if defined(__SSE2__)
    const __m128d target = _mm_set1_pd(value);
    for (; c + 2 <= n; c += 2) {
        const int mask = _mm_movemask_pd(_mm_cmpeq_pd(_mm_add_pd(_mm_loadu_pd(row + c), _mm_loadu_pd(pc + c)), target));
        if (mask)
            return c + ((mask & 1) ? 0 : 1);
    }
#endif
    for (; c + 1 < n && row[c] + pc[c] != value; ++c) {
    }
    return c;
}

} // namespace

struct EmdSolver::Impl {
    // Problem (after dropping zero-weight elements and adding the slack node).
    std::int64_t m = 0, n = 0;        // rows, columns
    const double* C = nullptr;        // m x n
    std::vector<double> ownCost;      // used when C had to be rebuilt (filtering, slack)
    std::vector<double> supply, demand;
    std::vector<std::int32_t> rowOrig, colOrig; // -1 for the slack node
    std::vector<double> costBuffer;   // cost matrix of solve()
    double cmax = 0;                  // largest cost

    // Node potentials: pi[r] = u_r for rows, pi[m + c] = -v_c for columns, so that basic
    // arcs have C_rc = u_r + v_c, the reduced cost is C_rc - pi[r] + pi[m + c], and moving a
    // subtree adds one constant to all of its nodes.
    std::vector<double> pi;

    // Spanning tree: T = m + n - 1 arcs. Nodes: rows 0..m-1, columns m..m+n-1.
    std::vector<std::int32_t> arcRow, arcCol;
    std::vector<double> flow;
    std::vector<std::int32_t> parent, parentArc;
    // Preorder thread (circular through the root), subtree sizes and last descendants.
    std::vector<std::int32_t> thread, revThread, succNum, lastSucc, order;
    struct StemNode {
        std::int32_t node, parent, arc, size, last, rev, afterLast; // old values
    };
    std::vector<StemNode> stem;
    std::vector<std::int32_t> head, next, prev; // half-edges 2k (at the row) and 2k+1 (at the column)
    std::vector<std::int32_t> stack;
    std::vector<std::int32_t> pathI, pathJ; // nodes from i / j up to (excluding) the apex
    std::vector<double> demLeft; // demand not yet served by the start

    std::int64_t pivots = 0;
    std::int64_t sizeA = 0, sizeB = 0;        // the caller's sizes (for messages)
    job::JobControl* control = nullptr;     // polled during the solve (may be null)
    std::int64_t maxPivots = 0;               // the cap of this solve

    std::int32_t nodeOfHalf(std::int32_t h) const
    {
        const std::int32_t k = h >> 1;
        return (h & 1) ? static_cast<std::int32_t>(m) + arcCol[k] : arcRow[k];
    }
    std::int32_t otherEnd(std::int32_t k, std::int32_t node) const
    {
        const std::int32_t r = arcRow[k], c = static_cast<std::int32_t>(m) + arcCol[k];
        return node == r ? c : r;
    }
    void linkHalf(std::int32_t h, std::int32_t node)
    {
        prev[h] = -1;
        next[h] = head[node];
        if (head[node] >= 0)
            prev[head[node]] = h;
        head[node] = h;
    }
    void unlinkHalf(std::int32_t h, std::int32_t node)
    {
        if (prev[h] >= 0)
            next[prev[h]] = next[h];
        else
            head[node] = next[h];
        if (next[h] >= 0)
            prev[next[h]] = prev[h];
    }
    void setArc(std::int32_t k, std::int32_t r, std::int32_t c, double f)
    {
        arcRow[k] = r;
        arcCol[k] = c;
        flow[k] = f;
        linkHalf(2 * k, r);
        linkHalf(2 * k + 1, static_cast<std::int32_t>(m) + c);
    }

    void prepare(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb);
    std::int32_t rowMinimumStart(std::int32_t maxArcs);
    void initialTree();
    void computePotentials(std::int32_t root);
    void run();
    EmdResult result(bool withFlows) const;
};

void EmdSolver::Impl::prepare(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb)
{
    sizeA = na;
    sizeB = nb;
    pivots = 0;
    if (na <= 0 || nb <= 0)
        throw OtError(na <= 0 ? "set A is empty" : "set B is empty");
    double sa = 0, sb = 0;
    rowOrig.clear();
    colOrig.clear();
    for (std::int64_t i = 0; i < na; ++i) {
        if (!std::isfinite(wa[i]) || wa[i] < 0)
            throw OtError("set A: element " + std::to_string(i) + " has weight " + std::to_string(wa[i]));
        if (wa[i] > 0) {
            rowOrig.push_back(static_cast<std::int32_t>(i));
            sa += wa[i];
        }
    }
    for (std::int64_t j = 0; j < nb; ++j) {
        if (!std::isfinite(wb[j]) || wb[j] < 0)
            throw OtError("set B: element " + std::to_string(j) + " has weight " + std::to_string(wb[j]));
        if (wb[j] > 0) {
            colOrig.push_back(static_cast<std::int32_t>(j));
            sb += wb[j];
        }
    }
    if (!(sa > 0))
        throw OtError("set A has zero total weight");
    if (!(sb > 0))
        throw OtError("set B has zero total weight");

    // A slack node absorbs the excess of the heavier side at zero cost. Relative
    // differences at rounding level are not worth a node: the start clips them.
    const double excess = sa - sb;
    const bool slackCol = excess > 1e-12 * sa;
    const bool slackRow = -excess > 1e-12 * sb;
    if (slackCol)
        colOrig.push_back(-1);
    if (slackRow)
        rowOrig.push_back(-1);
    m = static_cast<std::int64_t>(rowOrig.size());
    n = static_cast<std::int64_t>(colOrig.size());

    // The caller's matrix is usable as is only when no element was dropped and no slack added
    // (a dropped row and an added slack row would keep the count but shift the rows).
    const bool dense = !slackRow && !slackCol && m == na && n == nb;
    if (dense) {
        C = cost;
    } else {
        ownCost.resize(static_cast<std::size_t>(m * n));
        for (std::int64_t r = 0; r < m; ++r)
            for (std::int64_t c = 0; c < n; ++c) {
                const std::int32_t i = rowOrig[static_cast<std::size_t>(r)], j = colOrig[static_cast<std::size_t>(c)];
                const double x = (i < 0 || j < 0) ? 0.0 : cost[i * nb + j];
                ownCost[static_cast<std::size_t>(r * n + c)] = x;
            }
        C = ownCost.data();
    }
    cmax = 0;
    for (std::int64_t k = 0; k < m * n; ++k) {
        if (!(C[k] >= 0 && C[k] < util::kInfinity)) // also catches NaN
            throw OtError("cost matrix entry " + std::to_string(k / n) + "," + std::to_string(k % n) + " is " +
                          std::to_string(C[k]) + " (costs must be finite and non-negative)");
        cmax = std::max(cmax, C[k]);
    }

    supply.resize(static_cast<std::size_t>(m));
    demand.resize(static_cast<std::size_t>(n));
    for (std::int64_t r = 0; r < m; ++r) {
        const std::int32_t i = rowOrig[static_cast<std::size_t>(r)];
        supply[static_cast<std::size_t>(r)] = i < 0 ? -excess : wa[i];
    }
    for (std::int64_t c = 0; c < n; ++c) {
        const std::int32_t j = colOrig[static_cast<std::size_t>(c)];
        demand[static_cast<std::size_t>(c)] = j < 0 ? excess : wb[j];
    }
}

std::int32_t EmdSolver::Impl::rowMinimumStart(std::int32_t maxArcs)
{
    // Each row, in turn, ships to its cheapest columns with demand left. Every allocation
    // exhausts its row or its column, so the arcs form a forest.
    demLeft.assign(demand.begin(), demand.end());
    std::int32_t used = 0;
    for (std::int64_t r = 0; r < m; ++r) {
        double s = supply[static_cast<std::size_t>(r)];
        const double* row = C + r * n;
        while (s > 0 && used < maxArcs) {
            std::int64_t best = -1;
            double bc = util::kInfinity;
            for (std::int64_t c = 0; c < n; ++c)
                if (demLeft[static_cast<std::size_t>(c)] > 0 && row[c] < bc) {
                    bc = row[c];
                    best = c;
                }
            if (best < 0)
                break; // rounding: the last crumbs of supply have nowhere to go
            double& d = demLeft[static_cast<std::size_t>(best)];
            const double x = std::min(s, d);
            setArc(used++, static_cast<std::int32_t>(r), static_cast<std::int32_t>(best), x);
            s -= x;
            d -= x;
            if (s <= 1e-15 * supply[static_cast<std::size_t>(r)])
                s = 0;
            if (d <= 1e-15 * demand[static_cast<std::size_t>(best)])
                d = 0;
        }
    }
    return used;
}

void EmdSolver::Impl::initialTree()
{
    const auto nodes = static_cast<std::size_t>(m + n);
    const auto arcs = nodes - 1;
    arcRow.assign(arcs, -1);
    arcCol.assign(arcs, -1);
    flow.assign(arcs, 0.0);
    head.assign(nodes, -1);
    next.assign(2 * arcs, -1);
    prev.assign(2 * arcs, -1);

    // The start: the row-minimum rule. (Vogel's approximation needs ~40 % fewer pivots but
    // costs more than it saves up to a few hundred elements per side; measured.)
    std::int32_t used = rowMinimumStart(static_cast<std::int32_t>(arcs));

    // Join the components with zero-flow arcs into a spanning tree. Strong feasibility:
    // a zero arc (row -> column) must be traversed forwards on the way to the root, i.e.
    // the row is the child. Root: column 0's component; every other component hangs by
    // one of its rows from a column already in the tree (its cheapest such arc).
    std::vector<std::int32_t> comp(nodes, -1);
    std::int32_t ncomp = 0;
    for (std::size_t s0 = 0; s0 < nodes; ++s0) {
        if (comp[s0] >= 0)
            continue;
        stack.clear();
        stack.push_back(static_cast<std::int32_t>(s0));
        comp[s0] = ncomp;
        while (!stack.empty()) {
            const std::int32_t x = stack.back();
            stack.pop_back();
            for (std::int32_t h = head[static_cast<std::size_t>(x)]; h >= 0; h = next[static_cast<std::size_t>(h)]) {
                const std::int32_t y = otherEnd(h >> 1, x);
                if (comp[static_cast<std::size_t>(y)] < 0) {
                    comp[static_cast<std::size_t>(y)] = ncomp;
                    stack.push_back(y);
                }
            }
        }
        ++ncomp;
    }
    if (ncomp > 1) {
        const std::int32_t rootComp = comp[static_cast<std::size_t>(m)];
        std::vector<char> inTree(static_cast<std::size_t>(ncomp), 0);
        inTree[static_cast<std::size_t>(rootComp)] = 1;
        std::int32_t remaining = ncomp - 1;
        while (remaining > 0) {
            // Each join scans the matrix: with equal weights (one component per row) this
            // phase alone can take seconds on thousands of elements, so it polls too.
            if (control)
                control->checkpoint();
            // Cheapest arc from a row outside the tree to a column inside it.
            double bc = util::kInfinity;
            std::int64_t br = -1, bcol = -1;
            for (std::int64_t r = 0; r < m; ++r) {
                if (inTree[static_cast<std::size_t>(comp[static_cast<std::size_t>(r)])])
                    continue;
                const double* row = C + r * n;
                for (std::int64_t c = 0; c < n; ++c)
                    if (inTree[static_cast<std::size_t>(comp[static_cast<std::size_t>(m + c)])] && row[c] < bc) {
                        bc = row[c];
                        br = r;
                        bcol = c;
                    }
            }
            if (br < 0) {
                // A component without rows (a column whose demand was left to rounding):
                // hang it from any row in the tree. Zero flow, column as child: it is a leaf
                // that no flow ever needs to leave, which keeps the tree usable.
                for (std::int64_t c = 0; c < n && br < 0; ++c)
                    if (!inTree[static_cast<std::size_t>(comp[static_cast<std::size_t>(m + c)])])
                        for (std::int64_t r = 0; r < m; ++r)
                            if (inTree[static_cast<std::size_t>(comp[static_cast<std::size_t>(r)])]) {
                                br = r;
                                bcol = c;
                                break;
                            }
                setArc(used++, static_cast<std::int32_t>(br), static_cast<std::int32_t>(bcol), 0.0);
                inTree[static_cast<std::size_t>(comp[static_cast<std::size_t>(m + bcol)])] = 1;
            } else {
                setArc(used++, static_cast<std::int32_t>(br), static_cast<std::int32_t>(bcol), 0.0);
                inTree[static_cast<std::size_t>(comp[static_cast<std::size_t>(br)])] = 1;
            }
            --remaining;
        }
    }
    computePotentials(static_cast<std::int32_t>(m)); // root: column 0
}

void EmdSolver::Impl::computePotentials(std::int32_t root)
{
    // One DFS from the root over the adjacency lists of the start tree: parents, potentials
    // and the preorder ("thread"), from which subtree sizes and last descendants follow.
    // Pivots then maintain these without the adjacency lists.
    const auto nodes = static_cast<std::int32_t>(m + n);
    pi.assign(static_cast<std::size_t>(nodes), 0.0);
    parent.assign(static_cast<std::size_t>(nodes), -1);
    parentArc.assign(static_cast<std::size_t>(nodes), -1);
    thread.assign(static_cast<std::size_t>(nodes), -1);
    revThread.assign(static_cast<std::size_t>(nodes), -1);
    succNum.assign(static_cast<std::size_t>(nodes), 1);
    lastSucc.assign(static_cast<std::size_t>(nodes), -1);
    order.clear();
    stack.clear();
    stack.push_back(root);
    while (!stack.empty()) {
        const std::int32_t x = stack.back();
        stack.pop_back();
        order.push_back(x);
        for (std::int32_t h = head[static_cast<std::size_t>(x)]; h >= 0; h = next[static_cast<std::size_t>(h)]) {
            const std::int32_t k = h >> 1;
            if (k == parentArc[static_cast<std::size_t>(x)])
                continue;
            const std::int32_t y = otherEnd(k, x);
            parent[static_cast<std::size_t>(y)] = x;
            parentArc[static_cast<std::size_t>(y)] = k;
            const double c = C[static_cast<std::int64_t>(arcRow[static_cast<std::size_t>(k)]) * n + arcCol[static_cast<std::size_t>(k)]];
            // Basic arc (r, c): pi[r] - pi[m + c] = C_rc.
            if (y < m) // y is a row, x its column
                pi[static_cast<std::size_t>(y)] = c + pi[static_cast<std::size_t>(x)];
            else
                pi[static_cast<std::size_t>(y)] = pi[static_cast<std::size_t>(x)] - c;
            stack.push_back(y);
        }
    }
    // `order` is a preorder (a DFS with a stack visits every subtree contiguously).
    for (std::int32_t t = 0; t < nodes; ++t) {
        const std::int32_t x = order[static_cast<std::size_t>(t)];
        const std::int32_t y = order[static_cast<std::size_t>((t + 1) % nodes)];
        thread[static_cast<std::size_t>(x)] = y;
        revThread[static_cast<std::size_t>(y)] = x;
    }
    for (std::int32_t t = nodes - 1; t > 0; --t) {
        const std::int32_t x = order[static_cast<std::size_t>(t)];
        succNum[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])] += succNum[static_cast<std::size_t>(x)];
    }
    for (std::int32_t t = 0; t < nodes; ++t) {
        const std::int32_t x = order[static_cast<std::size_t>(t)];
        lastSucc[static_cast<std::size_t>(x)] = order[static_cast<std::size_t>(t + succNum[static_cast<std::size_t>(x)] - 1)];
    }
}

void EmdSolver::Impl::run()
{
    // Entering arcs must improve by more than rounding noise in the potentials.
    const double eps = 1e-12 * std::max(1.0, cmax);
    const std::int64_t blockRows = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(m * n)) / static_cast<double>(n))));
    std::int64_t cursor = 0;
    pivots = 0;
    const auto M = static_cast<std::int32_t>(m);
    pathI.resize(static_cast<std::size_t>(m + n));
    pathJ.resize(static_cast<std::size_t>(m + n));
    std::int32_t* par = parent.data();
    std::int32_t* parc = parentArc.data();
    std::int32_t* thr = thread.data();
    std::int32_t* rthr = revThread.data();
    std::int32_t* size = succNum.data();
    std::int32_t* last = lastSucc.data();
    double* fl = flow.data();
    const double* piCol = pi.data() + m;
    std::int64_t nextPoll = kEmdPollPivots, priced = 0;

    for (;;) {
        // Block search pricing over whole rows.
        double best = -eps;
        std::int64_t bi = -1;
        double bestRowMin = 0;
        std::int64_t scanned = 0;
        while (scanned < m) {
            for (std::int64_t b = 0; b < blockRows && scanned < m; ++b, ++scanned) {
                const std::int64_t r = cursor;
                cursor = cursor + 1 == m ? 0 : cursor + 1;
                const double rowMin = rowMinimum(C + r * n, piCol, n);
                const double rowBest = rowMin - pi[static_cast<std::size_t>(r)];
                if (rowBest < best) {
                    best = rowBest;
                    bi = r;
                    bestRowMin = rowMin;
                }
            }
            if (bi >= 0)
                break;
        }
        if (bi < 0)
            return; // no arc with a negative reduced cost: optimal
        if (pivots == maxPivots)
            throw OtError("exact EMD did not converge: the network simplex reached its cap of " +
                          std::to_string(maxPivots) + " pivots on a " + std::to_string(sizeA) + " x " +
                          std::to_string(sizeB) + " problem (sets of " + std::to_string(sizeA) + " and " +
                          std::to_string(sizeB) + " elements); this is a solver bug, please report it with the data");
        ++pivots;
        if (control) {
            priced += scanned * n;
            if (pivots >= nextPoll || priced >= kEmdPollEntries) {
                control->checkpoint();
                nextPoll = pivots + kEmdPollPivots;
                priced = 0;
            }
        }
        const std::int64_t bj = rowArgMinimum(C + bi * n, piCol, n, bestRowMin);

        // The pivot cycle: entering arc (i -> j) and the tree paths from i and from j up to
        // their apex (the join: an ancestor has a larger subtree than its descendants).
        const auto i = static_cast<std::int32_t>(bi);
        const auto j = static_cast<std::int32_t>(m + bj);
        std::int32_t* pI = pathI.data();
        std::int32_t* pJ = pathJ.data();
        std::int32_t nI = 0, nJ = 0;
        std::int32_t a = i, b = j;
        while (a != b) {
            if (size[a] < size[b]) {
                pI[nI++] = a;
                a = par[a];
            } else {
                pJ[nJ++] = b;
                b = par[b];
            }
        }
        const std::int32_t apex = a;
        // Paths hold child nodes; a node's arc to its parent is parc[x]. Walk the cycle from
        // the apex in the direction of the entering arc: apex -> ... -> i (pathI backwards),
        // i -> j, j -> ... -> apex (pathJ). Walking down to a row, or up from a column, goes
        // against the arc's row -> column orientation: those arcs decrease. Among the arcs
        // with the least flow, the last one met leaves (strongly feasible trees).
        double theta = util::kInfinity;
        std::int32_t w = -1; // child end of the leaving arc
        bool leaveOnI = false;
        for (std::int32_t t = nI; t-- > 0;) {
            const std::int32_t x = pI[t];
            if (x < M && fl[parc[x]] <= theta) {
                theta = fl[parc[x]];
                w = x;
                leaveOnI = true;
            }
        }
        for (std::int32_t t = 0; t < nJ; ++t) {
            const std::int32_t x = pJ[t];
            if (x >= M && fl[parc[x]] <= theta) {
                theta = fl[parc[x]];
                w = x;
                leaveOnI = false;
            }
        }
        // (A bipartite cycle alternates orientations: a decreasing arc always exists.)
        for (std::int32_t t = 0; t < nI; ++t)
            fl[parc[pI[t]]] += pI[t] < M ? -theta : theta;
        for (std::int32_t t = 0; t < nJ; ++t)
            fl[parc[pJ[t]]] += pJ[t] >= M ? -theta : theta;
        const std::int32_t slot = parc[w]; // the leaving arc's slot becomes the entering arc
        arcRow[static_cast<std::size_t>(slot)] = i;
        arcCol[static_cast<std::size_t>(slot)] = static_cast<std::int32_t>(bj);
        fl[slot] = theta;

        // The subtree T2 of w is cut off; it hangs from p by the entering arc, re-rooted at q.
        const std::int32_t q = leaveOnI ? i : j;
        const std::int32_t p = leaveOnI ? j : i;
        const std::int32_t t2size = size[w];
        const std::int32_t oldLastW = last[w];
        const std::int32_t before = rthr[w];
        const std::int32_t after = thr[oldLastW];
        // 1. Take T2's preorder segment out of the thread.
        thr[before] = after;
        rthr[after] = before;
        // 2. Ancestors of w whose subtree ended with T2 now end just before it; the ones up
        //    to the apex lose T2's nodes.
        for (std::int32_t x = par[w]; x >= 0 && last[x] == oldLastW; x = par[x])
            last[x] = before;
        for (std::int32_t x = par[w]; x != apex; x = par[x])
            size[x] -= t2size;
        // 3. The stem q = s0, s1 = parent(s0), ..., sk = w reverses. T2's new preorder:
        //    q's old subtree, then for each s_i its old subtree minus s_{i-1}'s (two pieces).
        stem.clear();
        for (std::int32_t x = q;; x = par[x]) {
            stem.push_back({x, par[x], parc[x], size[x], last[x], rthr[x], thr[last[x]]});
            if (x == w)
                break;
        }
        std::int32_t tail = stem[0].last; // end of the new sequence so far
        for (std::size_t t = 1; t < stem.size(); ++t) {
            const StemNode& s1 = stem[t];
            const StemNode& c0 = stem[t - 1]; // s1's old child on the stem
            thr[tail] = s1.node;
            rthr[s1.node] = tail;
            tail = c0.rev; // end of piece 1: just before the child's old segment
            if (c0.last != s1.last) { // piece 2: after the child's segment, to s1's old end
                const std::int32_t start2 = c0.afterLast;
                thr[tail] = start2;
                rthr[start2] = tail;
                tail = s1.last;
            }
        }
        const std::int32_t L = tail;
        // Sizes, last descendants and parents of the stem in the new orientation.
        std::int32_t below = 0; // new size of s_{t+1}
        for (std::size_t t = stem.size(); t-- > 0;) {
            const std::int32_t x = stem[t].node;
            const std::int32_t oldChild = t > 0 ? stem[t - 1].size : 0;
            size[x] = stem[t].size - oldChild + below;
            below = size[x];
            last[x] = L;
        }
        for (std::size_t t = 1; t < stem.size(); ++t) {
            par[stem[t].node] = stem[t - 1].node;
            parc[stem[t].node] = stem[t - 1].arc;
        }
        par[q] = p;
        parc[q] = slot;
        // 4. Insert T2 at the end of p's subtree; p and its ancestors that ended there now
        //    end with T2, and the ones below the apex gain T2's nodes.
        const std::int32_t pos = last[p];
        const std::int32_t nxt = thr[pos];
        thr[pos] = q;
        rthr[q] = pos;
        thr[L] = nxt;
        rthr[nxt] = L;
        for (std::int32_t x = p; x >= 0 && last[x] == pos; x = par[x])
            last[x] = L;
        for (std::int32_t x = p; x != apex; x = par[x])
            size[x] += t2size;

        // 5. Shift T2's potentials so that the entering arc has zero reduced cost
        //    (rows +delta, columns -delta keeps the reduced costs inside T2).
        // pi[i] - pi[j] must become C_ij; only q's side moves.
        const double cij = C[bi * n + bj];
        const double delta = q < M ? (cij + pi[static_cast<std::size_t>(j)]) - pi[static_cast<std::size_t>(i)]
                                   : (pi[static_cast<std::size_t>(i)] - cij) - pi[static_cast<std::size_t>(j)];
        double* pot = pi.data();
        for (std::int32_t x = q;; x = thr[x]) {
            pot[x] += delta;
            if (x == L)
                break;
        }
    }
}

EmdResult EmdSolver::Impl::result(bool withFlows) const
{
    EmdResult res;
    res.pivots = pivots;
    for (std::size_t k = 0; k < flow.size(); ++k) {
        const double f = flow[k];
        if (!(f > 0))
            continue;
        const std::int32_t i = rowOrig[static_cast<std::size_t>(arcRow[k])];
        const std::int32_t j = colOrig[static_cast<std::size_t>(arcCol[k])];
        if (i < 0 || j < 0)
            continue; // slack
        res.work += f * C[static_cast<std::int64_t>(arcRow[k]) * n + arcCol[k]];
        res.totalFlow += f;
        if (withFlows)
            res.flows.push_back({i, j, f});
    }
    res.emd = res.totalFlow > 0 ? res.work / res.totalFlow : 0.0;
    if (withFlows)
        std::sort(res.flows.begin(), res.flows.end(),
                  [](const Flow& x, const Flow& y) { return x.i != y.i ? x.i < y.i : x.j < y.j; });
    return res;
}

// ---------------------------------------------------------------------------------------

EmdSolver::EmdSolver()
    : m_impl(std::make_unique<Impl>())
{
}
EmdSolver::~EmdSolver() = default;
EmdSolver::EmdSolver(EmdSolver&&) noexcept = default;
EmdSolver& EmdSolver::operator=(EmdSolver&&) noexcept = default;

std::int64_t emdPivotCap(std::int64_t na, std::int64_t nb)
{
    return std::max<std::int64_t>(1'000'000, 1000 * (std::max<std::int64_t>(na, 0) + std::max<std::int64_t>(nb, 0)));
}

EmdResult EmdSolver::solveCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                               bool flows)
{
    EmdOptions o;
    o.flows = flows;
    return solveCost(cost, wa, na, wb, nb, o);
}

EmdResult EmdSolver::solveCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                               const EmdOptions& options)
{
    if (options.maxPivots < 0)
        throw OtError("maxPivots must be positive, or 0 for the default cap (got " +
                      std::to_string(options.maxPivots) + ")");
    Impl& s = *m_impl;
    s.control = options.control;
    s.maxPivots = options.maxPivots > 0 ? options.maxPivots : emdPivotCap(na, nb);
    s.prepare(cost, wa, na, wb, nb);
    s.initialTree();
    s.run();
    return s.result(options.flows);
}

std::int64_t EmdSolver::lastPivots() const { return m_impl->pivots; }

EmdResult EmdSolver::solve(const PointSet& a, const PointSet& b, const EmdOptions& options)
{
    validate(a, "set A");
    validate(b, "set B");
    if (a.d != b.d)
        throw OtError("sets have different dimensions (" + std::to_string(a.d) + " and " + std::to_string(b.d) + ")");
    Impl& s = *m_impl;
    costMatrix(a, b, options.ground, s.costBuffer);
    std::vector<double> wa(a.weights, a.weights + a.n), wb(b.weights, b.weights + b.n);
    return solveCost(s.costBuffer.data(), wa.data(), a.n, wb.data(), b.n, options);
}

EmdResult emd(const PointSet& a, const PointSet& b, const EmdOptions& options)
{
    EmdSolver solver;
    return solver.solve(a, b, options);
}

EmdResult emdFromCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                      bool flows)
{
    EmdSolver solver;
    return solver.solveCost(cost, wa, na, wb, nb, flows);
}

EmdResult emdFromCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                      const EmdOptions& options)
{
    EmdSolver solver;
    return solver.solveCost(cost, wa, na, wb, nb, options);
}

} // namespace setscope::ot
