// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/layout/Tsne.h"
#include "core/util/Numeric.h"
#include "core/util/Perplexity.h"

#include "core/job/Job.h"

#include <Eigen/Dense>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace setscope::layout {

namespace {

constexpr int kMomentumSwitchIteration = 250;
constexpr double kInitialMomentum = 0.5;
constexpr double kFinalMomentum = 0.8;
constexpr double kMinGain = 0.01;
constexpr double kColdInitStddev = 1e-2; // N(0, 1e-4 I)
// Below this many points a step takes well under a millisecond and waking the OpenMP team
// would cost more than it saves.
constexpr std::int64_t kParallelMin = 256;
// How often (in iterations) the gradient pass re-measures whether a team beats one thread.
constexpr int kProbePeriod = 50;
// Rows of squared distances computed per matrix product (and per cancel poll).
constexpr std::int64_t kDistanceBlock = Tsne::kAffinityRowsPerPoll;

using util::sz;

// Per-row sums of the t-SNE gradient, for the map (px, py):
//   attr_i = sum_j p_ij num_ij (y_i - y_j),  rep_i = sum_j num_ij² (y_i - y_j),
//   z_i = sum_{j != i} num_ij,  num_ij = 1 / (1 + |y_i - y_j|²),
// so that dC/dy_i = 4 (attr_i - rep_i / Z) with Z = sum_i z_i. One pass over P per step.
void forces(const std::vector<double>& p, const std::vector<double>& px,
            const std::vector<double>& py, std::vector<double>& attr, std::vector<double>& rep,
            std::vector<double>& z, int threads)
{
    const std::int64_t n = static_cast<std::int64_t>(px.size());
    const double* xs = px.data();
    const double* ys = py.data();
#pragma omp parallel for schedule(dynamic, 32) num_threads(threads) if (threads > 1)
    for (std::int64_t i = 0; i < n; ++i) {
        const double* pi = p.data() + sz(i) * sz(n);
        const double xi = xs[i];
        const double yi = ys[i];
        double ax = 0.0, ay = 0.0, rx = 0.0, ry = 0.0, zi = 0.0;
#pragma omp simd reduction(+ : ax, ay, rx, ry, zi)
        for (std::int64_t j = 0; j < n; ++j) {
            const double dx = xi - xs[j];
            const double dy = yi - ys[j];
            const double num = 1.0 / (1.0 + dx * dx + dy * dy);
            const double pn = pi[j] * num;
            const double n2 = num * num;
            ax += pn * dx;
            ay += pn * dy;
            rx += n2 * dx;
            ry += n2 * dy;
            zi += num;
        }
        // j == i contributed num = 1 to zi and nothing else (dx = dy = 0, p_ii = 0).
        attr[sz(2 * i)] = ax;
        attr[sz(2 * i + 1)] = ay;
        rep[sz(2 * i)] = rx;
        rep[sz(2 * i + 1)] = ry;
        z[sz(i)] = zi - 1.0;
    }
}

// Summed in index order, not by an OpenMP reduction, so results do not depend on the
// thread count or scheduling (same seed -> identical map).
double orderedSum(const std::vector<double>& v)
{
    double s = 0.0;
    for (double x : v)
        s += x;
    return s;
}

double sign(double x) { return x == 0.0 ? 0.0 : (x < 0.0 ? -1.0 : 1.0); }

} // namespace

double Tsne::effectivePerplexity(double perplexity, std::int64_t n)
{
    const double cap = std::max(1.0, static_cast<double>(n - 1) / 3.0);
    return std::min(perplexity, cap);
}

