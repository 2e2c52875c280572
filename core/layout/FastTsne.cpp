// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/layout/FastTsne.h"
#include "core/util/Perplexity.h"

#include "core/eval/Knn.h"
#include "core/job/Job.h"
#include "core/layout/Pca.h"
#include "core/layout/Tsne.h"
#include "core/util/Numeric.h"

#include <faiss/IndexFlat.h>
#include <faiss/Clustering.h>
#include <fftw3.h>
#include <Eigen/Dense>
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace setscope::layout {

namespace {

using util::sz;

constexpr int kMomentumSwitchIteration = 250;
constexpr double kInitialMomentum = 0.5;
constexpr double kFinalMomentum = 0.8;
constexpr double kMinGain = 0.01;
// Iterations between two timings of one thread against the full team (see iterate()).
constexpr int kTeamCheckEvery = 50;
constexpr double kInitStddev = 1e-4; // openTSNE: the PCA start's first axis has this std
// Below this many points a parallel region costs more than it saves.
constexpr std::int64_t kParallelMin = 256;
// Rows calibrated between two cancel polls.
constexpr std::int64_t kRowsPerPoll = 1024;
// FFT-friendly box counts (FIt-SNE's list): a count below 200 is rounded up to one of these.
constexpr std::array<int, 20> kAllowedBoxes = {25, 36, 50, 55, 60, 65, 70, 75, 80, 85,
                                               90, 96, 100, 110, 120, 130, 140, 150, 175, 200};

// FFTW's planner is not thread-safe (fftw_execute* is): plans are made and destroyed under
// this lock, so two layout jobs can run at once.
std::mutex& fftwPlannerMutex()
{
    static std::mutex m;
    return m;
}

double sign(double x) { return x == 0.0 ? 0.0 : (x < 0.0 ? -1.0 : 1.0); }

void checkInput(const float* x, std::int64_t n, int d, double perplexity)
{
    if (n < 1)
        throw std::invalid_argument("t-SNE: need at least one point, got " + std::to_string(n));
    if (n > std::numeric_limits<std::int32_t>::max())
        throw std::invalid_argument("t-SNE: too many points (" + std::to_string(n) + ")");
    if (d < 1)
        throw std::invalid_argument("t-SNE: input dimension must be positive, got " + std::to_string(d));
    if (!x)
        throw std::invalid_argument("t-SNE: null input");
    if (!(perplexity > 0.0) || !std::isfinite(perplexity))
        throw std::invalid_argument("t-SNE: perplexity must be positive, got " + std::to_string(perplexity));
    const std::size_t count = sz(n) * static_cast<std::size_t>(d);
    for (std::size_t k = 0; k < count; ++k)
        if (!std::isfinite(x[k]))
            throw std::invalid_argument("t-SNE: the input holds a NaN or infinite value (point "
                                        + std::to_string(k / static_cast<std::size_t>(d)) + ")");
}

int resolveThreads(int requested) { return requested > 0 ? requested : std::max(1, omp_get_max_threads()); }

// Sets the calling thread's OpenMP team size for a scope (FAISS sizes its teams by it).
class OmpThreadsScope {
public:
    explicit OmpThreadsScope(int threads)
        : m_old(omp_get_max_threads())
    {
        omp_set_num_threads(threads);
    }
    ~OmpThreadsScope() { omp_set_num_threads(m_old); }
    OmpThreadsScope(const OmpThreadsScope&) = delete;
    OmpThreadsScope& operator=(const OmpThreadsScope&) = delete;

private:
    int m_old;
};

// The k nearest other points of every point, approximately, by an inverted file: the points
// are clustered into about sqrt(n) lists (FAISS k-means on a sample of 64 points per list,
// FAISS's fixed seed), and the points of list c are searched among the points of the
// `probes` lists whose centroids are nearest to c's centroid (c itself first). Probing per
// list rather than per query lets each list's search be one matrix product (Eigen, one per
// thread) instead of FAISS's per-query scan, which took 0.5 ms per query on the 2-core
// machine. Exact distances (in float) among the candidates; deterministic: each list is
// searched by one thread, whatever the team. A point that finds fewer than k candidates
// (tiny lists) is searched exactly.
std::vector<std::int64_t> approximateKnn(const float* x, std::int64_t n, int d, int k, int threads,
                                         job::JobControl* control)
{
    const int nlist = std::clamp(static_cast<int>(std::lround(std::sqrt(static_cast<double>(n)))), 16, 4096);
    const int probes = std::min(nlist, std::max(8, nlist / 12));
    faiss::ClusteringParameters cp;
    cp.niter = 10;
    cp.max_points_per_centroid = 64;
    cp.verbose = false;
    faiss::Clustering clustering(d, nlist, cp);
    faiss::IndexFlatL2 quantizer(d);
    clustering.train(n, x, quantizer);
    if (control)
        control->checkpoint();
    // Each point's list.
    std::vector<faiss::Index::idx_t> assign(sz(n));
    {
        std::vector<float> dist(sz(n));
        quantizer.search(n, x, 1, dist.data(), assign.data());
    }
    std::vector<std::vector<std::int64_t>> members(sz(nlist));
    for (std::int64_t i = 0; i < n; ++i) {
        if (assign[sz(i)] < 0 || assign[sz(i)] >= nlist)
            throw std::runtime_error("t-SNE: FAISS assigned point " + std::to_string(i) + " to no list");
        members[sz(assign[sz(i)])].push_back(i);
    }
    // Each list's probes: the lists of its nearest centroids.
    std::vector<faiss::Index::idx_t> probe(sz(nlist) * sz(probes));
    {
        std::vector<float> dist(sz(nlist) * sz(probes));
        quantizer.search(nlist, clustering.centroids.data(), probes, dist.data(), probe.data());
    }
    if (control)
        control->checkpoint();

    using RowMatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const RowMatrixF> all(x, n, d);
    Eigen::VectorXf norms = all.rowwise().squaredNorm();
    std::vector<std::int64_t> out(sz(n) * sz(k), -1);
    std::vector<char> short_(sz(n), 0);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        RowMatrixF queries, candidates, dots;
        std::vector<std::int64_t> cand;
        std::vector<std::pair<float, std::int64_t>> row;
        std::vector<float> candNorms;
#pragma omp for schedule(dynamic, 1)
        for (int c = 0; c < nlist; ++c) {
            if (control && control->cancelRequested())
                continue; // no exception may leave an OpenMP region
            const std::vector<std::int64_t>& mine = members[sz(c)];
            if (mine.empty())
                continue;
            cand.clear();
            for (int r = 0; r < probes; ++r) {
                const faiss::Index::idx_t l = probe[sz(c) * sz(probes) + sz(r)];
                if (l >= 0)
                    cand.insert(cand.end(), members[sz(l)].begin(), members[sz(l)].end());
            }
            queries.resize(static_cast<Eigen::Index>(mine.size()), d);
            for (std::size_t q = 0; q < mine.size(); ++q)
                queries.row(static_cast<Eigen::Index>(q)) = all.row(mine[q]);
            candidates.resize(static_cast<Eigen::Index>(cand.size()), d);
            for (std::size_t j = 0; j < cand.size(); ++j)
                candidates.row(static_cast<Eigen::Index>(j)) = all.row(cand[j]);
            dots.noalias() = queries * candidates.transpose();
            candNorms.resize(cand.size());
            for (std::size_t j = 0; j < cand.size(); ++j)
                candNorms[j] = norms(cand[j]);
            for (std::size_t q = 0; q < mine.size(); ++q) {
                const std::int64_t i = mine[q];
                if (cand.size() < sz(k) + 1) {
                    short_[sz(i)] = 1;
                    continue;
                }
                // A max-heap of the k best (distance, index): after the first k candidates
                // most are rejected by one comparison with its top.
                row.clear();
                const float* dq = dots.data() + static_cast<std::ptrdiff_t>(q) * dots.cols();
                const float ni = norms(i);
                for (std::size_t j = 0; j < cand.size(); ++j) {
                    if (cand[j] == i)
                        continue;
                    const std::pair<float, std::int64_t> e{ni + candNorms[j] - 2.0f * dq[j], cand[j]};
                    if (row.size() < sz(k)) {
                        row.push_back(e);
                        if (row.size() == sz(k))
                            std::make_heap(row.begin(), row.end());
                    } else if (e < row.front()) {
                        std::pop_heap(row.begin(), row.end());
                        row.back() = e;
                        std::push_heap(row.begin(), row.end());
                    }
                }
                std::sort_heap(row.begin(), row.end());
                for (int r = 0; r < k; ++r)
                    out[sz(i) * sz(k) + sz(r)] = row[sz(r)].second;
            }
        }
    }
    if (control)
        control->checkpoint();
    std::vector<std::int64_t> missing;
    for (std::int64_t i = 0; i < n; ++i)
        if (short_[sz(i)])
            missing.push_back(i);
    if (!missing.empty()) {
        std::vector<float> queries;
        for (std::int64_t i : missing)
            queries.insert(queries.end(), x + sz(i) * sz(d), x + sz(i + 1) * sz(d));
        const std::int64_t m = static_cast<std::int64_t>(missing.size());
        const int kk = k + 1;
        faiss::IndexFlatL2 flat(d);
        flat.add(n, x);
        std::vector<float> dd(sz(m) * sz(kk));
        std::vector<faiss::Index::idx_t> ii(sz(m) * sz(kk));
        flat.search(m, queries.data(), kk, dd.data(), ii.data());
        for (std::int64_t r = 0; r < m; ++r) {
            int o = 0;
            for (int j = 0; j < kk && o < k; ++j) {
                const faiss::Index::idx_t id = ii[sz(r) * sz(kk) + sz(j)];
                if (id >= 0 && id != missing[sz(r)])
                    out[sz(missing[sz(r)]) * sz(k) + sz(o++)] = id;
            }
        }
    }
    return out;
}

// --- FFT-accelerated repulsion ---------------------------------------------------------------

} // namespace

