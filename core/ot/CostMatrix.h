// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <vector>

namespace setscope::ot {

/// Ground-distance matrix between the elements of two sets: out[i * b.n + j] =
/// d(a_i, b_j), float64, row-major. Built with one matrix product (a register-blocked
/// AVX2/FMA kernel when the CPU has it, Eigen's GEMM otherwise) from the
/// squared norms, ||x - y||² = ||x||² + ||y||² - 2 x·y, in double precision; entries where
/// that expansion cancels (d² < 1e-6 (||x||² + ||y||²)) are recomputed directly, so equal
/// elements are at distance exactly 0.
/// Does not validate (call validate() first). `out` is resized; reusing it avoids
/// allocations in loops.
void costMatrix(const PointSet& a, const PointSet& b, GroundDistance g, std::vector<double>& out);

} // namespace setscope::ot
