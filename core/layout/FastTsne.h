// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace setscope::job {
class JobControl;
} // namespace setscope::job

namespace setscope::layout {

struct FftWorkspace;

/// How the repulsive part of the gradient is computed.
enum class TsneRepulsion {
    Auto,  ///< Exact below kExactRepulsionMax points, FFT interpolation above
    Fft,   ///< FFT-accelerated interpolation (FIt-SNE, Linderman et al. 2019), O(n + grid log grid)
    Exact, ///< all pairs, O(n²); the reference the FFT path is tested against
};

/// Options of FastTsne. Defaults follow openTSNE / FIt-SNE.
struct FastTsneOptions {
    double perplexity = 30.0;
    double learningRate = 0.0;        ///< 0 = automatic: max(200, n / earlyExaggeration)
    double earlyExaggeration = 12.0;
    int exaggerationIterations = 250; ///< counted from a cold start; warm starts skip it
    int maxIterations = 1000;
    std::uint64_t seed = 1;           ///< random start when PCA cannot initialise (all points equal)
    int threads = 0;                  ///< OpenMP team size at most; 0 = omp_get_max_threads() (the
                                      ///< steps use 1 thread when that is timed faster, see docs/LAYOUT.md)
    TsneRepulsion repulsion = TsneRepulsion::Auto;
    /// The interpolation grid: `interpolationPoints` Lagrange nodes per box and axis, at least
    /// `minBoxes` boxes per axis, `boxesPerUnit` boxes per unit of the map's extent (boxes
    /// grow with the map). openTSNE / FIt-SNE use 3, 50, 1; the defaults here are half as fine
    /// (boxes 2 units wide), which on Fashion-MNIST gave the same 10-NN accuracy of the map at
    /// 5 000 points (0.801 against 0.800) and 0.003 less at 70 000 (0.836 against 0.840) for
    /// 1.8x and 2.9x less time (docs/LAYOUT.md): the FFT of a grid of 6B x 6B dominates.
    int interpolationPoints = 3;
    int minBoxes = 25;
    double boxesPerUnit = 0.5;
};

/// The symmetrised input affinities of FastTsne as a CSR matrix (n x n, symmetric, zero
/// diagonal, sums to 1): row i's entries are col[rowStart[i] .. rowStart[i + 1]), columns
/// ascending.
struct SparseAffinities {
    std::int64_t n = 0;
    std::vector<std::int64_t> rowStart; ///< n + 1
    std::vector<std::int32_t> col;
    std::vector<double> val;
};

/// The conditional affinities p_j|i over each point's k nearest neighbours (before
/// symmetrisation): neighbours[i * k + r] and p[i * k + r], row i sums to 1.
struct KnnAffinities {
    std::int64_t n = 0;
    int k = 0;
    double perplexity = 0.0; ///< the perplexity used (see Tsne::effectivePerplexity)
    bool exact = true;       ///< exact kNN (FAISS flat) or approximate (inverted file, n > kExactKnnMax)
    std::vector<std::int64_t> neighbours;
    std::vector<double> p;
};

/// t-SNE for every item of a dataset (tens of thousands of points): input affinities over
/// the k = min(n - 1, 3 perplexity) nearest neighbours (FAISS: exact up to kExactKnnMax
/// points, an inverted file above), each row
/// calibrated to the perplexity by the same bracketing search as the exact Tsne, symmetrised
/// into a sparse P; the gradient's attractive part over P's non-zeros and its repulsive part
/// by FFT-accelerated polynomial interpolation on an equispaced grid (FIt-SNE / openTSNE:
/// `interpolationPoints` Lagrange nodes per box, at least `minBoxes` boxes per axis, more as
/// the map grows; the squared Cauchy kernel convolved by single-precision FFTW). Optimiser as in
/// bhtsne / FIt-SNE: gradient without the factor 4, gains (+0.2 / x0.8, floor 0.01),
/// momentum 0.5 then 0.8 after 250 iterations, early exaggeration, re-centring each step.
///
/// Deterministic: every parallel loop writes per-point results that are combined in index
/// order, the grid is filled one charge per thread and FFTW plans are made with
/// FFTW_ESTIMATE, so the same input, options and seed give a bit-identical map whatever the
/// thread count (ties between equidistant neighbours are broken by FAISS, by index).
///
/// Not thread-safe: one thread drives an object (it runs its own OpenMP teams).
class FastTsne {
public:
    /// Below this many points TsneRepulsion::Auto uses the exact repulsion: the FFT's fixed
    /// cost (a grid of at least 75 x 75 nodes, zero-padded to 150 x 150) is larger than the
    /// O(n²) sum there.
    static constexpr std::int64_t kExactRepulsionMax = 1500;
    /// Up to this many points the neighbours are exact (FAISS IndexFlatL2, O(n² d)); above,
    /// a FAISS inverted file (about sqrt(n) k-means lists, 1/16 of them scanned per query),
    /// as FIt-SNE and openTSNE use approximate neighbours (Annoy) for large n: the exact
    /// search took 89 s at 70 000 x 50 on the shared 2-core machine.
    static constexpr std::int64_t kExactKnnMax = 10000;
    /// Boxes per axis at most (and at most 4 sqrt(n), but never fewer than minBoxes): the grid
    /// is then 900 x 900 nodes, FFTs of 1800 x 1800 (26 MB a buffer). A wider map gets wider
    /// boxes, so a less accurate repulsion, instead of a grid that grows without bound (two
    /// points repelling each other). Fashion-MNIST's 70 000 span about 150 units.
    static constexpr int kMaxBoxes = 300;

