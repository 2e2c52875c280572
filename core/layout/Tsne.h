// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <vector>

namespace setscope::job {
class JobControl;
} // namespace setscope::job

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
    /// The input affinities are computed in blocks of this many rows, with one cancel poll
    /// (JobControl::cancelRequested) per block: 64 x n x d multiply-adds and 64 row
    /// calibrations between two polls, milliseconds at n = 10 000.
    static constexpr std::int64_t kAffinityRowsPerPoll = 64;

    /// x: n x d row-major input (not kept). Computes the input affinities (O(n² d), about
    /// 0.3 s for 3 000 x 64 on two cores) and does a cold initialize(). Throws
    /// std::invalid_argument for n < 1, d < 1, a non-positive perplexity or a non-finite
    /// input value, and job::Cancelled when `control` (may be null) is cancelled meanwhile.
    Tsne(const float* x, std::int64_t n, int d, TsneOptions options = {},
         job::JobControl* control = nullptr);

    /// Starts from `y0` (n x 2) when not null: a warm start, with no early exaggeration and
    /// momentum 0.8 from the first step. Otherwise a cold start from N(0, 1e-4 I) with seed.
    /// Either way the iteration count, momentum and gains restart. The constructor has
    /// already done initialize(), so a fresh object is a cold start. With n == 1 the single
    /// point sits at the origin.
    void initialize(const float* y0 = nullptr);
    /// A cold start (early exaggeration, momentum 0.5 then 0.8) from a given map `y0`
    /// (n x 2), e.g. a PCA initialisation scaled to a small spread (~1e-2).
    void initializeCold(const float* y0);

    /// Runs up to `iterations` gradient steps (fewer when maxIterations is reached);
    /// polls `control` (may be null) between steps. Returns the iterations done. A cancel
    /// surfaces as job::Cancelled thrown by control->checkpoint() before a step (the map
    /// keeps the last completed step); a pause blocks there.
    int step(int iterations, job::JobControl* control = nullptr);

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
    /// The perplexity actually used for n points: min(perplexity, max(1, (n - 1) / 3)),
    /// since a point has only n - 1 neighbours to spread its distribution over.
    double perplexity() const { return m_perplexity; }

    /// The perplexity used for `perplexity` requested on n points (see perplexity()).
    static double effectivePerplexity(double perplexity, std::int64_t n);
    /// The conditional affinities p_j|i (n x n, row-major, row i sums to 1, p_i|i = 0) for
    /// x (n x d, row-major), each row calibrated by a bracketing search (bisection with
    /// Newton steps) on the Gaussian precision until its entropy is
    /// log(effectivePerplexity(perplexity, n)) within 1e-5 nats (at most 200 tries).
    /// O(n² d); uses OpenMP over rows. Throws std::invalid_argument on bad input and
    /// job::Cancelled when `control` (may be null) is cancelled meanwhile.
    static std::vector<double> conditionalAffinities(const float* x, std::int64_t n, int d,
                                                     double perplexity,
                                                     job::JobControl* control = nullptr);

private:
    void iterate();
    void syncEmbedding();
    void resetOptimizer(bool warm);
    int teamSize();
    void recordPassTime(int threads, double seconds);

    std::int64_t m_n;
    TsneOptions m_opt;
    double m_perplexity = 0.0;
    std::vector<double> m_p;
    std::vector<float> m_y;
    std::vector<double> m_pos; ///< the map in double (n x 2); m_y mirrors it
    std::vector<double> m_update;
    std::vector<double> m_gains;
    int m_iter = 0;
    bool m_warm = false;
    int m_passes = 0;            ///< gradient passes so far (drives the thread-count probe)
    int m_threads = 1;           ///< OpenMP team size chosen by the last probe
    double m_singleSeconds = 0;  ///< the last probe's single-thread pass time

};

} // namespace setscope::layout
