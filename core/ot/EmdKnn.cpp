// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/ot/EmdKnn.h"

#include "core/ot/Chamfer.h"

#include "core/data/Dataset.h"
#include "core/ot/Bounds.h"
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"
#include "core/job/Job.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace setscope::ot {

namespace {

// A bound prunes only when it exceeds the k-th distance by more than rounding can explain.
// Cost-matrix entries come from ||x||² + ||y||² - 2 x·y and carry an absolute error that
// grows with the magnitude of the points (CostMatrix.h), centroids are float sums in
// double: 1e-9 of (k-th distance + largest point norm) covers both with room to spare for
// dimensions in the thousands, and is far below any gap pruning can use. Without a margin a
// tight bound (WCD = EMD for one-element sets) rounded up by one ulp would prune a
// candidate that ties the k-th best and has the smaller index.
constexpr double kMargin = 1e-9;

// How far past the last committed candidate of a query (in its serial order) threads may
// evaluate, per worker thread. Only threads without a query of their own run ahead, so
// this bounds the work a falling k-th best can make useless, not the work of a query's own
// thread (which always evaluates the next candidate to commit).
constexpr std::size_t kLookaheadPerThread = 4;

// The serial search's threshold kth + kMargin (kth + scale) is nondecreasing in kth (IEEE
// rounding is monotone), so a decision "exceeds the k-th best" taken against a k-th best
// that later falls stays true. The parallel search relies on this.
bool exceeds(double bound, double kth, double scale)
{
    return bound > kth + kMargin * (kth + scale);
}

bool before(const EmdNeighbour& x, const EmdNeighbour& y)
{
    return x.emd != y.emd ? x.emd < y.emd : x.item < y.item;
}

std::string itemName(std::int64_t i)
{
    return "item " + std::to_string(i);
}

// Checks k, the queries and the candidates, in that order (for one query: the messages the
// serial search always gave), and returns the candidates ascending and distinct.
std::vector<std::int64_t> checkArguments(const data::Dataset& ds, const std::vector<std::int64_t>& queries,
                                         const std::vector<std::int64_t>& candidates, int k)
{
    if (k < 1)
        throw OtError("k must be at least 1 (got " + std::to_string(k) + ")");
    const auto n = static_cast<std::int64_t>(ds.size());
    for (const std::int64_t q : queries)
        if (q < 0 || q >= n)
            throw OtError("query " + itemName(q) + " is out of range (the dataset has " + std::to_string(n) +
                          " items)");
    std::vector<std::int64_t> out;
    out.reserve(candidates.size());
    for (const std::int64_t c : candidates) {
        if (c < 0 || c >= n)
            throw OtError("candidate " + itemName(c) + " is out of range (the dataset has " + std::to_string(n) +
                          " items)");
        out.push_back(c);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Zero-weight elements take no part in a transport (seed 001 Eq. 1: f_ij ≤ w = 0), nor in
// the bounds. They are removed before the cost matrix instead of being left to the solver:
// fewer entries to compute. Returns `s` itself when it has no zero weight.
PointSet withoutZeroWeights(const PointSet& s, std::vector<float>& points, std::vector<float>& weights)
{
    if (std::all_of(s.weights, s.weights + s.n, [](float w) { return w > 0.0f; }))
        return s;
    points.clear();
    weights.clear();
    for (std::int64_t i = 0; i < s.n; ++i)
        if (s.weights[i] > 0.0f) {
            points.insert(points.end(), s.points + i * s.d, s.points + (i + 1) * s.d);
            weights.push_back(s.weights[i]);
        }
    return {points.data(), weights.data(), static_cast<std::int64_t>(weights.size()), s.d};
}

// The query side of every pair of one query; read-only once built, shared by the threads
// that work on the query.
struct QuerySide {
    explicit QuerySide(const PointSet& q)
        : set(withoutZeroWeights(q, points, weightsF))
        , weights(set.weights, set.weights + set.n)
    {
    }
    QuerySide(const QuerySide&) = delete; // `set` may point into `points`
    QuerySide& operator=(const QuerySide&) = delete;

    // Declared before `set`, which the constructor builds from them.
    std::vector<float> points, weightsF;
    PointSet set;
    std::vector<double> weights;
};

// One thread's solver and the buffers it reuses for every pair. Brute force and the pruned
// search both go through prepare() then solve(), whatever the thread, so their distances
// are bit-identical.
class PairSolver {
public:
    /// `options.control` (may be null) is polled inside every solve, so a cancel does not
    /// wait for a long exact EMD to finish.
    PairSolver(const EmdOptions& options, SetDistance distance)
        : m_options(options)
        , m_distance(distance)
    {
    }

    /// Takes candidate `c` (valid until the next call) and builds the query x candidate
    /// cost matrix into the reused buffer.
    void prepare(const QuerySide& q, const PointSet& c)
    {
        m_candidate = withoutZeroWeights(c, m_points, m_weightsF);
        costMatrix(q.set, m_candidate, GroundDistance::Euclidean, m_cost);
    }

    /// RWMD of the prepared pair.
    double rwmd(const QuerySide& q) const
    {
        return relaxedEmd(m_cost.data(), q.set.weights, q.set.n, m_candidate.weights, m_candidate.n);
    }

    /// Exact EMD (or the Chamfer distance) of the prepared pair.
    double solve(const QuerySide& q)
    {
        if (m_distance == SetDistance::Chamfer)
            return chamferFromCost(m_cost.data(), q.set.weights, q.set.n, m_candidate.weights, m_candidate.n, true);
        m_weights.assign(m_candidate.weights, m_candidate.weights + m_candidate.n);
        return m_solver.solveCost(m_cost.data(), q.weights.data(), q.set.n, m_weights.data(), m_candidate.n, m_options)
            .emd;
    }

private:
    EmdOptions m_options;
    SetDistance m_distance;
    std::vector<float> m_points, m_weightsF;
    PointSet m_candidate;
    std::vector<double> m_weights;
    std::vector<double> m_cost;
    EmdSolver m_solver;
};

// The k best (emd, item) pairs seen so far; a max-heap whose front is the current k-th.
class TopK {
public:
    TopK(int k, std::size_t candidates)
        : m_k(static_cast<std::size_t>(k))
    {
        m_heap.reserve(std::min(m_k, candidates));
    }

    bool full() const { return m_heap.size() == m_k; }
    double kth() const { return m_heap.front().emd; }

    void offer(const EmdNeighbour& n)
    {
        if (!full()) {
            m_heap.push_back(n);
            std::push_heap(m_heap.begin(), m_heap.end(), before);
        } else if (before(n, m_heap.front())) {
            std::pop_heap(m_heap.begin(), m_heap.end(), before);
            m_heap.back() = n;
            std::push_heap(m_heap.begin(), m_heap.end(), before);
        }
    }

    std::vector<EmdNeighbour> take()
    {
        std::sort_heap(m_heap.begin(), m_heap.end(), before);
        return std::move(m_heap);
    }

private:
    std::size_t m_k;
    std::vector<EmdNeighbour> m_heap;
};

// Called inside a catch handler: the exception in flight, with an OtError prefixed by the
// pair it came from.
std::exception_ptr namedError(std::int64_t query, std::int64_t item)
{
    try {
        throw;
    } catch (const OtError& e) {
        return std::make_exception_ptr(
            OtError("query " + itemName(query) + ", candidate " + itemName(item) + ": " + e.what()));
    } catch (...) {
        return std::current_exception();
    }
}

// What every query shares: the candidates (ascending, distinct, validated) and, for the
// pruned search, their centroid summaries (a candidate's summary does not depend on the
// query, so it is computed once, not once per query).
struct SharedCandidates {
    std::vector<std::int64_t> items;
    std::vector<CentroidSummary> summaries; ///< parallel to items (pruned only)
    double maxScale = 0.0;                  ///< max of summaries[].scale
};

/// The search over all queries: worker threads, the calling thread reports.
///
/// Each query has a serial order (pruned: ascending centroid bound, ties by index; brute
/// force: ascending index) and a commit cursor. Evaluating a candidate (bound check, cost
/// matrix, RWMD, exact solve) happens on any thread against a snapshot of the query's
/// committed k-th best; the results are committed strictly in the serial order, under the
/// lock, with the serial decisions. Because the committed k-th best only falls and
/// exceeds() is monotone in it, a candidate that a snapshot already prunes is pruned by the
/// serial search too; a candidate solved against a stale snapshot that the serial search
/// skips is counted as a speculative solve and otherwise ignored.
class Search {
public:
    Search(const data::Dataset& ds, const std::vector<std::int64_t>& queries, int k, const EmdKnnOptions& options,
           const SharedCandidates& shared, int threads)
        : m_ds(ds)
        , m_queries(queries)
        , m_k(k)
        , m_options(options)
        , m_pruned(options.method == EmdKnnMethod::Pruned)
        , m_shared(shared)
        , m_threads(threads)
        , m_lookahead(kLookaheadPerThread * static_cast<std::size_t>(threads))
        , m_results(queries.size())
    {
        m_total.queries = static_cast<std::int64_t>(queries.size());
        for (const std::int64_t q : queries)
            m_total.candidates += static_cast<std::int64_t>(shared.items.size()) -
                (std::binary_search(shared.items.begin(), shared.items.end(), q) ? 1 : 0);
    }

    std::vector<EmdKnnResult> run();

private:
    enum class SlotState : std::uint8_t {
        Pending,       // not evaluated yet (or in evaluation)
        Beyond,        // centroid bound above the snapshot's k-th best: the search stops here or before
        Skipped,       // RWMD above the snapshot's k-th best
        Solved,        // exact EMD computed
        FailedPrepare, // the cost matrix or the RWMD threw
        FailedSolve,   // the exact solve threw (the RWMD is known)
    };
    static bool ranSolve(SlotState s) { return s == SlotState::Solved || s == SlotState::FailedSolve; }
    struct Slot {
        SlotState state = SlotState::Pending;
        double rwmd = 0.0;
        double emd = 0.0;
        std::exception_ptr error;
    };
    struct Entry {
        double bound;
        std::int64_t item;
    };
    struct Run {
        Run(std::size_t i, std::int64_t q, const PointSet& s, int k, std::size_t n)
            : index(i)
            , query(q)
            , side(s)
            , top(k, n)
        {
        }
        std::size_t index; // into m_queries
        std::int64_t query;
        QuerySide side;
        double scale = 0.0;
        std::vector<Entry> order; // the serial order
        std::vector<Slot> slots;  // parallel to order
        std::size_t next = 0;     // next position to hand out
        std::size_t commit = 0;   // next position to commit
        std::size_t limit = 0;    // positions >= limit need no evaluation (a Beyond slot)
        TopK top;
        std::vector<EmdNeighbour> all; // brute force
        bool finished = false;
        int busy = 0; // positions in evaluation (the run stays alive while > 0)
    };

    void work();
    void poll() const
    {
        if (m_options.control)
            m_options.control->checkpoint();
    }
    std::unique_ptr<Run> build(std::size_t index) const;
    Slot evaluate(const Run& r, std::size_t pos, bool full, double kth, PairSolver& solver) const;

    // All below: with m_mutex held.
    bool moreQueries() const { return m_nextQuery < m_queries.size() && m_nextQuery < m_failedQuery; }
    bool abandoned(const Run& r) const { return r.index > m_failedQuery; }
    bool available(const Run& r) const;
    Run* find(std::size_t index) const;
    Run* helpTarget() const;
    void record(Run& r, std::size_t pos, Slot slot);
    void advance(Run& r);
    void finish(Run& r);
    void fail(std::size_t index, std::exception_ptr error);
    void tidy();
    void report();

    const data::Dataset& m_ds;
    const std::vector<std::int64_t>& m_queries;
    const int m_k;
    const EmdKnnOptions& m_options;
    const bool m_pruned;
    const SharedCandidates& m_shared;
    const int m_threads;
    const std::size_t m_lookahead;

    std::mutex m_mutex;
    std::condition_variable m_cv;        // workers: a commit, a new run, a failure, the stop
    std::condition_variable m_exitedCv;  // the calling thread: a worker has exited
    std::vector<std::unique_ptr<Run>> m_runs; // queries in progress, in activation order
    std::size_t m_nextQuery = 0;
    int m_building = 0; // threads building a run outside the lock
    int m_running = 0;  // workers that have not exited
    bool m_stop = false;
    bool m_cancelled = false;
    std::size_t m_failedQuery = std::numeric_limits<std::size_t>::max();
    std::exception_ptr m_error; // the failure of query m_failedQuery
    std::exception_ptr m_fatal; // anything else (a worker's unexpected exception, the progress callback)
    std::vector<EmdKnnResult> m_results;
    EmdKnnProgress m_total;
    EmdKnnProgress m_reported{-1, 0, -1, 0};
    bool m_reporting = true;
};

std::unique_ptr<Search::Run> Search::build(std::size_t index) const
{
    const std::int64_t q = m_queries[index];
    const PointSet qs = pointSet(m_ds, static_cast<std::size_t>(q));
    const std::vector<std::int64_t>& items = m_shared.items;
    auto run = std::make_unique<Run>(index, q, qs, m_k, items.size());
    run->order.reserve(items.size());
    if (m_pruned) {
        // Prefetch: the candidates in ascending order of their centroid bound (ties by
        // index, so the order is deterministic). `scale` is the largest point norm over the
        // query and every candidate (the query's own summary equals its candidate summary
        // when it is one), so the stopping threshold does not depend on which candidate is
        // at hand and stopping stays valid for all the later (larger-bound) candidates.
        const CentroidSummary summary = summarize(qs);
        run->scale = std::max(summary.scale, m_shared.maxScale);
        for (std::size_t t = 0; t < items.size(); ++t) {
            if (t % 256 == 255)
                poll();
            if (items[t] != q)
                run->order.push_back({centroidBound(summary, m_shared.summaries[t], GroundDistance::Euclidean), items[t]});
        }
        std::sort(run->order.begin(), run->order.end(), [](const Entry& x, const Entry& y) {
            return x.bound != y.bound ? x.bound < y.bound : x.item < y.item;
        });
    } else {
        for (const std::int64_t c : items)
            if (c != q)
                run->order.push_back({0.0, c});
    }
    run->slots.resize(run->order.size());
    run->limit = run->order.size();
    return run;
}

Search::Slot Search::evaluate(const Run& r, std::size_t pos, bool full, double kth, PairSolver& solver) const
{
    Slot s;
    const Entry& e = r.order[pos];
    if (m_pruned && full && exceeds(e.bound, kth, r.scale)) {
        s.state = SlotState::Beyond;
        return s;
    }
    try {
        solver.prepare(r.side, pointSet(m_ds, static_cast<std::size_t>(e.item)));
        // Computed even when the snapshot has no k-th best yet: the commit may have one.
        if (m_pruned)
            s.rwmd = solver.rwmd(r.side);
    } catch (const job::Cancelled&) {
        throw;
    } catch (...) {
        s.state = SlotState::FailedPrepare;
        s.error = namedError(r.query, e.item);
        return s;
    }
    if (m_pruned && full && exceeds(s.rwmd, kth, r.scale)) {
        s.state = SlotState::Skipped;
        return s;
    }
    try {
        s.emd = solver.solve(r.side);
        s.state = SlotState::Solved;
    } catch (const job::Cancelled&) {
        throw;
    } catch (...) {
        s.state = SlotState::FailedSolve;
        s.error = namedError(r.query, e.item);
    }
    return s;
}

bool Search::available(const Run& r) const
{
    if (r.finished || abandoned(r) || r.next >= r.limit)
        return false;
    // The first k candidates in the serial order are always solved (nothing is pruned before
    // there are k distances), so they may run ahead without limit.
    return !m_pruned || r.next < std::max(r.commit + m_lookahead, static_cast<std::size_t>(m_k));
}

Search::Run* Search::find(std::size_t index) const
{
    for (const auto& r : m_runs)
        if (r->index == index)
            return r.get();
    return nullptr;
}

// A thread without a query of its own helps the query it is least ahead on.
Search::Run* Search::helpTarget() const
{
    Run* best = nullptr;
    for (const auto& r : m_runs)
        if (available(*r) && (!best || r->next - r->commit < best->next - best->commit))
            best = r.get();
    return best;
}

void Search::record(Run& r, std::size_t pos, Slot slot)
{
    if (slot.state == SlotState::Beyond)
        r.limit = std::min(r.limit, pos);
    if (abandoned(r))
        return;
    if (r.finished) {
        // Evaluated past the point where the serial search stopped (or after a failure).
        if (ranSolve(slot.state) && r.index != m_failedQuery)
            ++m_results[r.index].stats.speculativeSolves;
        return;
    }
    r.slots[pos] = std::move(slot);
    advance(r);
}

// Commits the evaluated candidates at the cursor, with the decisions of the serial search.
void Search::advance(Run& r)
{
    EmdKnnStats& stats = m_results[r.index].stats;
    const std::size_t n = r.order.size();
    while (r.commit < n) {
        const std::size_t t = r.commit;
        Slot& s = r.slots[t];
        if (s.state == SlotState::Pending)
            return;
        if (m_pruned) {
            const bool full = r.top.full();
            if (full && exceeds(r.order[t].bound, r.top.kth(), r.scale)) {
                stats.prunedByWcd = static_cast<std::int64_t>(n - t);
                m_total.candidatesDone += static_cast<std::int64_t>(n - t);
                for (std::size_t u = t; u < r.next; ++u)
                    stats.speculativeSolves += ranSolve(r.slots[u].state);
                finish(r);
                return;
            }
            if (s.state == SlotState::FailedPrepare) { // the serial search fails here too
                fail(r.index, s.error);
                return;
            }
            if (s.state == SlotState::Beyond) {
                fail(r.index, std::make_exception_ptr(std::logic_error(
                                  "emdKnn: a candidate pruned against an earlier k-th best is not pruned at its commit")));
                return;
            }
            if (full && exceeds(s.rwmd, r.top.kth(), r.scale)) {
                ++stats.prunedByRwmd; // a failed solve here is one the serial search never runs
                stats.speculativeSolves += ranSolve(s.state);
            } else if (s.state == SlotState::Solved) {
                ++stats.exactSolves;
                r.top.offer({r.order[t].item, s.emd});
            } else if (s.state == SlotState::FailedSolve) {
                fail(r.index, s.error);
                return;
            } else {
                fail(r.index, std::make_exception_ptr(std::logic_error(
                                  "emdKnn: a candidate skipped against an earlier k-th best is not skipped at its commit")));
                return;
            }
        } else {
            if (s.state != SlotState::Solved) {
                fail(r.index, s.error);
                return;
            }
            ++stats.exactSolves;
            r.all.push_back({r.order[t].item, s.emd});
        }
        s.error = nullptr;
        ++r.commit;
        ++m_total.candidatesDone;
    }
    finish(r);
}

void Search::finish(Run& r)
{
    r.finished = true;
    EmdKnnResult& res = m_results[r.index];
    res.stats.candidates = static_cast<std::int64_t>(r.order.size());
    if (m_pruned) {
        res.neighbours = r.top.take();
    } else {
        const std::size_t keep = std::min(r.all.size(), static_cast<std::size_t>(m_k));
        std::partial_sort(r.all.begin(), r.all.begin() + static_cast<std::ptrdiff_t>(keep), r.all.end(), before);
        r.all.resize(keep);
        res.neighbours = std::move(r.all);
    }
    ++m_total.queriesDone;
}

// The serial search would have thrown the failure of the first query (in `queries`) that
// fails; so keep the smallest index, and drop the queries after it.
void Search::fail(std::size_t index, std::exception_ptr error)
{
    if (Run* r = find(index))
        r->finished = true;
    if (index < m_failedQuery) {
        m_failedQuery = index;
        m_error = std::move(error);
    }
}

// Drops the runs no thread works on any more.
void Search::tidy()
{
    std::erase_if(m_runs, [&](const std::unique_ptr<Run>& r) { return (r->finished || abandoned(*r)) && r->busy == 0; });
}

void Search::work()
{
    EmdOptions emdOptions;
    emdOptions.control = m_options.control;
    emdOptions.maxPivots = m_options.maxPivots;
    PairSolver solver(emdOptions, m_options.distance);
    std::size_t home = std::numeric_limits<std::size_t>::max(); // the query this thread started
    std::unique_lock lock(m_mutex);
    for (;;) {
        if (m_stop)
            return;
        Run* run = find(home);
        if (!run || !available(*run)) {
            run = nullptr;
            if (moreQueries()) {
                const std::size_t index = m_nextQuery++;
                ++m_building;
                lock.unlock();
                std::unique_ptr<Run> built;
                std::exception_ptr error;
                try {
                    poll();
                    built = build(index);
                } catch (const job::Cancelled&) {
                    throw;
                } catch (...) {
                    error = std::current_exception();
                }
                lock.lock();
                --m_building;
                if (error) {
                    fail(index, error);
                } else if (built->order.empty()) {
                    finish(*built);
                } else {
                    home = index;
                    m_runs.push_back(std::move(built));
                }
                tidy();
                m_cv.notify_all();
                continue;
            }
            run = helpTarget();
            if (!run) {
                if (m_runs.empty() && m_building == 0)
                    return; // nothing left to start, nothing running
                m_cv.wait(lock);
                continue;
            }
        }
        const std::size_t pos = run->next++;
        const bool full = m_pruned && run->top.full();
        const double kth = full ? run->top.kth() : 0.0;
        ++run->busy;
        lock.unlock();
        poll(); // before every candidate; a Cancelled leaves `busy` raised, and everything stops
        Slot slot = evaluate(*run, pos, full, kth, solver);
        lock.lock();
        --run->busy;
        record(*run, pos, std::move(slot));
        tidy();
        m_cv.notify_all();
    }
}

void Search::report()
{
    if (!m_reporting || !m_options.progress)
        return;
    if (m_total.queriesDone == m_reported.queriesDone && m_total.candidatesDone == m_reported.candidatesDone)
        return;
    m_reported = m_total;
    try {
        m_options.progress(m_total);
    } catch (...) {
        m_reporting = false;
        if (!m_fatal)
            m_fatal = std::current_exception();
        m_stop = true;
        m_cv.notify_all();
    }
}

std::vector<EmdKnnResult> Search::run()
{
    {
        std::lock_guard lock(m_mutex);
        m_running = m_threads;
        report();
    }
    {
        std::vector<std::jthread> pool;
        // Stops the workers before the pool joins them if this thread leaves by an exception.
        struct StopOnExit {
            Search& s;
            ~StopOnExit()
            {
                std::lock_guard lock(s.m_mutex);
                s.m_stop = true;
                s.m_cv.notify_all();
            }
        };
        const StopOnExit guard{*this};
        for (int t = 0; t < m_threads; ++t)
            pool.emplace_back([this] {
                try {
                    work();
                } catch (const job::Cancelled&) {
                    std::lock_guard lock(m_mutex);
                    m_cancelled = true;
                    m_stop = true;
                } catch (...) {
                    std::lock_guard lock(m_mutex);
                    if (!m_fatal)
                        m_fatal = std::current_exception();
                    m_stop = true;
                }
                std::lock_guard lock(m_mutex);
                --m_running;
                m_cv.notify_all();
                m_exitedCv.notify_all();
            });
        std::unique_lock lock(m_mutex);
        while (m_running > 0) {
            m_exitedCv.wait_for(lock, std::chrono::milliseconds(100), [&] { return m_running == 0; });
            if (m_running > 0)
                report();
        }
        report(); // the last one: every query that finished
    }
    if (m_fatal)
        std::rethrow_exception(m_fatal);
    if (m_error)
        std::rethrow_exception(m_error);
    if (m_cancelled)
        throw job::Cancelled();
    return std::move(m_results);
}

} // namespace

std::vector<EmdKnnResult> emdKnnQueries(const data::Dataset& dataset, const std::vector<std::int64_t>& queries,
                                        const std::vector<std::int64_t>& candidates, int k,
                                        const EmdKnnOptions& options)
{
    SharedCandidates shared;
    shared.items = checkArguments(dataset, queries, candidates, k);
    job::JobControl* control = options.control;
    if (control)
        control->checkpoint();
    if (queries.empty())
        return {};

    // Every item is checked before any search, in the order a serial loop over the queries
    // meets them: the first query, the candidates (ascending), the other queries.
    const bool pruned = options.method == EmdKnnMethod::Pruned;
    if (pruned && options.distance != SetDistance::Emd)
        throw std::invalid_argument(std::string("kNN under ") + setDistanceName(options.distance) +
                                    ": only the brute-force search (the pruning bounds are for the EMD)");
    validate(pointSet(dataset, static_cast<std::size_t>(queries.front())), itemName(queries.front()));
    if (pruned)
        shared.summaries.reserve(shared.items.size());
    for (std::size_t t = 0; t < shared.items.size(); ++t) {
        if (control && t % 256 == 255)
            control->checkpoint();
        const PointSet c = pointSet(dataset, static_cast<std::size_t>(shared.items[t]));
        validate(c, itemName(shared.items[t]));
        if (pruned) {
            shared.summaries.push_back(summarize(c));
            shared.maxScale = std::max(shared.maxScale, shared.summaries.back().scale);
        }
    }
    for (std::size_t i = 1; i < queries.size(); ++i) {
        if (control && i % 256 == 255)
            control->checkpoint();
        validate(pointSet(dataset, static_cast<std::size_t>(queries[i])), itemName(queries[i]));
    }

    const auto hw = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    const std::int64_t work = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(queries.size()) * static_cast<std::int64_t>(shared.items.size()));
    const auto threads = static_cast<int>(std::clamp<std::int64_t>(options.threads > 0 ? options.threads : hw, 1,
                                                                    std::min<std::int64_t>(work, 1024)));
    Search search(dataset, queries, k, options, shared, threads);
    return search.run();
}

EmdKnnResult emdKnn(const data::Dataset& dataset, std::int64_t query, const std::vector<std::int64_t>& candidates,
                    int k, job::JobControl* control)
{
    EmdKnnOptions options;
    options.control = control;
    return std::move(emdKnnQueries(dataset, {query}, candidates, k, options).front());
}

EmdKnnResult emdKnnBruteForce(const data::Dataset& dataset, std::int64_t query,
                              const std::vector<std::int64_t>& candidates, int k, job::JobControl* control)
{
    EmdKnnOptions options;
    options.method = EmdKnnMethod::BruteForce;
    options.control = control;
    return std::move(emdKnnQueries(dataset, {query}, candidates, k, options).front());
}

} // namespace setscope::ot