struct FftwfFree {
    void operator()(void* p) const { fftwf_free(p); }
};

// Single-precision FFTW buffers and plans for one grid size, reused across iterations while
// the size holds, and the kernel's transform while the node spacing holds too.
//
// The 2-D transforms of the zero-padded m x m grid (m = 2 x nodes) are done as two passes of
// 1-D transforms so that the padding is skipped: forward, real-to-complex rows only for the
// first `nodes` rows (the others are zero), then complex columns; backward, complex columns,
// then complex-to-real rows only for the first `nodes` rows (the others are not read). A
// buffer is m rows of m/2 + 1 complex numbers, the real rows in place (stride 2 (m/2 + 1)).
struct FftWorkspace {
    int nodes = 0;
    int m = 0;
    double kernelSpacing = -1.0; // the node spacing kernelHat holds (< 0: none yet)
    std::unique_ptr<float, FftwfFree> kernelHat;                       // m x (m/2 + 1), real, 1 / m² folded in
    std::unique_ptr<float, FftwfFree> kernelQuadrant;                  // (nodes + 1)², the kernel's DCT-I
    std::vector<std::unique_ptr<fftwf_complex, FftwfFree>> buf;        // per thread
    fftwf_plan rowsForward = nullptr;    // r2c of the first `nodes` rows
    fftwf_plan kernelDct = nullptr;      // 2-D DCT-I of the kernel's first quadrant, in place
    fftwf_plan colsForward = nullptr;
    fftwf_plan colsBackward = nullptr;
    fftwf_plan rowsBackward = nullptr;   // c2r of the first `nodes` rows
    // Per-iteration scratch, kept to spare the allocations.
    std::vector<std::int32_t> node0;
    std::vector<double> weight;
    std::array<std::vector<double>, 4> phi;
    std::vector<double> z;

    ~FftWorkspace() { release(); }

    int complexRow() const { return m / 2 + 1; }
    int realRow() const { return 2 * (m / 2 + 1); }

