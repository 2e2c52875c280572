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
// - Tree: parent pointers, depths and doubly linked adjacency lists of tree arcs; a pivot
//   re-hangs the detached subtree by a DFS (O(subtree)).
// - Pricing: block search over whole rows of the cost matrix (contiguous memory).
// - Anti-cycling: strongly feasible trees (Cunningham 1976; Ahuja, Magnanti & Orlin,
//   Network Flows §11.5): zero-flow tree arcs always point towards the root, which the
//   start guarantees, and the leaving arc is the last blocking arc met when walking the
//   pivot cycle from its apex in the direction of the entering arc. This makes the method
//   finite on the highly degenerate problems uniform weights produce.
// - Unequal masses: a zero-cost slack row or column takes the heavier side's excess, so
//   the real arcs carry exactly min(Σa, Σb) (seed 001 Eq. 1, condition 4).

#include "core/ot/Emd.h"

#include "core/ot/CostMatrix.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace setscope::ot {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

struct EmdSolver::Impl {
    // Problem (after dropping zero-weight elements and adding the slack node).
    std::int64_t m = 0, n = 0;        // rows, columns
    const double* C = nullptr;        // m x n
    std::vector<double> ownCost;      // used when C had to be rebuilt (filtering, slack)
    std::vector<double> supply, demand;
    std::vector<std::int32_t> rowOrig, colOrig; // -1 for the slack node
    std::vector<double> costBuffer;   // cost matrix of solve()

    // Potentials: u for rows, v for columns; basic arcs have C_rc = u_r + v_c.
    std::vector<double> u, v;

    // Spanning tree: T = m + n - 1 arcs. Nodes: rows 0..m-1, columns m..m+n-1.
    std::vector<std::int32_t> arcRow, arcCol;
    std::vector<double> flow;
    std::vector<std::int32_t> parent, parentArc, depth;
    std::vector<std::int32_t> head, next, prev; // half-edges 2k (at the row) and 2k+1 (at the column)
    std::vector<std::int32_t> stack;
    std::vector<std::int32_t> pathI, pathJ; // arcs from i / j up to the apex

    std::int64_t pivots = 0;

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
    void initialTree();
    void computePotentials(std::int32_t root);
    void run();
    EmdResult result(bool withFlows) const;
};

void EmdSolver::Impl::prepare(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb)
{
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

    const bool dense = m == na && n == nb;
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
    for (std::int64_t k = 0; k < m * n; ++k)
        if (!std::isfinite(C[k]) || C[k] < 0)
            throw OtError("cost matrix entry " + std::to_string(k / n) + "," + std::to_string(k % n) + " is " +
                          std::to_string(C[k]) + " (costs must be finite and non-negative)");

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

    // Row-minimum rule: each row, in turn, ships to its cheapest columns with demand left.
    // Every allocation exhausts its row or its column, so the arcs form a forest.
    std::vector<double> dem(demand.begin(), demand.end());
    std::int32_t used = 0;
    for (std::int64_t r = 0; r < m; ++r) {
        double s = supply[static_cast<std::size_t>(r)];
        const double* row = C + r * n;
        while (s > 0) {
            std::int64_t best = -1;
            double bc = kInf;
            for (std::int64_t c = 0; c < n; ++c)
                if (dem[static_cast<std::size_t>(c)] > 0 && row[c] < bc) {
                    bc = row[c];
                    best = c;
                }
            if (best < 0)
                break; // rounding: the last crumbs of supply have nowhere to go
            double& d = dem[static_cast<std::size_t>(best)];
            const double x = std::min(s, d);
            if (used == static_cast<std::int32_t>(arcs))
                break; // cannot happen for exact arithmetic; keeps the tree size safe
            setArc(used++, static_cast<std::int32_t>(r), static_cast<std::int32_t>(best), x);
            s -= x;
            d -= x;
            if (s <= 1e-15 * supply[static_cast<std::size_t>(r)])
                s = 0;
            if (d <= 1e-15 * demand[static_cast<std::size_t>(best)])
                d = 0;
        }
    }

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
            // Cheapest arc from a row outside the tree to a column inside it.
            double bc = kInf;
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
    const auto nodes = static_cast<std::size_t>(m + n);
    u.assign(static_cast<std::size_t>(m), 0.0);
    v.assign(static_cast<std::size_t>(n), 0.0);
    parent.assign(nodes, -1);
    parentArc.assign(nodes, -1);
    depth.assign(nodes, 0);
    stack.clear();
    stack.push_back(root);
    while (!stack.empty()) {
        const std::int32_t x = stack.back();
        stack.pop_back();
        for (std::int32_t h = head[static_cast<std::size_t>(x)]; h >= 0; h = next[static_cast<std::size_t>(h)]) {
            const std::int32_t k = h >> 1;
            if (k == parentArc[static_cast<std::size_t>(x)])
                continue;
            const std::int32_t y = otherEnd(k, x);
            parent[static_cast<std::size_t>(y)] = x;
            parentArc[static_cast<std::size_t>(y)] = k;
            depth[static_cast<std::size_t>(y)] = depth[static_cast<std::size_t>(x)] + 1;
            const double c = C[static_cast<std::int64_t>(arcRow[static_cast<std::size_t>(k)]) * n + arcCol[static_cast<std::size_t>(k)]];
            if (y < m) // y is a row, x its column: u_y = C - v_x
                u[static_cast<std::size_t>(y)] = c - v[static_cast<std::size_t>(x - m)];
            else
                v[static_cast<std::size_t>(y - m)] = c - u[static_cast<std::size_t>(x)];
            stack.push_back(y);
        }
    }
}

