// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Callers parallelise over pairs; Eigen must not start its own threads inside a pair.
#define EIGEN_DONT_PARALLELIZE
#include "core/ot/CostMatrix.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>

namespace setscope::ot {

namespace {
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

RowMatrix toDouble(const PointSet& s)
{
    return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(s.points, s.n, s.d)
        .cast<double>();
}
} // namespace

void costMatrix(const PointSet& a, const PointSet& b, GroundDistance g, std::vector<double>& out)
{
    if (a.d != b.d)
        throw OtError("sets have different dimensions (" + std::to_string(a.d) + " and " + std::to_string(b.d) + ")");
    const RowMatrix A = toDouble(a);
    const RowMatrix B = toDouble(b);
    out.resize(static_cast<std::size_t>(a.n * b.n));
    Eigen::Map<RowMatrix> C(out.data(), a.n, b.n);
    C.noalias() = A * B.transpose(); // the one O(na nb d) step: a GEMM
    const Eigen::VectorXd na = A.rowwise().squaredNorm();
    const Eigen::VectorXd nb = B.rowwise().squaredNorm();
    switch (g) {
    case GroundDistance::Euclidean:
    case GroundDistance::SquaredEuclidean:
        for (Eigen::Index i = 0; i < a.n; ++i) {
            double* row = out.data() + i * b.n;
            const double ni = na(i);
            for (Eigen::Index j = 0; j < b.n; ++j) {
                const double s = ni + nb(j);
                double d2 = s - 2.0 * row[j];
                // Near-duplicates (the same word in both documents) lose every digit to
                // cancellation in the expansion: recompute those few directly, so that
                // identical elements are at distance exactly 0.
                if (d2 < 1e-6 * s)
                    d2 = (A.row(i) - B.row(j)).squaredNorm();
                row[j] = std::max(0.0, d2);
            }
        }
        if (g == GroundDistance::Euclidean)
            for (double& v : out)
                v = std::sqrt(v);
        break;
    case GroundDistance::Cosine:
        for (Eigen::Index i = 0; i < a.n; ++i) {
            double* row = out.data() + i * b.n;
            const double ni = std::sqrt(na(i));
            for (Eigen::Index j = 0; j < b.n; ++j) {
                const double den = ni * std::sqrt(nb(j));
                row[j] = den > 0.0 ? std::clamp(1.0 - row[j] / den, 0.0, 2.0) : 1.0;
            }
        }
        break;
    }
}

} // namespace setscope::ot