    void release()
    {
        std::lock_guard lock(fftwPlannerMutex());
        for (fftwf_plan* p : {&rowsForward, &kernelDct, &colsForward, &colsBackward, &rowsBackward}) {
            if (*p)
                fftwf_destroy_plan(*p);
            *p = nullptr;
        }
    }

    // Plans and buffers for a grid of gridNodes² nodes, and at least teamSize buffers (a
    // smaller team than before keeps the plans: the adaptive team switches between 1 and 2).
    void ensure(int gridNodes, int teamSize)
    {
        const std::size_t complexes = sz(2 * gridNodes) * sz(gridNodes + 1);
        if (gridNodes == nodes) {
            while (static_cast<int>(buf.size()) < teamSize) {
                buf.emplace_back(fftwf_alloc_complex(complexes));
                if (!buf.back())
                    throw std::bad_alloc();
            }
            return;
        }
        release();
        nodes = gridNodes;
        m = 2 * nodes;
        kernelSpacing = -1.0;
        const int cr = complexRow();
        kernelHat.reset(fftwf_alloc_real(complexes));
        kernelQuadrant.reset(fftwf_alloc_real(sz(nodes + 1) * sz(nodes + 1)));
        buf.clear();
        for (int t = 0; t < std::max(1, teamSize); ++t)
            buf.emplace_back(fftwf_alloc_complex(complexes));
        if (!kernelHat || !kernelQuadrant)
            throw std::bad_alloc();
        for (const auto& b : buf)
            if (!b)
                throw std::bad_alloc();
        // FFTW_ESTIMATE: the plan depends on the size only (not on timing), so results are
        // reproducible; FFTW_MEASURE would pick algorithms by the machine's load. Every
        // buffer comes from fftwf_alloc_*, so each has the alignment the plans were made for.
        fftwf_complex* b = buf[0].get();
        float* r = reinterpret_cast<float*>(b);
        const int len[1] = {m};
        std::lock_guard lock(fftwPlannerMutex());
        rowsForward = fftwf_plan_many_dft_r2c(1, len, nodes, r, nullptr, 1, 2 * cr, b, nullptr, 1, cr, FFTW_ESTIMATE);
        kernelDct = fftwf_plan_r2r_2d(nodes + 1, nodes + 1, kernelQuadrant.get(), kernelQuadrant.get(), FFTW_REDFT00,
                                      FFTW_REDFT00, FFTW_ESTIMATE);
        colsForward = fftwf_plan_many_dft(1, len, cr, b, nullptr, cr, 1, b, nullptr, cr, 1, FFTW_FORWARD, FFTW_ESTIMATE);
        colsBackward = fftwf_plan_many_dft(1, len, cr, b, nullptr, cr, 1, b, nullptr, cr, 1, FFTW_BACKWARD, FFTW_ESTIMATE);
        rowsBackward = fftwf_plan_many_dft_c2r(1, len, nodes, b, nullptr, 1, cr, r, nullptr, 1, 2 * cr, FFTW_ESTIMATE);
        if (!rowsForward || !kernelDct || !colsForward || !colsBackward || !rowsBackward)
            throw std::runtime_error("t-SNE: FFTW could not plan a " + std::to_string(m) + " x "
                                     + std::to_string(m) + " transform");
    }

    // The transform of the squared Cauchy kernel sampled at node offsets (circular, the
    // offset of exactly `nodes` zeroed) for node spacing h, unless it is already there. The
    // kernel is real and even along both axes, so its transform is real and even too, and is
    // the 2-D DCT-I of one quadrant ((nodes + 1)² samples instead of m²): FFTW's REDFT00 of
    // length nodes + 1 is the DFT of length 2 nodes = m of the even extension.
    void ensureKernel(double h, int team)
    {
        if (h == kernelSpacing)
            return;
        float* q = kernelQuadrant.get();
        const int nn = nodes;
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
        for (int a = 0; a <= nn; ++a)
            for (int c = 0; c <= nn; ++c) {
                const double r2 = (static_cast<double>(a) * a + static_cast<double>(c) * c) * h * h;
                const double k1 = 1.0 / (1.0 + r2);
                q[sz(a) * sz(nn + 1) + sz(c)] = (a == nn || c == nn) ? 0.0f : static_cast<float>(k1 * k1);
            }
        fftwf_execute_r2r(kernelDct, q, q);
        const double norm = 1.0 / (static_cast<double>(m) * m);
        float* kh = kernelHat.get();
        const int cr = complexRow(); // = nodes + 1
        for (int u = 0; u < m; ++u) {
            const float* src = q + sz(u <= nn ? u : m - u) * sz(nn + 1);
            float* dst = kh + sz(u) * sz(cr);
            for (int v = 0; v < cr; ++v)
                dst[v] = static_cast<float>(src[v] * norm);
        }
        kernelSpacing = h;
    }
};

