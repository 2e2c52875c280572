// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/layout/Pca.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace setscope::layout {

namespace {

using RowMatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Rows are converted to double a block at a time: the covariance is accumulated in double
// without holding a double copy of a 70 000 x 64 input.
constexpr std::int64_t kBlockRows = 4096;

} // namespace

std::vector<float> pca(const float* x, std::int64_t rows, int cols, int components)
{
    if (rows < 1)
        throw std::invalid_argument("pca: need at least one row, got " + std::to_string(rows));
    if (cols < 1)
        throw std::invalid_argument("pca: need at least one column, got " + std::to_string(cols));
    if (components < 1 || components > cols)
        throw std::invalid_argument("pca: components must be in 1.." + std::to_string(cols) + ", got "
                                    + std::to_string(components));
    if (!x)
        throw std::invalid_argument("pca: null input");

    const Eigen::Map<const RowMatrixF> xf(x, rows, cols);

    Eigen::VectorXd mean = Eigen::VectorXd::Zero(cols);
    for (std::int64_t r0 = 0; r0 < rows; r0 += kBlockRows) {
        const std::int64_t nr = std::min(kBlockRows, rows - r0);
        mean += xf.middleRows(r0, nr).cast<double>().colwise().sum().transpose();
    }
    mean /= static_cast<double>(rows);

    Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(cols, cols);
    for (std::int64_t r0 = 0; r0 < rows; r0 += kBlockRows) {
        const std::int64_t nr = std::min(kBlockRows, rows - r0);
        RowMatrixD block = xf.middleRows(r0, nr).cast<double>();
        block.rowwise() -= mean.transpose();
        cov.selfadjointView<Eigen::Lower>().rankUpdate(block.transpose());
    }
    cov.triangularView<Eigen::StrictlyUpper>() = cov.transpose();
    cov /= static_cast<double>(std::max<std::int64_t>(rows - 1, 1));

    // Eigenvalues come out ascending; the principal axes are the last columns.
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(cov);
    if (solver.info() != Eigen::Success)
        throw std::runtime_error("pca: eigen decomposition of the covariance did not converge");
    Eigen::MatrixXd axes(cols, components);
    for (int k = 0; k < components; ++k) {
        Eigen::VectorXd v = solver.eigenvectors().col(cols - 1 - k);
        // Sign rule: the largest-magnitude loading is positive (the first one on a tie).
        Eigen::Index arg = 0;
        for (Eigen::Index i = 1; i < v.size(); ++i)
            if (std::abs(v(i)) > std::abs(v(arg)))
                arg = i;
        if (v(arg) < 0.0)
            v = -v;
        axes.col(k) = v;
    }

    std::vector<float> out(static_cast<std::size_t>(rows) * static_cast<std::size_t>(components));
    Eigen::Map<RowMatrixF> y(out.data(), rows, components);
    for (std::int64_t r0 = 0; r0 < rows; r0 += kBlockRows) {
        const std::int64_t nr = std::min(kBlockRows, rows - r0);
        RowMatrixD block = xf.middleRows(r0, nr).cast<double>();
        block.rowwise() -= mean.transpose();
        y.middleRows(r0, nr) = (block * axes).cast<float>();
    }
    return out;
}

} // namespace setscope::layout