    /// x: n x d row-major input (not kept). Computes the affinities (setInput) and does a cold
    /// initialize(). Throws std::invalid_argument for n < 1, d < 1, a non-positive perplexity,
    /// a non-finite input value or bad options, and job::Cancelled when `control` (may be
    /// null) is cancelled meanwhile (the kNN search polls between chunks of 2 048 queries,
    /// the calibration between blocks of rows).
    FastTsne(const float* x, std::int64_t n, int d, FastTsneOptions options = {},
             job::JobControl* control = nullptr);
    ~FastTsne();
    FastTsne(const FastTsne&) = delete;
    FastTsne& operator=(const FastTsne&) = delete;

    /// Recomputes the affinities from a new snapshot of the same n items (x: n x d, any d),
    /// keeping the map. Follow with initialize(embedding().data()) for a warm start.
    void setInput(const float* x, std::int64_t n, int d, job::JobControl* control = nullptr);

    /// Warm start from `y0` (n x 2) when not null: no exaggeration, momentum 0.8 from the
    /// first step, fresh gains, the iteration count restarts at 0. Otherwise a cold start from
    /// the PCA of the last input, scaled so that the first axis has standard deviation 1e-4
    /// (openTSNE's initialisation); when every point is equal, from N(0, 1e-8 I) by seed.
    void initialize(const float* y0 = nullptr);
    /// A cold start (early exaggeration, momentum 0.5 then 0.8) from a given map y0 (n x 2).
    void initializeCold(const float* y0);
    /// Changes the iteration budget (e.g. a short warm-start schedule); done() follows it.
    void setMaxIterations(int iterations);

    /// Runs up to `iterations` gradient steps (fewer when maxIterations is reached), polling
    /// `control` (may be null) before each: a cancel surfaces as job::Cancelled (the map keeps
    /// the last completed step), a pause blocks. Returns the iterations done.
    int step(int iterations, job::JobControl* control = nullptr);

    /// Current map, n x 2 row-major.
    const std::vector<float>& embedding() const { return m_y; }
    std::int64_t size() const { return m_n; }
    int iteration() const { return m_iter; }
    bool done() const { return m_iter >= m_opt.maxIterations; }
    /// The learning rate in use (resolved from options().learningRate).
    double learningRate() const { return m_learningRate; }
    const FastTsneOptions& options() const { return m_opt; }
    /// True when the repulsion of this object is the FFT interpolation.
    bool usesFft() const { return m_fft; }
    /// Seconds spent on the last setInput (kNN search + calibration + symmetrisation).
    double affinitySeconds() const { return m_affinitySeconds; }

    const SparseAffinities& affinities() const { return m_p; }
    /// Gradient of KL(P || Q) at the current map (n x 2, with the factor 4, without
    /// exaggeration), by the repulsion method in use (`exact` forces the O(n²) sum).
    std::vector<double> gradient(bool exact = false) const;
    /// The repulsive part of gradient(): -4 sum_j q_ij num_ij (y_i - y_j) (n x 2). For tests.
    std::vector<double> repulsiveGradient(bool exact = false) const;
    /// KL(P || Q) of the current map, O(n²): for tests and small n.
    double klDivergence() const;

    /// The kNN conditional affinities of x (see KnnAffinities), calibrated so that each row's
    /// entropy is log(perplexity used) within 1e-5 nats. Same errors as the constructor.
    static KnnAffinities knnAffinities(const float* x, std::int64_t n, int d, double perplexity,
                                       int threads = 0, job::JobControl* control = nullptr);
    /// P = (P_cond + P_condᵀ) / 2n as CSR.
    static SparseAffinities symmetrise(const KnnAffinities& c);

private:
    void iterate();
    void computeForces(std::vector<double>& attr, std::vector<double>& rep, double& z, bool exact, int team) const;
    /// gradient() (withAttraction) or repulsiveGradient() from one force pass.
    std::vector<double> gradientTerms(bool exact, bool withAttraction) const;
    void buildAttractionMatrix();
    void resetOptimizer(bool warm);
    void syncEmbedding();
    int threads() const;

    std::int64_t m_n = 0;
    FastTsneOptions m_opt;
    double m_learningRate = 200.0;
    bool m_fft = false;
    SparseAffinities m_p;
    /// P for the attraction pass: float values, rows and columns renumbered in breadth-first
    /// order of P's graph (m_order[r] = the point of row r), so that a row's columns are near
    /// its own index and the positions it reads are near each other in memory.
    std::vector<std::int64_t> m_order;
    std::vector<std::int64_t> m_attrRowStart;
    std::vector<std::int32_t> m_attrCol;
    std::vector<float> m_attrVal;
    std::vector<float> m_pcaInit; ///< PCA of the last input (n x 2), for cold starts
    std::vector<float> m_y;
    std::vector<double> m_pos;
    std::vector<double> m_update;
    std::vector<double> m_gains;
    int m_iter = 0;
    int m_team = 0;                      ///< threads of the gradient steps (0: not timed yet)
    double m_singleThreadSeconds = 0.0; ///< the last one-thread iteration's time
    bool m_warm = false;
    double m_affinitySeconds = 0.0;
    std::unique_ptr<FftWorkspace> m_workspace; ///< FFTW plans and buffers, reused across iterations
};

} // namespace setscope::layout
