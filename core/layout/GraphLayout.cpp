// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/layout/GraphLayout.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>

namespace setscope::layout {

namespace {

using Matrix = Eigen::MatrixXd;
using Points = Eigen::Matrix<double, Eigen::Dynamic, 2>;

/// Shortest-path distances (in edges) between the nodes of one connected component, by a
/// breadth-first search from each node. `local[v]` is v's index within the component.
Matrix componentDistances(const std::vector<std::vector<int>>& adj, const std::vector<int>& nodes,
                          const std::vector<int>& local)
{
    const auto c = static_cast<Eigen::Index>(nodes.size());
    Matrix d = Matrix::Zero(c, c);
    std::vector<int> dist(adj.size(), -1), queue;
    queue.reserve(nodes.size());
    for (Eigen::Index s = 0; s < c; ++s) {
        for (int v : nodes)
            dist[static_cast<std::size_t>(v)] = -1;
        queue.clear();
        queue.push_back(nodes[static_cast<std::size_t>(s)]);
        dist[static_cast<std::size_t>(queue.front())] = 0;
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const int u = queue[q];
            for (int v : adj[static_cast<std::size_t>(u)])
                if (dist[static_cast<std::size_t>(v)] < 0) {
                    dist[static_cast<std::size_t>(v)] = dist[static_cast<std::size_t>(u)] + 1;
                    queue.push_back(v);
                }
        }
        for (int v : nodes)
            d(s, local[static_cast<std::size_t>(v)]) = dist[static_cast<std::size_t>(v)];
    }
    return d;
}

/// Classical (Torgerson) MDS: the top two eigenvectors of B = -1/2 J D^2 J scaled by the
/// square roots of their eigenvalues (0 for a non-positive one). Each axis's sign is fixed
/// so that its entry of largest magnitude is positive (eigensolvers may return either).
Points classicalMds(const Matrix& d)
{
    const Eigen::Index c = d.rows();
    const Matrix d2 = d.array().square().matrix();
    const Eigen::VectorXd rowMean = d2.rowwise().mean();
    const double mean = rowMean.mean();
    Matrix b(c, c);
    for (Eigen::Index i = 0; i < c; ++i)
        for (Eigen::Index j = 0; j < c; ++j)
            b(i, j) = -0.5 * (d2(i, j) - rowMean(i) - rowMean(j) + mean);
    const Eigen::SelfAdjointEigenSolver<Matrix> es(b);
    Points x(c, 2);
    for (int k = 0; k < 2; ++k) {
        const Eigen::Index col = c - 1 - k; // eigenvalues ascending
        const double lambda = col >= 0 ? es.eigenvalues()(col) : 0.0;
        if (col < 0 || !(lambda > 1e-12)) {
            x.col(k).setZero();
            continue;
        }
        Eigen::VectorXd v = es.eigenvectors().col(col);
        Eigen::Index arg = 0;
        v.cwiseAbs().maxCoeff(&arg);
        if (v(arg) < 0)
            v = -v;
        x.col(k) = v * std::sqrt(lambda);
    }
    return x;
}

/// sum_{i<j} w_ij (|x_i - x_j| - d_ij)^2 with w_ij = d_ij^-2.
double stressOf(const Points& x, const Matrix& d)
{
    double s = 0.0;
    for (Eigen::Index j = 0; j < x.rows(); ++j)
        for (Eigen::Index i = j + 1; i < x.rows(); ++i) {
            const double r = std::hypot(x(i, 0) - x(j, 0), x(i, 1) - x(j, 1)) - d(i, j);
            s += r * r / (d(i, j) * d(i, j));
        }
    return s;
}

/// SMACOF from `x` (in place): Guttman transforms X <- V^+ B(X) X until the stress drops by
/// less than the tolerance. V^+ Y for a centred Y is the solution Z of (V + 11^T) Z = Y
/// (1^T Z = 0 follows), factored once. B(X) X is formed row by row without B, and the same
/// pass gives the stress of X, so an iteration is one sweep over the pairs and a solve.
/// Returns the iterations done.
int smacof(Points& x, const Matrix& d, const GraphLayoutOptions& options)
{
    const Eigen::Index c = x.rows();
    Matrix v(c, c);
    for (Eigen::Index j = 0; j < c; ++j)
        for (Eigen::Index i = 0; i < c; ++i)
            v(i, j) = i == j ? 0.0 : -1.0 / (d(i, j) * d(i, j));
    for (Eigen::Index i = 0; i < c; ++i)
        v(i, i) = -v.col(i).sum();
    const Eigen::LDLT<Matrix> solver(v + Matrix::Ones(c, c));
    Points bx(c, 2);
    // One sweep: bx = B(x) x, returns the stress of x. B_ij = -d_ij^-1 / |x_i - x_j| (i != j,
    // 0 for coincident points), B_ii = -sum_j B_ij.
    auto sweep = [&](const Points& p) {
        bx.setZero();
        double s = 0.0;
        for (Eigen::Index j = 0; j < c; ++j)
            for (Eigen::Index i = j + 1; i < c; ++i) {
                const double dx = p(i, 0) - p(j, 0), dy = p(i, 1) - p(j, 1);
                const double dist = std::sqrt(dx * dx + dy * dy), dij = d(i, j);
                const double r = dist - dij;
                s += r * r / (dij * dij);
                if (dist > 0.0) {
                    const double bij = 1.0 / (dij * dist); // -B_ij
                    // row i gets B_ii x_i + B_ij x_j = bij (x_i - x_j), row j bij (x_j - x_i)
                    bx(i, 0) += bij * dx;
                    bx(i, 1) += bij * dy;
                    bx(j, 0) -= bij * dx;
                    bx(j, 1) -= bij * dy;
                }
            }
        return s;
    };
    double previous = sweep(x);
    int it = 0;
    while (it < options.maxIterations && previous > 1e-14) {
        const Points next = solver.solve(bx);
        ++it;
        const Points current = x;
        x = next;
        const double now = sweep(x); // also leaves B(next) next in bx for the next step
        if (!(now <= previous)) { // a majorization step cannot raise the stress but rounding can
            x = current;
            break;
        }
        const bool settled = previous - now < options.relativeTolerance * previous;
        previous = now;
        if (settled)
            break;
    }
    return it;
}

/// Shifts each component's points (rows `rows[k]` of `xy`) so the components sit side by
/// side, left to right in the given order, one unit apart and centred on y = 0; then the
/// whole drawing is centred on the origin.
void placeSideBySide(std::vector<double>& xy, const std::vector<std::vector<int>>& rows)
{
    double cursor = 0.0;
    for (const std::vector<int>& comp : rows) {
        double x0 = std::numeric_limits<double>::max(), x1 = -x0, y0 = x0, y1 = -x0;
        for (int v : comp) {
            const auto i = static_cast<std::size_t>(v);
            x0 = std::min(x0, xy[2 * i]);
            x1 = std::max(x1, xy[2 * i]);
            y0 = std::min(y0, xy[2 * i + 1]);
            y1 = std::max(y1, xy[2 * i + 1]);
        }
        const double dx = cursor - x0, dy = -(y0 + y1) / 2.0;
        for (int v : comp) {
            const auto i = static_cast<std::size_t>(v);
            xy[2 * i] += dx;
            xy[2 * i + 1] += dy;
        }
        cursor += (x1 - x0) + 1.0;
    }
    const double shift = (cursor - 1.0) / 2.0;
    for (std::size_t i = 0; i < xy.size(); i += 2)
        xy[i] -= shift;
}

} // namespace

