// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/BatchTransport.h"

#include "core/data/Dataset.h"
#include "core/job/Job.h"
#include "core/ot/PairwiseMatrix.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace setscope::train {

namespace {

using Clock = std::chrono::steady_clock;

/// Adds the time since `start` to `seconds` when it goes out of scope (also on a throw).
struct ElapsedInto {
    std::atomic<double>& seconds;
    Clock::time_point start = Clock::now();
    ~ElapsedInto()
    {
        const double s = std::chrono::duration<double>(Clock::now() - start).count();
        seconds.store(seconds.load(std::memory_order_relaxed) + s, std::memory_order_relaxed);
    }
};

} // namespace

CachedEmd cachedEmdFrom(std::shared_ptr<const ot::DistanceMatrix> matrix)
{
    if (!matrix)
        return {};
    return [m = std::move(matrix)](std::int64_t a, std::int64_t b) -> std::optional<double> {
        if (a < 0 || b < 0 || a >= m->size() || b >= m->size())
            return std::nullopt;
        return static_cast<double>(m->at(a, b));
    };
}

ExactBatchTransport::ExactBatchTransport(std::vector<sdk::SetRef> sets, BatchTransportOptions options,
                                         std::vector<std::int64_t> items)
    : m_sets(std::move(sets))
    , m_items(std::move(items))
    , m_options(std::move(options))
{
    if (!m_items.empty() && m_items.size() != m_sets.size())
        throw std::invalid_argument("ExactBatchTransport: " + std::to_string(m_items.size()) + " item indices for " +
                                    std::to_string(m_sets.size()) + " sets");
}

ExactBatchTransport::ExactBatchTransport(const data::Dataset& dataset, std::vector<std::int64_t> items,
                                         BatchTransportOptions options)
    : m_items(std::move(items))
    , m_options(std::move(options))
{
    m_sets.reserve(m_items.size());
    for (std::size_t k = 0; k < m_items.size(); ++k) {
        const std::int64_t item = m_items[k];
        if (item < 0 || static_cast<std::size_t>(item) >= dataset.size())
            throw std::out_of_range("batch set " + std::to_string(k) + ": item " + std::to_string(item) +
                                    " is not in the dataset of " + std::to_string(dataset.size()) + " items");
        const ot::PointSet s = ot::pointSet(dataset, static_cast<std::size_t>(item));
        m_sets.push_back({s.points, s.weights, s.n, s.d});
    }
}

ExactBatchTransport::~ExactBatchTransport() = default;

std::string ExactBatchTransport::describe(std::int64_t position) const
{
    std::string s = "batch set " + std::to_string(position);
    if (!m_items.empty() && position >= 0 && position < size())
        s += " (item " + std::to_string(m_items[static_cast<std::size_t>(position)]) + ")";
    return s;
}

void ExactBatchTransport::checkIndex(std::int64_t a, const char* what) const
{
    if (a < 0 || a >= size())
        throw std::out_of_range(std::string("ExactBatchTransport::") + what + ": set " + std::to_string(a) +
                                " is not in the batch of " + std::to_string(size()));
}

ot::PointSet ExactBatchTransport::pointSet(std::int64_t position) const
{
    const sdk::SetRef& s = m_sets[static_cast<std::size_t>(position)];
    return {s.values, s.weights, s.count, s.dim};
}

void ExactBatchTransport::validateSets()
{
    if (m_validated)
        return;
    for (std::int64_t k = 0; k < size(); ++k) {
        ot::validate(pointSet(k), describe(k));
        if (m_sets[static_cast<std::size_t>(k)].dim != m_sets[0].dim)
            throw ot::OtError(describe(k) + " has dimension " + std::to_string(m_sets[static_cast<std::size_t>(k)].dim) +
                              " but " + describe(0) + " has " + std::to_string(m_sets[0].dim));
    }
    m_validated = true;
}