namespace {

// Boxes per axis: one per 1 / boxesPerUnit units of the map's extent, at least minBoxes, at
// most kMaxBoxes and at most 4 sqrt(n) (many more boxes than points only refine empty space:
// two points repelling each other would otherwise get an ever larger grid).
int boxCount(double extent, std::int64_t n, const FastTsneOptions& o)
{
    const double wanted = std::ceil(extent * o.boxesPerUnit);
    const double cap = std::min(static_cast<double>(FastTsne::kMaxBoxes), std::ceil(4.0 * std::sqrt(static_cast<double>(n))));
    int boxes = static_cast<int>(std::clamp(wanted, static_cast<double>(o.minBoxes),
                                            std::max(static_cast<double>(o.minBoxes), cap)));
    if (boxes < kAllowedBoxes.back())
        for (int a : kAllowedBoxes)
            if (a >= boxes) {
                boxes = a;
                break;
            }
    return boxes;
}

// Repulsion by interpolation (Linderman et al., Nat. Methods 2019, the 2-D case of FIt-SNE's
// nbodyfft2): the four sums phi_c(y_i) = sum_j K(y_i, y_j) q_c(y_j) with the squared Cauchy
// kernel K = (1 + |y_i - y_j|²)⁻² and charges q = (1, y_x, y_y, |y|²) are approximated by
// spreading the charges onto an equispaced grid (Lagrange interpolation, p nodes per box and
// axis), convolving the grid with K by FFT (zero-padded to 2N, so circular = linear; single
// precision, whose rounding is orders of magnitude below the interpolation's error), and
// interpolating the potentials back. Then
//   rep_i = sum_j K_ij (y_i - y_j) = y_i phi_1 - (phi_2, phi_3),
//   z_i = sum_j K_ij (1 + |y_i - y_j|²) = (1 + |y_i|²) phi_1 - 2 y_i.(phi_2, phi_3) + phi_4,
// and Z = sum_i z_i - n (the self terms).
double fftRepulsion(const std::vector<double>& pos, std::int64_t n, const FastTsneOptions& o, int threads,
                    FftWorkspace& ws, std::vector<double>& rep)
{
    const int p = o.interpolationPoints;
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (double v : pos) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    const int boxes = boxCount(hi - lo, n, o);
    // A degenerate map (all points equal) still needs a box width.
    const double boxWidth = std::max(hi - lo, 1e-12) / boxes;
    const int nodes = boxes * p; // grid nodes per axis
    const double h = boxWidth / p;
    const int teams = std::min(threads, 4);
    ws.ensure(nodes, teams);
    ws.ensureKernel(h, threads);
    const int rr = ws.realRow();

    // Lagrange basis on nodes t_k = (k + 1/2) / p of the unit box.
    std::vector<double> t(sz(p)), denom(sz(p));
    for (int k = 0; k < p; ++k)
        t[sz(k)] = (k + 0.5) / p;
    for (int k = 0; k < p; ++k) {
        double dd = 1.0;
        for (int j = 0; j < p; ++j)
            if (j != k)
                dd *= t[sz(k)] - t[sz(j)];
        denom[sz(k)] = dd;
    }

    // Per point and axis: the first grid node of its box and the p weights.
    std::vector<std::int32_t>& node0 = ws.node0;
    std::vector<double>& weight = ws.weight;
    node0.resize(sz(2 * n));
    weight.resize(sz(2 * n) * sz(p));
#pragma omp parallel for schedule(static) num_threads(threads) if (n >= kParallelMin && threads > 1)
    for (std::int64_t a = 0; a < 2 * n; ++a) {
        const double u = (pos[sz(a)] - lo) / boxWidth;
        const int b = std::clamp(static_cast<int>(u), 0, boxes - 1);
        const double s = u - b;
        node0[sz(a)] = b * p;
        double* w = weight.data() + sz(a) * sz(p);
        for (int k = 0; k < p; ++k) {
            double num = 1.0;
            for (int j = 0; j < p; ++j)
                if (j != k)
                    num *= s - t[sz(j)];
            w[k] = num / denom[sz(k)];
        }
    }

    // One charge per thread: spread, transform, multiply, transform back, gather. Each charge
    // is summed in point order by one thread, so the result does not depend on the team.
    std::array<std::vector<double>, 4>& phi = ws.phi;
    for (auto& v : phi)
        v.resize(sz(n));
    const std::size_t count = sz(ws.m) * sz(ws.complexRow());
#pragma omp parallel for schedule(static, 1) num_threads(teams) if (teams > 1)
    for (int c = 0; c < 4; ++c) {
        const int tid = teams > 1 ? omp_get_thread_num() : 0;
        fftwf_complex* hat = ws.buf[sz(tid)].get();
        float* grid = reinterpret_cast<float*>(hat);
        std::fill(grid, grid + 2 * count, 0.0f);
        for (std::int64_t i = 0; i < n; ++i) {
            const double x = pos[sz(2 * i)];
            const double y = pos[sz(2 * i + 1)];
            const double q = c == 0 ? 1.0 : c == 1 ? x : c == 2 ? y : x * x + y * y;
            const double* wx = weight.data() + sz(2 * i) * sz(p);
            const double* wy = weight.data() + sz(2 * i + 1) * sz(p);
            const int gx = node0[sz(2 * i)];
            const int gy = node0[sz(2 * i + 1)];
            for (int kx = 0; kx < p; ++kx) {
                float* row = grid + sz(gx + kx) * sz(rr) + sz(gy);
                const double qx = q * wx[kx];
                for (int ky = 0; ky < p; ++ky)
                    row[ky] += static_cast<float>(qx * wy[ky]);
            }
        }
        fftwf_execute_dft_r2c(ws.rowsForward, grid, hat);
        fftwf_execute_dft(ws.colsForward, hat, hat);
        const float* kh = ws.kernelHat.get();
        for (std::size_t k = 0; k < count; ++k) {
            hat[k][0] *= kh[k];
            hat[k][1] *= kh[k];
        }
        fftwf_execute_dft(ws.colsBackward, hat, hat);
        fftwf_execute_dft_c2r(ws.rowsBackward, hat, grid);
        std::vector<double>& out = phi[sz(c)];
        for (std::int64_t i = 0; i < n; ++i) {
            const double* wx = weight.data() + sz(2 * i) * sz(p);
            const double* wy = weight.data() + sz(2 * i + 1) * sz(p);
            const int gx = node0[sz(2 * i)];
            const int gy = node0[sz(2 * i + 1)];
            double s = 0.0;
            for (int kx = 0; kx < p; ++kx) {
                const float* row = grid + sz(gx + kx) * sz(rr) + sz(gy);
                double r = 0.0;
                for (int ky = 0; ky < p; ++ky)
                    r += wy[ky] * row[ky];
                s += wx[kx] * r;
            }
            out[sz(i)] = s;
        }
    }

    std::vector<double>& z = ws.z;
    z.resize(sz(n));
#pragma omp parallel for schedule(static) num_threads(threads) if (n >= kParallelMin && threads > 1)
    for (std::int64_t i = 0; i < n; ++i) {
        const double x = pos[sz(2 * i)];
        const double y = pos[sz(2 * i + 1)];
        const double p1 = phi[0][sz(i)], p2 = phi[1][sz(i)], p3 = phi[2][sz(i)], p4 = phi[3][sz(i)];
        rep[sz(2 * i)] = x * p1 - p2; // the self terms cancel exactly
        rep[sz(2 * i + 1)] = y * p1 - p3;
        z[sz(i)] = (1.0 + x * x + y * y) * p1 - 2.0 * (x * p2 + y * p3) + p4;
    }
    // Each z_i holds its self term, the interpolated kernel at distance 0, which is not
    // exactly 1; FIt-SNE subtracts n all the same, and so does this: subtracting the exact
    // interpolated self terms was tried and made the repulsion 1.4-4x less accurate in
    // tst_FastTsne (the interpolation errs the same way on close neighbours, and the two
    // errors cancel).
    double zsum = -static_cast<double>(n);
    for (double v : z)
        zsum += v;
    return zsum; // may be <= 0 for a tiny map in boxes much wider than the kernel: see the caller
}

// Rows handed to a thread at a time by the attraction pass.
constexpr std::int64_t kAttractionBlock = 1024;

// The attraction of rows [begin, end): a_i = sum_j p_ij (y_i - y_j) / (1 + |y_i - y_j|²),
// over row i of P (CSR; val and pos in float, pos n x 2), into out[2 point[i] ...]. Each row is summed in float SIMD
// lanes in a fixed order (the ~130 terms of a row), so a row's result does not depend on the
// thread that computes it.
void attractionRows(const std::int64_t* rowStart, const std::int32_t* col, const float* val, const float* pos,
                    const std::int64_t* point, std::int64_t begin, std::int64_t end, double* out)
{
    for (std::int64_t i = begin; i < end; ++i) {
        const float xi = pos[2 * i];
        const float yi = pos[2 * i + 1];
        float ax = 0.0f, ay = 0.0f;
#pragma omp simd reduction(+ : ax, ay)
        for (std::int64_t e = rowStart[i]; e < rowStart[i + 1]; ++e) {
            const std::int32_t j = col[e];
            const float dx = xi - pos[2 * j];
            const float dy = yi - pos[2 * j + 1];
            const float w = val[e] / (1.0f + dx * dx + dy * dy);
            ax += w * dx;
            ay += w * dy;
        }
        out[2 * point[i]] = ax;
        out[2 * point[i] + 1] = ay;
    }
}

// Exact repulsion: rep_i = sum_j num_ij² (y_i - y_j), Z = sum_{i != j} num_ij.
double exactRepulsion(const std::vector<double>& pos, std::int64_t n, int threads, std::vector<double>& rep)
{
    std::vector<double> z(sz(n));
    const double* ps = pos.data();
#pragma omp parallel for schedule(dynamic, 32) num_threads(threads) if (n >= kParallelMin && threads > 1)
    for (std::int64_t i = 0; i < n; ++i) {
        const double xi = ps[2 * i];
        const double yi = ps[2 * i + 1];
        double rx = 0.0, ry = 0.0, zi = 0.0;
        for (std::int64_t j = 0; j < n; ++j) {
            const double dx = xi - ps[2 * j];
            const double dy = yi - ps[2 * j + 1];
            const double num = 1.0 / (1.0 + dx * dx + dy * dy);
            const double n2 = num * num;
            rx += n2 * dx;
            ry += n2 * dy;
            zi += num;
        }
        rep[sz(2 * i)] = rx;
        rep[sz(2 * i + 1)] = ry;
        z[sz(i)] = zi - 1.0; // j == i contributed num = 1
    }
    double zsum = 0.0;
    for (double v : z)
        zsum += v;
    return zsum;
}

} // namespace

