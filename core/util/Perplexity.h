// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>

namespace setscope::util {

/// The entropy tolerance (nats) and the most tries of calibratePerplexityRow().
inline constexpr double kPerplexityEntropyTolerance = 1e-5;
inline constexpr int kPerplexityMaxTries = 200;

/// Calibrates one row of t-SNE input affinities: row[j] = p_j|i ∝ exp(-beta dist[j]) over
/// the `count` squared distances dist[0 .. count), leaving out index `skip` (the point
/// itself in a dense row: row[skip] = 0; -1 for none, as in a kNN row), with beta such that
/// the row's entropy is logU within kPerplexityEntropyTolerance (at most kPerplexityMaxTries
/// passes). Bisection on beta as in the reference code, with a Newton proposal taken
/// whenever it falls inside the current bracket (dH/dbeta = -beta Var_p(d)), which cuts the
/// number of passes from ~30-50 to about five. The search starts at 1 / (mean shifted
/// distance) rather than the reference's 1, so it does not depend on the input's scale;
/// distances are shifted by their minimum so that the row sum cannot underflow. The row sums
/// to 1. Used by the exact Tsne (dense rows), FastTsne (kNN rows) and the
/// locality-contrastive loss (one dense row per batch item).
void calibratePerplexityRow(const double* dist, std::int64_t count, std::int64_t skip, double logU, double* row);

} // namespace setscope::util
