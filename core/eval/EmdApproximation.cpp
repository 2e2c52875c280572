// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/eval/EmdApproximation.h"

#include "core/job/Job.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <numbers>
#include <random>
#include <stdexcept>
#include <thread>

namespace setscope::eval {

namespace {

int resolveThreads(int threads)
{
    if (threads < 0)
        throw std::invalid_argument("threads must be 0 (all cores) or positive, got " + std::to_string(threads));
    return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

/// Runs fn(i) for i in [0, n) on `threads` threads (the caller's among them), each taking
/// the next index. The first exception (a cancel included) stops the others before their
/// next index and is rethrown here once all have stopped.
template <class Fn>
void parallelFor(std::int64_t n, int threads, job::JobControl* control, Fn fn)
{
    std::atomic<std::int64_t> next{0};
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    std::mutex errorMutex;
    auto work = [&] {
        try {
            for (;;) {
                if (stop.load(std::memory_order_relaxed))
                    return;
                if (control)
                    control->checkpoint();
                const std::int64_t i = next.fetch_add(1);
                if (i >= n)
                    return;
                fn(i);
            }
        } catch (...) {
            const std::lock_guard lock(errorMutex);
            if (!error)
                error = std::current_exception();
            stop = true;
        }
    };
    const int extra = static_cast<int>(std::min<std::int64_t>(threads, std::max<std::int64_t>(n, 1))) - 1;
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(extra));
    for (int t = 0; t < extra; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

void checkRows(MatrixView m, const std::vector<std::int64_t>& rows, const char* what)
{
    for (std::int64_t r : rows)
        if (r < 0 || r >= m.rows)
            throw std::invalid_argument(std::string(what) + ": row " + std::to_string(r) +
                                        " is outside the embedding (0.." + std::to_string(m.rows - 1) + ")");
}

} // namespace

const char* embeddingDistanceName(EmbeddingDistance d)
{
    return d == EmbeddingDistance::SquaredEuclidean ? "squared-euclidean" : "euclidean";
}

EmbeddingDistance parseEmbeddingDistance(const std::string& name)
{
    if (name == "squared-euclidean")
        return EmbeddingDistance::SquaredEuclidean;
    if (name == "euclidean")
        return EmbeddingDistance::Euclidean;
    throw std::invalid_argument("unknown embedding distance '" + name + "' (squared-euclidean | euclidean)");
}

double embeddingDistance(MatrixView m, std::int64_t i, std::int64_t j, EmbeddingDistance d)
{
    const float* a = m.row(i);
    const float* b = m.row(j);
    double s = 0.0;
    for (int c = 0; c < m.cols; ++c) {
        const double t = static_cast<double>(a[c]) - static_cast<double>(b[c]);
        s += t * t;
    }
    return d == EmbeddingDistance::SquaredEuclidean ? s : std::sqrt(s);
}

double gaussianKernel(double x, double sigma)
{
    return std::exp(-x * x / (2.0 * sigma * sigma)) / std::sqrt(2.0 * std::numbers::pi * sigma * sigma);
}

EmdMseResult emdApproximationMse(MatrixView embedding, const std::vector<std::int64_t>& items, const PairDistance& emd,
                                 const EmdMseOptions& options, job::JobControl* control)
{
    checkRows(embedding, items, "EMD MSE");
    if (!emd)
        throw std::invalid_argument("EMD MSE: no exact-EMD function given");
    if (options.maxPairs < 0)
        throw std::invalid_argument("EMD MSE: max pairs must be 0 (all) or positive");
    EmdMseResult out;
    const std::int64_t n = static_cast<std::int64_t>(items.size());
    if (n < 2)
        return out;
    const std::int64_t all = n * (n - 1) / 2;
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs; // positions in `items`
    if (options.maxPairs == 0 || all <= options.maxPairs) {
        pairs.reserve(static_cast<std::size_t>(all));
        for (std::int64_t a = 0; a < n; ++a)
            for (std::int64_t b = a + 1; b < n; ++b)
                pairs.emplace_back(a, b);
    } else {
        out.sampled = true;
        std::mt19937_64 rng(options.seed);
        std::uniform_int_distribution<std::int64_t> pick(0, n - 1);
        pairs.reserve(static_cast<std::size_t>(options.maxPairs));
        while (static_cast<std::int64_t>(pairs.size()) < options.maxPairs) {
            const std::int64_t a = pick(rng), b = pick(rng);
            if (a != b)
                pairs.emplace_back(std::min(a, b), std::max(a, b));
        }
    }
    std::vector<double> sq(pairs.size()), e(pairs.size());
    parallelFor(static_cast<std::int64_t>(pairs.size()), resolveThreads(options.threads), control, [&](std::int64_t p) {
        const std::int64_t i = items[static_cast<std::size_t>(pairs[static_cast<std::size_t>(p)].first)];
        const std::int64_t j = items[static_cast<std::size_t>(pairs[static_cast<std::size_t>(p)].second)];
        const double exact = emd(i, j);
        const double diff = exact - embeddingDistance(embedding, i, j, options.distance);
        e[static_cast<std::size_t>(p)] = exact;
        sq[static_cast<std::size_t>(p)] = diff * diff;
    });
    // Summed in pair order, so the result does not depend on the thread count.
    double s = 0.0, se = 0.0;
    for (std::size_t p = 0; p < pairs.size(); ++p) {
        s += sq[p];
        se += e[p];
    }
    out.pairs = static_cast<std::int64_t>(pairs.size());
    out.mse = s / static_cast<double>(out.pairs);
    out.meanEmd = se / static_cast<double>(out.pairs);
    return out;
}

KdeResult kdeDiscrepancy(MatrixView embedding, const std::vector<std::int64_t>& queries,
                         const std::vector<std::int64_t>& references, const PairDistance& emd,
                         const KdeOptions& options, job::JobControl* control)
{
    checkRows(embedding, queries, "density discrepancy (queries)");
    checkRows(embedding, references, "density discrepancy (references)");
    if (!emd)
        throw std::invalid_argument("density discrepancy: no exact-EMD function given");
    if (options.k < 1)
        throw std::invalid_argument("density discrepancy: k must be at least 1 (got " + std::to_string(options.k) + ")");
    if (!(options.sigma > 0.0) || !std::isfinite(options.sigma))
        throw std::invalid_argument("density discrepancy: sigma must be a positive number");

    KdeResult out;
    const std::size_t nq = queries.size();
    out.truth.assign(nq, std::numeric_limits<double>::quiet_NaN());
    out.estimate.assign(nq, std::numeric_limits<double>::quiet_NaN());
    parallelFor(static_cast<std::int64_t>(nq), resolveThreads(options.threads), control, [&](std::int64_t qi) {
        const std::int64_t q = queries[static_cast<std::size_t>(qi)];
        struct Cand {
            double exact, embedded;
            std::int64_t row;
        };
        std::vector<Cand> cands;
        cands.reserve(references.size());
        for (std::int64_t r : references)
            if (r != q)
                cands.push_back({0.0, embeddingDistance(embedding, q, r, options.distance), r});
        if (cands.empty())
            return;
        for (Cand& c : cands) {
            if (control)
                control->checkpoint();
            c.exact = emd(q, c.row);
        }
        const std::size_t k = std::min(cands.size(), static_cast<std::size_t>(options.k));
        auto byExact = [](const Cand& a, const Cand& b) { return a.exact != b.exact ? a.exact < b.exact : a.row < b.row; };
        auto byEmbedded = [](const Cand& a, const Cand& b) {
            return a.embedded != b.embedded ? a.embedded < b.embedded : a.row < b.row;
        };
        std::partial_sort(cands.begin(), cands.begin() + static_cast<std::ptrdiff_t>(k), cands.end(), byExact);
        double truth = 0.0, est = 0.0;
        for (std::size_t j = 0; j < k; ++j)
            truth += gaussianKernel(cands[j].exact, options.sigma);
        if (options.neighbours == KdeNeighbours::Embedding)
            std::partial_sort(cands.begin(), cands.begin() + static_cast<std::ptrdiff_t>(k), cands.end(), byEmbedded);
        for (std::size_t j = 0; j < k; ++j)
            est += gaussianKernel(cands[j].embedded, options.sigma);
        out.truth[static_cast<std::size_t>(qi)] = truth / static_cast<double>(k);
        out.estimate[static_cast<std::size_t>(qi)] = est / static_cast<double>(k);
    });
    double sum = 0.0;
    for (std::size_t qi = 0; qi < nq; ++qi) {
        if (std::isnan(out.truth[qi]))
            continue;
        if (out.truth[qi] <= 0.0) {
            ++out.skipped;
            continue;
        }
        sum += std::abs(out.estimate[qi] - out.truth[qi]) / out.truth[qi];
        ++out.queries;
    }
    out.discrepancy = out.queries ? sum / static_cast<double>(out.queries) : 0.0;
    return out;
}

} // namespace setscope::eval
