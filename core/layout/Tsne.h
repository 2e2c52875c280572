// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <vector>

namespace setscope::train {
class JobControl;
}

namespace setscope::layout {

/// Exact t-SNE (van der Maaten & Hinton 2008), O(n²) per iteration: Gaussian input
/// affinities calibrated per point to `perplexity` by binary search, symmetrised
/// p_ij = (p_j|i + p_i|j) / 2n; Student-t output affinities; gradient descent with
/// momentum (0.5, then 0.8 after 250 iterations), per-parameter gains and early
/// exaggeration. Meant for up to ~5 000 points.
struct TsneOptions {
    double perplexity = 30.0;
    double learningRate = 200.0;
    double earlyExaggeration = 12.0;
    int exaggerationIterations = 250;  ///< counted from a cold start; warm starts skip it
    int maxIterations = 1000;
    std::uint64_t seed = 1;
};

/// A t-SNE run that can be advanced step by step and restarted from a given map (warm
/// start), so a map can follow an embedding as it trains. Not thread-safe: one thread
/// drives it.
class Tsne {
public:
    /// x: n x d row-major input (copied). Computes the input affinities (O(n² d)).
    Tsne(const float* x, std::int64_t n, int d, TsneOptions options = {});

    /// Starts from `y0` (n x 2) when not null: a warm start, with no early exaggeration and
    /// momentum 0.8 from the first step. Otherwise a cold start from N(0, 1e-4 I) with seed.
    void initialize(const float* y0 = nullptr);

    /// Runs up to `iterations` gradient steps (fewer when maxIterations is reached);
    /// polls `control` (may be null) between steps. Returns the iterations done.
    int step(int iterations, train::JobControl* control = nullptr);

    /// Current map, n x 2 row-major.
    const std::vector<float>& embedding() const { return m_y; }
    int iteration() const { return m_iter; }
    bool done() const { return m_iter >= m_opt.maxIterations; }
    /// KL(P || Q) of the current map (O(n²)).
    double klDivergence() const;
    /// The symmetrised input affinities P (n x n, row-major, sums to 1). For tests.
    const std::vector<double>& inputAffinities() const { return m_p; }
    /// Gradient of KL(P||Q) at the current map (n x 2), without exaggeration. For tests.
    std::vector<double> gradient() const;

private:
    std::int64_t m_n;
    TsneOptions m_opt;
    std::vector<double> m_p;
    std::vector<float> m_y;
    std::vector<double> m_update;
    std::vector<double> m_gains;
    int m_iter = 0;
    bool m_warm = false;
};

} // namespace setscope::layout
