// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/SetFlow.h"

#include "core/data/Dataset.h"
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"
#include "core/workspace/ItemText.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace setscope::workspace {

std::vector<float> principalPlane(const std::vector<float>& points, std::int64_t n, int d, double* explained)
{
    std::vector<float> out(static_cast<std::size_t>(n) * 2, 0.0f);
    if (explained)
        *explained = 1.0;
    if (n == 0)
        return out;
    if (d <= 2) {
        for (std::int64_t r = 0; r < n; ++r)
            for (int k = 0; k < d; ++k)
                out[static_cast<std::size_t>(r * 2 + k)] = points[static_cast<std::size_t>(r * d + k)];
        return out;
    }
    using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Mat X = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(points.data(), n, d)
                .cast<double>();
    X.rowwise() -= X.colwise().mean();
    const Eigen::MatrixXd C = (X.transpose() * X) / static_cast<double>(std::max<std::int64_t>(n - 1, 1));
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(C);
    const Eigen::VectorXd values = eig.eigenvalues(); // ascending
    Eigen::MatrixXd axes(d, 2);
    for (int c = 0; c < 2; ++c) {
        Eigen::VectorXd v = eig.eigenvectors().col(d - 1 - c);
        Eigen::Index arg = 0;
        v.cwiseAbs().maxCoeff(&arg);
        if (v(arg) < 0)
            v = -v;
        axes.col(c) = v;
    }
    if (explained) {
        const double total = values.sum();
        *explained = total > 0 ? (std::max(values(d - 1), 0.0) + std::max(values(d - 2), 0.0)) / total : 1.0;
    }
    const Mat Y = X * axes;
    for (std::int64_t r = 0; r < n; ++r)
        for (int c = 0; c < 2; ++c)
            out[static_cast<std::size_t>(r * 2 + c)] = static_cast<float>(Y(r, c));
    return out;
}

SetFlow computeSetFlow(const data::Dataset& ds, std::int64_t a, std::int64_t b, ot::GroundDistance ground,
                       job::JobControl* control)
{
    for (const std::int64_t i : {a, b})
        requireItem(ds, i);
    const ot::PointSet pa = ot::pointSet(ds, static_cast<std::size_t>(a));
    const ot::PointSet pb = ot::pointSet(ds, static_cast<std::size_t>(b));
    SetFlow f;
    f.a = a;
    f.b = b;
    f.ground = ground;
    ot::EmdOptions eo;
    eo.ground = ground;
    eo.flows = true;
    eo.control = control;
    ot::EmdResult r;
    try {
        r = ot::emd(pa, pb, eo);
    } catch (const ot::OtError& e) {
        throw ot::OtError("'" + ds.name() + "' items " + std::to_string(a) + " and " + std::to_string(b) + ": " + e.what());
    }
    f.emd = r.emd;
    f.work = r.work;
    f.totalFlow = r.totalFlow;
    f.pivots = r.pivots;
    std::vector<double> cost;
    ot::costMatrix(pa, pb, ground, cost);
    for (const ot::Flow& fl : r.flows)
        f.arcs.push_back({fl.i, fl.j, fl.amount,
                          cost[static_cast<std::size_t>(fl.i) * static_cast<std::size_t>(pb.n) + static_cast<std::size_t>(fl.j)]});
    std::sort(f.arcs.begin(), f.arcs.end(), [](const FlowArc& x, const FlowArc& y) {
        return x.i != y.i ? x.i < y.i : x.j < y.j;
    });

    const int d = ds.dim();
    std::vector<float> both(pa.points, pa.points + pa.n * d);
    both.insert(both.end(), pb.points, pb.points + pb.n * d);
    const std::vector<float> xy = principalPlane(both, pa.n + pb.n, d, &f.explainedVariance);
    f.projection = d <= 2 ? "coordinates" : "PCA";
    f.xyA.assign(xy.begin(), xy.begin() + pa.n * 2);
    f.xyB.assign(xy.begin() + pa.n * 2, xy.end());
    f.weightsA.assign(pa.weights, pa.weights + pa.n);
    f.weightsB.assign(pb.weights, pb.weights + pb.n);
    for (std::int64_t e = 0; e < pa.n; ++e)
        f.namesA.push_back(describeElement(ds, static_cast<std::size_t>(a), e));
    for (std::int64_t e = 0; e < pb.n; ++e)
        f.namesB.push_back(describeElement(ds, static_cast<std::size_t>(b), e));
    return f;
}

} // namespace setscope::workspace
