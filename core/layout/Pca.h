// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <vector>

namespace setscope::layout {

/// Principal component analysis: projects the rows of x (rows x cols, row-major) onto
/// their first `components` principal axes (centred data; axes from the eigenvectors of
/// the covariance matrix, Eigen). Returns rows x components, row-major. Each axis's sign
/// is fixed so that its largest-magnitude loading is positive (deterministic output).
/// Throws std::invalid_argument for rows < 1, cols < 1 or components > cols.
std::vector<float> pca(const float* x, std::int64_t rows, int cols, int components = 2);

} // namespace setscope::layout