// --- affinities ------------------------------------------------------------------------------

KnnAffinities FastTsne::knnAffinities(const float* x, std::int64_t n, int d, double perplexity, int threads,
                                      job::JobControl* control)
{
    checkInput(x, n, d, perplexity);
    // Values whose squared distances overflow FAISS's floats (a diverging run's snapshot) are
    // searched scaled by a power of two: the neighbours are the same, and the affinities below
    // calibrate each row's bandwidth to its perplexity, whatever the scale (issue 29 §2).
    std::vector<float> scaled;
    if (const double scale = eval::faissScale({{{x, n, d}, "input"}}, "t-SNE"); scale != 1.0) {
        scaled = eval::scaledCopy({x, n, d}, scale);
        x = scaled.data();
    }
    threads = resolveThreads(threads);
    KnnAffinities out;
    out.n = n;
    out.perplexity = Tsne::effectivePerplexity(perplexity, n);
    const int k = static_cast<int>(std::min<double>(static_cast<double>(n - 1), std::floor(3.0 * perplexity)));
    out.k = std::max(0, k);
    if (out.k == 0)
        return out;

    {
        OmpThreadsScope scope(threads);
        if (n <= kExactKnnMax) {
            out.neighbours = eval::nearestNeighbours({x, n, d}, {x, n, d}, out.k, true, control).ids;
        } else {
            out.neighbours = approximateKnn(x, n, d, out.k, threads, control);
            out.exact = false;
        }
    }
    // Every point needs its k neighbours below (they index the input): FAISS's -1, which it
    // answers when a distance is not a number, must never get there.
    for (std::size_t e = 0; e < out.neighbours.size(); ++e)
        if (out.neighbours[e] < 0 || out.neighbours[e] >= n)
            throw std::runtime_error("t-SNE: no neighbour found for point " + std::to_string(e / sz(out.k)) +
                                     " (its distances are not numbers)");
    out.p.assign(out.neighbours.size(), 0.0);
    const double logU = std::log(out.perplexity);
    const std::int64_t blocks = (n + kRowsPerPoll - 1) / kRowsPerPoll;
    const int kk = out.k;
#pragma omp parallel num_threads(threads) if (n >= kParallelMin && threads > 1)
    {
        std::vector<double> dist(sz(kk));
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t b = 0; b < blocks; ++b) {
            if (control && control->cancelRequested())
                continue; // no exception may leave an OpenMP region
            const std::int64_t end = std::min(n, (b + 1) * kRowsPerPoll);
            for (std::int64_t i = b * kRowsPerPoll; i < end; ++i) {
                // Squared distances again in double from the input: FAISS's are float and
                // computed as |a|² + |b|² - 2a.b.
                const float* xi = x + sz(i) * sz(d);
                for (int r = 0; r < kk; ++r) {
                    const std::int64_t j = out.neighbours[sz(i) * sz(kk) + sz(r)];
                    const float* xj = x + sz(j) * sz(d);
                    double s = 0.0;
                    for (int c = 0; c < d; ++c) {
                        const double diff = static_cast<double>(xi[c]) - xj[c];
                        s += diff * diff;
                    }
                    dist[sz(r)] = s;
                }
                util::calibratePerplexityRow(dist.data(), kk, -1, logU, out.p.data() + sz(i) * sz(kk));
            }
        }
    }
    if (control)
        control->checkpoint();
    return out;
}