void EmdSolver::Impl::run()
{
    double cmax = 0;
    for (std::int64_t k = 0; k < m * n; ++k)
        cmax = std::max(cmax, C[k]);
    // Entering arcs must improve by more than rounding noise in the potentials.
    const double eps = 1e-12 * std::max(1.0, cmax);
    const std::int64_t blockRows = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(m * n)) / static_cast<double>(n))));
    std::int64_t cursor = 0;
    pivots = 0;

    for (;;) {
        // Block search pricing over whole rows.
        double best = -eps;
        std::int64_t bi = -1, bj = -1;
        std::int64_t scanned = 0;
        while (scanned < m) {
            for (std::int64_t b = 0; b < blockRows && scanned < m; ++b, ++scanned) {
                const std::int64_t r = cursor;
                cursor = cursor + 1 == m ? 0 : cursor + 1;
                const double* row = C + r * n;
                const double ur = u[static_cast<std::size_t>(r)];
                const double* vv = v.data();
                double rowBest = kInf;
                std::int64_t rowArg = -1;
                for (std::int64_t c = 0; c < n; ++c) {
                    const double rc = row[c] - ur - vv[c];
                    if (rc < rowBest) {
                        rowBest = rc;
                        rowArg = c;
                    }
                }
                if (rowBest < best) {
                    best = rowBest;
                    bi = r;
                    bj = rowArg;
                }
            }
            if (bi >= 0)
                break;
        }
        if (bi < 0)
            return; // no arc with a negative reduced cost: optimal
        ++pivots;

        // The pivot cycle: entering arc (i -> j), then the tree paths from j and from i up
        // to their apex.
        const auto i = static_cast<std::int32_t>(bi);
        const auto j = static_cast<std::int32_t>(m + bj);
        pathI.clear();
        pathJ.clear();
        std::int32_t a = i, b = j;
        while (a != b) {
            if (depth[static_cast<std::size_t>(a)] >= depth[static_cast<std::size_t>(b)]) {
                pathI.push_back(parentArc[static_cast<std::size_t>(a)]);
                a = parent[static_cast<std::size_t>(a)];
            } else {
                pathJ.push_back(parentArc[static_cast<std::size_t>(b)]);
                b = parent[static_cast<std::size_t>(b)];
            }
        }
        // Walk the cycle from the apex in the direction of the entering arc:
        // apex -> ... -> i  (pathI reversed), i -> j (entering), j -> ... -> apex (pathJ).
        // On pathI, walking down from a parent to its child x: the arc decreases when the
        // child is a row (column -> row goes against the arc's row -> column orientation).
        // On pathJ, walking up from a child x to its parent: the arc decreases when the
        // child is a column.
        double theta = kInf;
        std::int32_t leave = -1;
        bool leaveOnI = false;
        for (auto it = pathI.rbegin(); it != pathI.rend(); ++it) {
            const std::int32_t k = *it;
            // The child end of tree arc k on pathI is the endpoint farther from the apex,
            // i.e. the deeper one.
            const std::int32_t r = arcRow[static_cast<std::size_t>(k)];
            const std::int32_t c = static_cast<std::int32_t>(m) + arcCol[static_cast<std::size_t>(k)];
            const bool childIsRow = depth[static_cast<std::size_t>(r)] > depth[static_cast<std::size_t>(c)];
            if (childIsRow && flow[static_cast<std::size_t>(k)] <= theta) { // "<=": the last blocking arc wins
                theta = flow[static_cast<std::size_t>(k)];
                leave = k;
                leaveOnI = true;
            }
        }
        for (const std::int32_t k : pathJ) {
            const std::int32_t r = arcRow[static_cast<std::size_t>(k)];
            const std::int32_t c = static_cast<std::int32_t>(m) + arcCol[static_cast<std::size_t>(k)];
            const bool childIsCol = depth[static_cast<std::size_t>(c)] > depth[static_cast<std::size_t>(r)];
            if (childIsCol && flow[static_cast<std::size_t>(k)] <= theta) {
                theta = flow[static_cast<std::size_t>(k)];
                leave = k;
                leaveOnI = false;
            }
        }
        // A bipartite cycle alternates orientations, so a decreasing arc always exists.

        // Augment.
        for (const std::int32_t k : pathI) {
            const std::int32_t r = arcRow[static_cast<std::size_t>(k)];
            const std::int32_t c = static_cast<std::int32_t>(m) + arcCol[static_cast<std::size_t>(k)];
            flow[static_cast<std::size_t>(k)] += depth[static_cast<std::size_t>(r)] > depth[static_cast<std::size_t>(c)] ? -theta : theta;
        }
        for (const std::int32_t k : pathJ) {
            const std::int32_t r = arcRow[static_cast<std::size_t>(k)];
            const std::int32_t c = static_cast<std::int32_t>(m) + arcCol[static_cast<std::size_t>(k)];
            flow[static_cast<std::size_t>(k)] += depth[static_cast<std::size_t>(c)] > depth[static_cast<std::size_t>(r)] ? -theta : theta;
        }
        flow[static_cast<std::size_t>(leave)] = 0.0; // exactly: it leaves the basis at its bound

        // Swap the arcs: the leaving arc's slot becomes the entering arc.
        const std::int32_t lr = arcRow[static_cast<std::size_t>(leave)];
        const std::int32_t lc = static_cast<std::int32_t>(m) + arcCol[static_cast<std::size_t>(leave)];
        unlinkHalf(2 * leave, lr);
        unlinkHalf(2 * leave + 1, lc);
        setArc(leave, i, static_cast<std::int32_t>(bj), theta);

        // The subtree cut off by the leaving arc contains i (leaving arc on pathI) or j; it
        // now hangs from the other end of the entering arc. Re-hang it by a DFS, shifting
        // its potentials so that the entering arc has zero reduced cost.
        const std::int32_t q = leaveOnI ? i : j;
        const std::int32_t p = leaveOnI ? j : i;
        const double cij = C[bi * n + bj];
        double delta; // added to the potentials of q's side (rows +delta, columns -delta)
        if (q < m)
            delta = (cij - v[static_cast<std::size_t>(p - m)]) - u[static_cast<std::size_t>(q)];
        else
            delta = -((cij - u[static_cast<std::size_t>(p)]) - v[static_cast<std::size_t>(q - m)]);
        parent[static_cast<std::size_t>(q)] = p;
        parentArc[static_cast<std::size_t>(q)] = leave;
        depth[static_cast<std::size_t>(q)] = depth[static_cast<std::size_t>(p)] + 1;
        stack.clear();
        stack.push_back(q);
        while (!stack.empty()) {
            const std::int32_t x = stack.back();
            stack.pop_back();
            if (x < m)
                u[static_cast<std::size_t>(x)] += delta;
            else
                v[static_cast<std::size_t>(x - m)] -= delta;
            for (std::int32_t h = head[static_cast<std::size_t>(x)]; h >= 0; h = next[static_cast<std::size_t>(h)]) {
                const std::int32_t k = h >> 1;
                if (k == parentArc[static_cast<std::size_t>(x)])
                    continue;
                const std::int32_t y = otherEnd(k, x);
                parent[static_cast<std::size_t>(y)] = x;
                parentArc[static_cast<std::size_t>(y)] = k;
                depth[static_cast<std::size_t>(y)] = depth[static_cast<std::size_t>(x)] + 1;
                stack.push_back(y);
            }
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

EmdResult EmdSolver::solveCost(const double* cost, const double* wa, std::int64_t na, const double* wb, std::int64_t nb,
                               bool flows)
{
    Impl& s = *m_impl;
    s.prepare(cost, wa, na, wb, nb);
    s.initialTree();
    s.run();
    return s.result(flows);
}

EmdResult EmdSolver::solve(const PointSet& a, const PointSet& b, const EmdOptions& options)
{
    validate(a, "set A");
    validate(b, "set B");
    if (a.d != b.d)
        throw OtError("sets have different dimensions (" + std::to_string(a.d) + " and " + std::to_string(b.d) + ")");
    Impl& s = *m_impl;
    costMatrix(a, b, options.ground, s.costBuffer);
    std::vector<double> wa(a.weights, a.weights + a.n), wb(b.weights, b.weights + b.n);
    return solveCost(s.costBuffer.data(), wa.data(), a.n, wb.data(), b.n, options.flows);
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

} // namespace setscope::ot