std::vector<double> Tsne::conditionalAffinities(const float* x, std::int64_t n, int d,
                                                double perplexity, job::JobControl* control)
{
    if (n < 1)
        throw std::invalid_argument("t-SNE: need at least one point, got " + std::to_string(n));
    if (d < 1)
        throw std::invalid_argument("t-SNE: input dimension must be positive, got " + std::to_string(d));
    if (!x)
        throw std::invalid_argument("t-SNE: null input");
    if (!(perplexity > 0.0) || !std::isfinite(perplexity))
        throw std::invalid_argument("t-SNE: perplexity must be positive, got " + std::to_string(perplexity));

    using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using RowMatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const RowMatrix xd = Eigen::Map<const RowMatrixF>(x, n, d).cast<double>();
    if (!xd.allFinite())
        throw std::invalid_argument("t-SNE: the input holds a NaN or infinite value");
    std::vector<double> p(sz(n) * sz(n), 0.0);
    if (n == 1)
        return p;
    const Eigen::VectorXd norms = xd.rowwise().squaredNorm();
    const double logU = std::log(effectivePerplexity(perplexity, n));
    const std::int64_t blocks = (n + kDistanceBlock - 1) / kDistanceBlock;

    // Squared distances a block of rows at a time, |a|² + |b|² - 2 a·b with the products as
    // one matrix product (Eigen's blocked kernel beats pairwise loops); the rounding this
    // costs is ~1e-16 |x|², far below anything the calibration can see.
#pragma omp parallel if (n >= kParallelMin)
    {
        RowMatrix dist;
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t b = 0; b < blocks; ++b) {
            // No exception may leave an OpenMP region: skip the rest, throw after it.
            if (control && control->cancelRequested())
                continue;
            const std::int64_t r0 = b * kDistanceBlock;
            const std::int64_t nr = std::min(kDistanceBlock, n - r0);
            dist.noalias() = xd.middleRows(r0, nr) * xd.transpose();
            for (std::int64_t r = 0; r < nr; ++r) {
                double* row = dist.row(r).data();
                const double ni = norms(r0 + r);
                for (std::int64_t j = 0; j < n; ++j)
                    row[j] = std::max(0.0, ni + norms(j) - 2.0 * row[j]);
                util::calibratePerplexityRow(row, n, r0 + r, logU, p.data() + sz(r0 + r) * sz(n));
            }
        }
    }
    if (control)
        control->checkpoint();
    return p;
}

Tsne::Tsne(const float* x, std::int64_t n, int d, TsneOptions options, job::JobControl* control)
    : m_n(n)
    , m_opt(options)
{
    if (m_opt.maxIterations < 0)
        throw std::invalid_argument("t-SNE: maxIterations must not be negative");
    if (!(m_opt.learningRate > 0.0))
        throw std::invalid_argument("t-SNE: the learning rate must be positive");
    m_perplexity = effectivePerplexity(m_opt.perplexity, std::max<std::int64_t>(n, 1));
    m_p = conditionalAffinities(x, n, d, m_opt.perplexity, control);

    // Symmetrise in place: p_ij = (p_j|i + p_i|j) / 2n. Pair (i, j), i < j, is owned by row i.
    const double inv2n = 1.0 / (2.0 * static_cast<double>(n));
#pragma omp parallel for schedule(dynamic, 32) if (n >= kParallelMin)
    for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = i + 1; j < n; ++j) {
            const double v = (m_p[sz(i) * sz(n) + sz(j)] + m_p[sz(j) * sz(n) + sz(i)]) * inv2n;
            m_p[sz(i) * sz(n) + sz(j)] = v;
            m_p[sz(j) * sz(n) + sz(i)] = v;
        }
    }

    m_y.assign(sz(2 * n), 0.0f);
    m_pos.assign(sz(2 * n), 0.0);
    initialize(nullptr);
}

void Tsne::resetOptimizer(bool warm)
{
    m_warm = warm;
    m_iter = 0;
    m_update.assign(sz(2 * m_n), 0.0);
    m_gains.assign(sz(2 * m_n), 1.0);
}

void Tsne::syncEmbedding()
{
    for (std::size_t k = 0; k < m_pos.size(); ++k)
        m_y[k] = static_cast<float>(m_pos[k]);
}

void Tsne::initialize(const float* y0)
{
    if (y0) {
        initializeCold(y0);
        m_warm = true;
        return;
    }
    std::mt19937_64 rng(m_opt.seed);
    std::normal_distribution<double> normal(0.0, kColdInitStddev);
    for (double& v : m_pos)
        v = normal(rng);
    if (m_n == 1)
        m_pos.assign(2, 0.0);
    syncEmbedding();
    resetOptimizer(false);
}

void Tsne::initializeCold(const float* y0)
{
    if (!y0) {
        initialize(nullptr);
        return;
    }
    for (std::size_t k = 0; k < m_pos.size(); ++k)
        m_pos[k] = static_cast<double>(y0[k]);
    if (m_n == 1)
        m_pos.assign(2, 0.0);
    syncEmbedding();
    resetOptimizer(false);
}

// The O(n²) pass is short (milliseconds) and runs hundreds of times, so the fork/join of an
// OpenMP team costs as much as it saves when the other cores are busy (a training job, say):
// a woken worker waits for the scheduler. So the pass is timed with one thread and with the
// full team every kProbePeriod iterations and the faster is used until the next probe. The
// map does not depend on the choice (rows are independent, sums ordered).
int Tsne::teamSize()
{
    const int team = omp_get_max_threads();
    if (team <= 1 || m_n < kParallelMin)
        return 1;
    const int phase = m_passes % kProbePeriod;
    if (phase == 0)
        return 1;
    if (phase == 1)
        return team;
    return m_threads;
}