SparseAffinities FastTsne::symmetrise(const KnnAffinities& c)
{
    SparseAffinities s;
    const std::int64_t n = c.n;
    const int k = c.k;
    s.n = n;
    s.rowStart.assign(sz(n + 1), 0);
    if (k == 0)
        return s;
    // Row i holds its own k entries and one entry per point that has i as a neighbour;
    // sorted by column, duplicates (mutual neighbours) summed: own entry first, then the
    // transposed one, always in that order.
    std::vector<std::int64_t> count(sz(n), k);
    for (std::int64_t j : c.neighbours)
        ++count[sz(j)];
    std::vector<std::int64_t> start(sz(n + 1), 0);
    for (std::int64_t i = 0; i < n; ++i)
        start[sz(i + 1)] = start[sz(i)] + count[sz(i)];
    std::vector<std::pair<std::int32_t, double>> entries(sz(start[sz(n)]));
    std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
    const double inv2n = 1.0 / (2.0 * static_cast<double>(n));
    for (std::int64_t i = 0; i < n; ++i)
        for (int r = 0; r < k; ++r)
            entries[sz(fill[sz(i)]++)] = {static_cast<std::int32_t>(c.neighbours[sz(i) * sz(k) + sz(r)]),
                                          c.p[sz(i) * sz(k) + sz(r)] * inv2n};
    for (std::int64_t i = 0; i < n; ++i)
        for (int r = 0; r < k; ++r) {
            const std::int64_t j = c.neighbours[sz(i) * sz(k) + sz(r)];
            entries[sz(fill[sz(j)]++)] = {static_cast<std::int32_t>(i), c.p[sz(i) * sz(k) + sz(r)] * inv2n};
        }
    std::vector<std::int64_t> merged(sz(n), 0);
#pragma omp parallel for schedule(dynamic, 256) if (n >= kParallelMin)
    for (std::int64_t i = 0; i < n; ++i) {
        auto b = entries.begin() + start[sz(i)];
        auto e = entries.begin() + start[sz(i + 1)];
        std::stable_sort(b, e, [](const auto& u, const auto& v) { return u.first < v.first; });
        auto w = b;
        for (auto r = b; r != e; ++r) {
            if (w != b && (w - 1)->first == r->first)
                (w - 1)->second += r->second;
            else
                *w++ = *r;
        }
        merged[sz(i)] = w - b;
    }
    for (std::int64_t i = 0; i < n; ++i)
        s.rowStart[sz(i + 1)] = s.rowStart[sz(i)] + merged[sz(i)];
    s.col.resize(sz(s.rowStart[sz(n)]));
    s.val.resize(s.col.size());
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t r = 0; r < merged[sz(i)]; ++r) {
            const auto& en = entries[sz(start[sz(i)] + r)];
            s.col[sz(s.rowStart[sz(i)] + r)] = en.first;
            s.val[sz(s.rowStart[sz(i)] + r)] = en.second;
        }
    return s;
}

// --- the object ------------------------------------------------------------------------------

FastTsne::FastTsne(const float* x, std::int64_t n, int d, FastTsneOptions options, job::JobControl* control)
    : m_n(n)
    , m_opt(options)
{
    if (m_opt.maxIterations < 0)
        throw std::invalid_argument("t-SNE: maxIterations must not be negative");
    if (m_opt.learningRate < 0.0 || !std::isfinite(m_opt.learningRate))
        throw std::invalid_argument("t-SNE: the learning rate must be positive (or 0 for automatic)");
    if (m_opt.interpolationPoints < 1 || m_opt.interpolationPoints > 10)
        throw std::invalid_argument("t-SNE: interpolation points per box must be 1..10");
    if (m_opt.minBoxes < 1 || !(m_opt.boxesPerUnit > 0.0))
        throw std::invalid_argument("t-SNE: the interpolation grid needs at least one box");
    if (!(m_opt.earlyExaggeration > 0.0))
        throw std::invalid_argument("t-SNE: the early exaggeration must be positive");
    m_learningRate = m_opt.learningRate > 0.0
                         ? m_opt.learningRate
                         : std::max(200.0, static_cast<double>(n) / m_opt.earlyExaggeration);
    m_fft = m_opt.repulsion == TsneRepulsion::Fft
            || (m_opt.repulsion == TsneRepulsion::Auto && n > kExactRepulsionMax);
    m_workspace = std::make_unique<FftWorkspace>();
    setInput(x, n, d, control);
    m_y.assign(sz(2 * n), 0.0f);
    m_pos.assign(sz(2 * n), 0.0);
    initialize(nullptr);
}

FastTsne::~FastTsne() = default;