void ExactBatchTransport::computeMatrix()
{
    if (!m_matrix.empty() || m_sets.empty())
        return;
    const ElapsedInto timer{m_seconds};
    if (m_options.control)
        m_options.control->checkpoint();
    validateSets();

    const std::int64_t n = size();
    std::vector<double> m(static_cast<std::size_t>(n * n), 0.0);
    std::vector<std::pair<std::int64_t, std::int64_t>> pending;
    std::int64_t fromCache = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j) {
            if (!m_items.empty()) {
                const std::int64_t a = m_items[static_cast<std::size_t>(i)];
                const std::int64_t b = m_items[static_cast<std::size_t>(j)];
                if (a == b)
                    continue; // the same item twice: EMD 0
                if (m_options.cached) {
                    if (const std::optional<double> c = m_options.cached(a, b)) {
                        if (!std::isfinite(*c) || *c < 0.0)
                            throw ot::OtError("the cached EMD between " + describe(i) + " and " + describe(j) + " is " +
                                              std::to_string(*c) + ", not a finite distance");
                        m[static_cast<std::size_t>(i * n + j)] = *c;
                        ++fromCache;
                        continue;
                    }
                }
            }
            pending.emplace_back(i, j);
        }

    // Pairs go out one at a time, in order, from an atomic counter: pair costs differ by
    // orders of magnitude (set sizes), so fixed slices would leave a thread idle.
    const auto hw = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    const auto threads = static_cast<int>(std::clamp<std::int64_t>(m_options.threads > 0 ? m_options.threads : hw, 1,
                                                                   std::max<std::int64_t>(1, std::ssize(pending))));
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    std::exception_ptr error;
    std::size_t errorPair = std::numeric_limits<std::size_t>::max();
    bool cancelled = false;
    job::JobControl* control = m_options.control;

    const auto work = [&] {
        ot::EmdSolver solver;
        ot::EmdOptions eo;
        eo.control = control;
        // A taken pair is always finished (or fails): pairs are taken in order, so every pair
        // before a failed one is decided, and the error of the first failed pair is the one a
        // single thread would meet, whatever the thread count.
        while (!stop.load(std::memory_order_relaxed)) {
            const std::size_t q = next.fetch_add(1, std::memory_order_relaxed);
            if (q >= pending.size())
                return;
            const auto [i, j] = pending[q];
            try {
                if (control)
                    control->checkpoint();
                const double d = solver.solve(pointSet(i), pointSet(j), eo).emd;
                if (!std::isfinite(d))
                    throw ot::OtError("the EMD is " + std::to_string(d));
                m[static_cast<std::size_t>(i * n + j)] = d;
                m_solved.fetch_add(1, std::memory_order_relaxed);
            } catch (const job::Cancelled&) {
                std::lock_guard lock(errorMutex);
                cancelled = true;
                stop = true;
                return;
            } catch (const ot::OtError& e) {
                std::lock_guard lock(errorMutex);
                if (q < errorPair) {
                    errorPair = q;
                    error = std::make_exception_ptr(
                        ot::OtError("EMD between " + describe(i) + " and " + describe(j) + ": " + e.what()));
                }
                stop = true;
            } catch (...) {
                std::lock_guard lock(errorMutex);
                if (q < errorPair) {
                    errorPair = q;
                    error = std::current_exception();
                }
                stop = true;
            }
        }
    };
    {
        std::vector<std::jthread> pool;
        // Stops the workers before the pool joins them if this thread leaves by an exception.
        struct StopOnExit {
            std::atomic<bool>& stop;
            ~StopOnExit() { stop = true; }
        };
        const StopOnExit guard{stop};
        for (int t = 1; t < threads; ++t)
            pool.emplace_back(work);
        work(); // the calling thread is one of the workers
    }
    if (error)
        std::rethrow_exception(error);
    if (cancelled)
        throw job::Cancelled();

    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j)
            m[static_cast<std::size_t>(j * n + i)] = m[static_cast<std::size_t>(i * n + j)];
    m_cached.fetch_add(fromCache, std::memory_order_relaxed);
    m_matrix = std::move(m);
}

const std::vector<double>& ExactBatchTransport::matrix()
{
    computeMatrix();
    return m_matrix;
}

double ExactBatchTransport::emd(std::int64_t a, std::int64_t b)
{
    checkIndex(a, "emd");
    checkIndex(b, "emd");
    if (a == b)
        return 0.0;
    computeMatrix();
    return m_matrix[static_cast<std::size_t>(a * size() + b)];
}

std::int64_t ExactBatchTransport::nearest(std::int64_t a)
{
    checkIndex(a, "nearest");
    if (size() < 2)
        throw ot::OtError("EMD-nearest set of " + describe(a) + ": the batch has no other set");
    computeMatrix();
    const double* row = m_matrix.data() + a * size();
    std::int64_t best = -1;
    for (std::int64_t b = 0; b < size(); ++b)
        if (b != a && (best < 0 || row[b] < row[best]))
            best = b;
    return best;
}

const std::vector<sdk::TransportArc>& ExactBatchTransport::flows(std::int64_t a, std::int64_t b)
{
    checkIndex(a, "flows");
    checkIndex(b, "flows");
    const auto key = std::make_pair(a, b);
    if (const auto it = m_flows.find(key); it != m_flows.end())
        return it->second;
    const ElapsedInto timer{m_seconds};
    if (m_options.control)
        m_options.control->checkpoint();
    validateSets();
    ot::EmdOptions eo;
    eo.flows = true;
    eo.control = m_options.control;
    ot::EmdResult r;
    try {
        r = m_flowSolver.solve(pointSet(a), pointSet(b), eo);
    } catch (const ot::OtError& e) {
        throw ot::OtError("optimal flow from " + describe(a) + " to " + describe(b) + ": " + e.what());
    }
    if (!std::isfinite(r.emd))
        throw ot::OtError("optimal flow from " + describe(a) + " to " + describe(b) + ": the EMD is " +
                          std::to_string(r.emd));
    std::vector<sdk::TransportArc> arcs;
    arcs.reserve(r.flows.size());
    for (const ot::Flow& f : r.flows)
        arcs.push_back({f.i, f.j, f.amount});
    m_solved.fetch_add(1, std::memory_order_relaxed);
    m_flowSolves.fetch_add(1, std::memory_order_relaxed);
    return m_flows.emplace(key, std::move(arcs)).first->second;
}

} // namespace setscope::train