void Tsne::recordPassTime(int threads, double seconds)
{
    const int phase = m_passes % kProbePeriod;
    if (phase == 0)
        m_singleSeconds = seconds;
    else if (phase == 1)
        m_threads = seconds < m_singleSeconds ? threads : 1;
    ++m_passes;
}

int Tsne::step(int iterations, job::JobControl* control)
{
    int done = 0;
    while (done < iterations && m_iter < m_opt.maxIterations) {
        if (control)
            control->checkpoint();
        iterate();
        ++done;
    }
    return done;
}

void Tsne::iterate()
{
    const std::int64_t n = m_n;
    if (n < 2) {
        ++m_iter;
        return;
    }
    const bool exaggerate = !m_warm && m_iter < m_opt.exaggerationIterations;
    const double exaggeration = exaggerate ? m_opt.earlyExaggeration : 1.0;
    const double momentum = (m_warm || m_iter >= kMomentumSwitchIteration) ? kFinalMomentum
                                                                            : kInitialMomentum;

    std::vector<double> px(sz(n)), py(sz(n));
    for (std::int64_t i = 0; i < n; ++i) {
        px[sz(i)] = m_pos[sz(2 * i)];
        py[sz(i)] = m_pos[sz(2 * i + 1)];
    }
    std::vector<double> attr(sz(2 * n)), rep(sz(2 * n)), z(sz(n));
    const int threads = teamSize();
    const auto t0 = std::chrono::steady_clock::now();
    forces(m_p, px, py, attr, rep, z, threads);
    recordPassTime(threads, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    const double invZ = 1.0 / orderedSum(z);

    // The step uses the gradient without its constant factor 4, as the reference code
    // (bhtsne, tsne.py) does: learning rate 200 means what it means there.
    double cx = 0.0, cy = 0.0;
    for (std::size_t k = 0; k < m_pos.size(); ++k) {
        const double g = exaggeration * attr[k] - rep[k] * invZ;
        double& gain = m_gains[k];
        double& upd = m_update[k];
        gain = sign(g) != sign(upd) ? gain + 0.2 : gain * 0.8;
        gain = std::max(gain, kMinGain);
        upd = momentum * upd - m_opt.learningRate * gain * g;
        m_pos[k] += upd;
        (k % 2 == 0 ? cx : cy) += m_pos[k];
    }
    cx /= static_cast<double>(n);
    cy /= static_cast<double>(n);
    for (std::int64_t i = 0; i < n; ++i) {
        m_pos[sz(2 * i)] -= cx;
        m_pos[sz(2 * i + 1)] -= cy;
    }
    syncEmbedding();
    ++m_iter;
}

std::vector<double> Tsne::gradient() const
{
    const std::int64_t n = m_n;
    std::vector<double> g(sz(2 * n), 0.0);
    if (n < 2)
        return g;
    std::vector<double> px(sz(n)), py(sz(n));
    for (std::int64_t i = 0; i < n; ++i) {
        px[sz(i)] = m_pos[sz(2 * i)];
        py[sz(i)] = m_pos[sz(2 * i + 1)];
    }
    std::vector<double> attr(sz(2 * n)), rep(sz(2 * n)), z(sz(n));
    forces(m_p, px, py, attr, rep, z, n >= kParallelMin ? omp_get_max_threads() : 1);
    const double invZ = 1.0 / orderedSum(z);
    for (std::size_t k = 0; k < g.size(); ++k)
        g[k] = 4.0 * (attr[k] - rep[k] * invZ);
    return g;
}

double Tsne::klDivergence() const
{
    const std::int64_t n = m_n;
    if (n < 2)
        return 0.0;
    // KL = sum p log p - sum p log num + log Z, since q_ij = num_ij / Z and sum p = 1.
    std::vector<double> rowTerm(sz(n)), rowZ(sz(n));
#pragma omp parallel for schedule(dynamic, 32) if (n >= kParallelMin)
    for (std::int64_t i = 0; i < n; ++i) {
        const double* pi = m_p.data() + sz(i) * sz(n);
        const double xi = m_pos[sz(2 * i)];
        const double yi = m_pos[sz(2 * i + 1)];
        double term = 0.0;
        double zi = 0.0;
        for (std::int64_t j = 0; j < n; ++j) {
            if (j == i)
                continue;
            const double dx = xi - m_pos[sz(2 * j)];
            const double dy = yi - m_pos[sz(2 * j + 1)];
            const double num = 1.0 / (1.0 + dx * dx + dy * dy);
            zi += num;
            if (pi[j] > 0.0)
                term += pi[j] * (std::log(pi[j]) - std::log(num));
        }
        rowTerm[sz(i)] = term;
        rowZ[sz(i)] = zi;
    }
    return orderedSum(rowTerm) + std::log(orderedSum(rowZ)) * orderedSum(m_p);
}

} // namespace setscope::layout