void FastTsne::setInput(const float* x, std::int64_t n, int d, job::JobControl* control)
{
    if (m_n != n)
        throw std::invalid_argument("t-SNE: a new snapshot must have the same " + std::to_string(m_n)
                                    + " items, got " + std::to_string(n));
    const auto t0 = std::chrono::steady_clock::now();
    checkInput(x, n, d, m_opt.perplexity);
    // Scaled once for the affinities and the PCA start alike (see knnAffinities); the map does
    // not depend on the input's scale.
    std::vector<float> scaled;
    if (const double scale = eval::faissScale({{{x, n, d}, "input"}}, "t-SNE"); scale != 1.0) {
        scaled = eval::scaledCopy({x, n, d}, scale);
        x = scaled.data();
    }
    m_p = symmetrise(knnAffinities(x, n, d, m_opt.perplexity, threads(), control));
    buildAttractionMatrix();
    m_affinitySeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // PCA start (openTSNE): first axis scaled to standard deviation 1e-4; an axis without
    // spread (1-D input, equal points) gets random values of that spread by seed instead.
    m_pcaInit.assign(sz(2 * n), 0.0f);
    if (n > 1) {
        if (d >= 2) {
            m_pcaInit = pca(x, n, d, 2);
        } else {
            const std::vector<float> one = pca(x, n, d, 1);
            for (std::int64_t i = 0; i < n; ++i)
                m_pcaInit[sz(2 * i)] = one[sz(i)];
        }
        double sd[2] = {0.0, 0.0};
        for (int a = 0; a < 2; ++a) {
            double mean = 0.0;
            for (std::int64_t i = 0; i < n; ++i)
                mean += m_pcaInit[sz(2 * i + a)];
            mean /= static_cast<double>(n);
            double ss = 0.0;
            for (std::int64_t i = 0; i < n; ++i) {
                const double v = m_pcaInit[sz(2 * i + a)] - mean;
                ss += v * v;
            }
            sd[a] = std::sqrt(ss / static_cast<double>(n));
        }
        const double ref = sd[0] > 0.0 ? sd[0] : 1.0;
        std::mt19937_64 rng(m_opt.seed);
        std::normal_distribution<double> normal(0.0, kInitStddev);
        for (int a = 0; a < 2; ++a) {
            const bool flat = !(sd[a] > 1e-12 * ref) || sd[0] == 0.0;
            for (std::int64_t i = 0; i < n; ++i) {
                float& v = m_pcaInit[sz(2 * i + a)];
                v = flat ? static_cast<float>(normal(rng)) : static_cast<float>(v * kInitStddev / ref);
            }
        }
    }
}

// Breadth-first order of P's graph (from point 0, then from the lowest point not reached),
// neighbours in column order: the kNN graph's neighbours get nearby numbers, so the
// attraction pass, which reads the positions of a row's ~130 columns, reads a few nearby
// cache lines instead of ~130 scattered ones (the 70 000 positions do not fit a core's L2).
// Deterministic; the row's entries keep their order, so the sums are the same as unordered.
void FastTsne::buildAttractionMatrix()
{
    const std::int64_t n = m_n;
    m_order.clear();
    m_order.reserve(sz(n));
    std::vector<std::int32_t> rank(sz(n), -1);
    for (std::int64_t s = 0; s < n; ++s) {
        if (rank[sz(s)] >= 0)
            continue;
        std::size_t head = m_order.size();
        rank[sz(s)] = static_cast<std::int32_t>(m_order.size());
        m_order.push_back(s);
        while (head < m_order.size()) {
            const std::int64_t i = m_order[head++];
            for (std::int64_t e = m_p.rowStart[sz(i)]; e < m_p.rowStart[sz(i + 1)]; ++e) {
                const std::int32_t j = m_p.col[sz(e)];
                if (rank[sz(j)] < 0) {
                    rank[sz(j)] = static_cast<std::int32_t>(m_order.size());
                    m_order.push_back(j);
                }
            }
        }
    }
    m_attrRowStart.assign(sz(n + 1), 0);
    for (std::int64_t r = 0; r < n; ++r) {
        const std::int64_t i = m_order[sz(r)];
        m_attrRowStart[sz(r + 1)] = m_attrRowStart[sz(r)] + (m_p.rowStart[sz(i + 1)] - m_p.rowStart[sz(i)]);
    }
    m_attrCol.resize(m_p.col.size());
    m_attrVal.resize(m_p.val.size());
#pragma omp parallel for schedule(static) num_threads(threads()) if (n >= kParallelMin)
    for (std::int64_t r = 0; r < n; ++r) {
        const std::int64_t i = m_order[sz(r)];
        std::int64_t o = m_attrRowStart[sz(r)];
        for (std::int64_t e = m_p.rowStart[sz(i)]; e < m_p.rowStart[sz(i + 1)]; ++e, ++o) {
            m_attrCol[sz(o)] = rank[sz(m_p.col[sz(e)])];
            m_attrVal[sz(o)] = static_cast<float>(m_p.val[sz(e)]);
        }
    }
}

int FastTsne::threads() const { return resolveThreads(m_opt.threads); }

void FastTsne::resetOptimizer(bool warm)
{
    m_warm = warm;
    m_iter = 0;
    m_update.assign(sz(2 * m_n), 0.0);
    m_gains.assign(sz(2 * m_n), 1.0);
}

void FastTsne::syncEmbedding()
{
    for (std::size_t k = 0; k < m_pos.size(); ++k)
        m_y[k] = static_cast<float>(m_pos[k]);
}

void FastTsne::initialize(const float* y0)
{
    initializeCold(y0 ? y0 : m_pcaInit.data());
    m_warm = y0 != nullptr;
}

void FastTsne::initializeCold(const float* y0)
{
    if (!y0)
        y0 = m_pcaInit.data();
    for (std::size_t k = 0; k < m_pos.size(); ++k)
        m_pos[k] = static_cast<double>(y0[k]);
    if (m_n == 1)
        m_pos.assign(2, 0.0);
    syncEmbedding();
    resetOptimizer(false);
}

void FastTsne::setMaxIterations(int iterations)
{
    if (iterations < 0)
        throw std::invalid_argument("t-SNE: maxIterations must not be negative");
    m_opt.maxIterations = iterations;
}

int FastTsne::step(int iterations, job::JobControl* control)
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