GraphLayout layoutGraph(std::size_t nodeCount, std::span<const std::int32_t> pairs, const GraphLayoutOptions& options)
{
    GraphLayout out;
    const std::size_t n = std::min(nodeCount, options.maxNodes);
    out.droppedNodes = nodeCount - n;
    out.xy.assign(2 * n, 0.0);
    out.initialXy.assign(2 * n, 0.0);
    if (n == 0)
        return out;

    std::vector<std::vector<int>> adj(n);
    for (std::size_t k = 0; k + 1 < pairs.size(); k += 2) {
        const std::int32_t a = pairs[k], b = pairs[k + 1];
        if (a < 0 || b < 0 || static_cast<std::size_t>(a) >= n || static_cast<std::size_t>(b) >= n || a == b)
            continue;
        adj[static_cast<std::size_t>(a)].push_back(b);
        adj[static_cast<std::size_t>(b)].push_back(a);
    }
    for (auto& l : adj) {
        std::sort(l.begin(), l.end());
        l.erase(std::unique(l.begin(), l.end()), l.end());
    }

    // Connected components, each listed in ascending node order.
    std::vector<int> comp(n, -1), local(n, 0);
    std::vector<std::vector<int>> comps;
    for (std::size_t s = 0; s < n; ++s) {
        if (comp[s] >= 0)
            continue;
        std::vector<int> nodes{static_cast<int>(s)};
        comp[s] = static_cast<int>(comps.size());
        for (std::size_t q = 0; q < nodes.size(); ++q)
            for (int v : adj[static_cast<std::size_t>(nodes[q])])
                if (comp[static_cast<std::size_t>(v)] < 0) {
                    comp[static_cast<std::size_t>(v)] = comp[s];
                    nodes.push_back(v);
                }
        std::sort(nodes.begin(), nodes.end());
        for (std::size_t k = 0; k < nodes.size(); ++k)
            local[static_cast<std::size_t>(nodes[k])] = static_cast<int>(k);
        comps.push_back(std::move(nodes));
    }

    for (const std::vector<int>& nodes : comps) {
        if (nodes.size() < 2)
            continue; // a lone node sits at its component's origin
        const Matrix d = componentDistances(adj, nodes, local);
        Points x = classicalMds(d);
        for (std::size_t k = 0; k < nodes.size(); ++k) {
            const auto i = static_cast<std::size_t>(nodes[k]);
            out.initialXy[2 * i] = x(static_cast<Eigen::Index>(k), 0);
            out.initialXy[2 * i + 1] = x(static_cast<Eigen::Index>(k), 1);
        }
        out.initialStress += stressOf(x, d);
        out.iterations += smacof(x, d, options);
        out.stress += stressOf(x, d);
        for (std::size_t k = 0; k < nodes.size(); ++k) {
            const auto i = static_cast<std::size_t>(nodes[k]);
            out.xy[2 * i] = x(static_cast<Eigen::Index>(k), 0);
            out.xy[2 * i + 1] = x(static_cast<Eigen::Index>(k), 1);
        }
    }

    // Largest component first; equal sizes in order of their first node.
    std::stable_sort(comps.begin(), comps.end(),
                     [](const std::vector<int>& a, const std::vector<int>& b) { return a.size() > b.size(); });
    placeSideBySide(out.xy, comps);
    placeSideBySide(out.initialXy, comps);
    return out;
}

} // namespace setscope::layout