void FastTsne::computeForces(std::vector<double>& attr, std::vector<double>& rep, double& z, bool exact,
                             int team) const
{
    const std::int64_t n = m_n;
    attr.assign(sz(2 * n), 0.0);
    rep.assign(sz(2 * n), 0.0);
    // The attraction reads positions and P in float (half the bytes of the O(nnz) pass), both
    // in the breadth-first order of m_order.
    std::vector<float> pf(sz(2 * n));
    for (std::int64_t r = 0; r < n; ++r) {
        pf[sz(2 * r)] = static_cast<float>(m_pos[sz(2 * m_order[sz(r)])]);
        pf[sz(2 * r + 1)] = static_cast<float>(m_pos[sz(2 * m_order[sz(r)] + 1)]);
    }
    const std::int64_t blocks = (n + kAttractionBlock - 1) / kAttractionBlock;
#pragma omp parallel for schedule(dynamic, 1) num_threads(team) if (n >= kParallelMin && team > 1)
    for (std::int64_t b = 0; b < blocks; ++b)
        attractionRows(m_attrRowStart.data(), m_attrCol.data(), m_attrVal.data(), pf.data(), m_order.data(),
                       b * kAttractionBlock, std::min(n, (b + 1) * kAttractionBlock), attr.data());
    if (exact || !m_fft)
        z = exactRepulsion(m_pos, n, team, rep);
    else {
        z = fftRepulsion(m_pos, n, m_opt, team, *m_workspace, rep);
        // Z is a sum of positive terms; an interpolated Z that is not clearly positive (a
        // handful of points in boxes much wider than the kernel) is useless: sum exactly.
        if (!(z > 1e-3 * static_cast<double>(n)))
            z = exactRepulsion(m_pos, n, team, rep);
    }
}

void FastTsne::iterate()
{
    const std::int64_t n = m_n;
    if (n < 2) {
        ++m_iter;
        return;
    }
    const bool exaggerate = !m_warm && m_iter < m_opt.exaggerationIterations;
    const double exaggeration = exaggerate ? m_opt.earlyExaggeration : 1.0;
    const double momentum = (m_warm || m_iter >= kMomentumSwitchIteration) ? kFinalMomentum : kInitialMomentum;
    // The team: every kTeamCheckEvery iterations one iteration is timed with one thread and
    // the next with the full team, and the faster is used until the next check. On a machine
    // whose cores are busy with other work (a training job, builds) waking a team for the
    // ~10 parallel loops of an iteration can cost more than it saves. The map does not
    // depend on the team.
    const int full = threads();
    const int phase = m_iter % kTeamCheckEvery;
    int team = m_team > 0 ? m_team : full;
    if (full > 1 && phase < 2)
        team = phase == 0 ? 1 : full;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<double> attr, rep;
    double z = 0.0;
    computeForces(attr, rep, z, false, team);
    const double invZ = 1.0 / std::max(z, std::numeric_limits<double>::min());
    const double lr = m_learningRate;
    // The gradient without its factor 4, as bhtsne / FIt-SNE / openTSNE step it.
#pragma omp parallel for schedule(static) num_threads(team) if (n >= kParallelMin && team > 1)
    for (std::int64_t k = 0; k < 2 * n; ++k) {
        const double g = exaggeration * attr[sz(k)] - rep[sz(k)] * invZ;
        double& gain = m_gains[sz(k)];
        double& upd = m_update[sz(k)];
        gain = sign(g) != sign(upd) ? gain + 0.2 : gain * 0.8;
        gain = std::max(gain, kMinGain);
        upd = momentum * upd - lr * gain * g;
        m_pos[sz(k)] += upd;
    }
    double cx = 0.0, cy = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
        cx += m_pos[sz(2 * i)];
        cy += m_pos[sz(2 * i + 1)];
    }
    cx /= static_cast<double>(n);
    cy /= static_cast<double>(n);
    for (std::int64_t i = 0; i < n; ++i) {
        m_pos[sz(2 * i)] -= cx;
        m_pos[sz(2 * i + 1)] -= cy;
    }
    syncEmbedding();
    if (full > 1 && phase < 2) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (phase == 0)
            m_singleThreadSeconds = seconds;
        else
            m_team = m_singleThreadSeconds < seconds ? 1 : full;
    }
    ++m_iter;
}

std::vector<double> FastTsne::gradient(bool exact) const
{
    return gradientTerms(exact, true);
}

std::vector<double> FastTsne::repulsiveGradient(bool exact) const
{
    return gradientTerms(exact, false);
}

std::vector<double> FastTsne::gradientTerms(bool exact, bool withAttraction) const
{
    std::vector<double> g(sz(2 * m_n), 0.0);
    if (m_n < 2)
        return g;
    std::vector<double> attr, rep;
    double z = 0.0;
    computeForces(attr, rep, z, exact, threads());
    for (std::size_t k = 0; k < g.size(); ++k)
        g[k] = withAttraction ? 4.0 * (attr[k] - rep[k] / z) : -4.0 * rep[k] / z;
    return g;
}

double FastTsne::klDivergence() const
{
    const std::int64_t n = m_n;
    if (n < 2)
        return 0.0;
    std::vector<double> rep(sz(2 * n));
    const double z = exactRepulsion(m_pos, n, threads(), rep);
    // KL = sum p log p - sum p log num + log Z (P sums to 1).
    double kl = 0.0, psum = 0.0;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t e = m_p.rowStart[sz(i)]; e < m_p.rowStart[sz(i + 1)]; ++e) {
            const std::int64_t j = m_p.col[sz(e)];
            const double dx = m_pos[sz(2 * i)] - m_pos[sz(2 * j)];
            const double dy = m_pos[sz(2 * i + 1)] - m_pos[sz(2 * j + 1)];
            const double pij = m_p.val[sz(e)];
            if (pij > 0.0)
                kl += pij * (std::log(pij) + std::log(1.0 + dx * dx + dy * dy));
            psum += pij;
        }
    return kl + std::log(z) * psum;
}

} // namespace setscope::layout
