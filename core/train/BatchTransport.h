// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// The exact optimal transport between the sets of one mini-batch (sdk::BatchTransport), as
// the training step hands it to augmentations and losses.

#include "core/ot/Emd.h"

#include <setscope/sdk/Sets.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
}
namespace setscope::ot {
class DistanceMatrix;
}

namespace setscope::train {

/// A cached EMD between two dataset items (their indices in the dataset), or nullopt when
/// the cache does not have it. Asked once per pair of batch positions i < j, as
/// (item of i, item of j), so it must be symmetric (EMD is). Called on the thread that
/// computes the matrix (the step's), never concurrently.
using CachedEmd = std::function<std::optional<double>(std::int64_t itemA, std::int64_t itemB)>;

/// A CachedEmd reading a finished pairwise matrix (ot::PairwiseJob::result()) of the same
/// dataset, computed under EMD with the Euclidean ground distance: the caller checks that
/// (PairwiseOptions of the job). Items outside the matrix give nullopt. The values are the
/// file's float32, so a cached entry differs from the exact float64 EMD by its rounding
/// (relative 6e-8). Keeps the matrix alive.
CachedEmd cachedEmdFrom(std::shared_ptr<const ot::DistanceMatrix> matrix);

struct BatchTransportOptions {
    /// Threads for the matrix; 0 = std::thread::hardware_concurrency(). The calling thread is
    /// one of them. Results do not depend on it.
    int threads = 0;
    /// Polled before every pair and inside every EMD solve (EmdOptions::control): a cancel
    /// throws job::Cancelled from computeMatrix() / emd() / nearest() / flows() once the
    /// workers have stopped; a pause blocks them. May be null; not owned.
    job::JobControl* control = nullptr;
    /// Consulted for every pair of distinct dataset items before anything is solved (needs
    /// the items of the batch). May be empty.
    CachedEmd cached;
};

/// Exact EMD (seed 001 Eq. 1-2, Euclidean ground distance, float64, partial transport for
/// unequal masses) between the B sets of one mini-batch.
///
/// The full B x B matrix is computed once, at the first emd() or nearest() (or by
/// computeMatrix()): the pairs i < j that the cache does not have are split across the
/// threads (dynamic chunks, one ot::EmdSolver per thread), each pair solved as ot::emd()
/// solves it, so the values are those of ot::emd(set i, set j) bit for bit, whatever the
/// thread count; the lower triangle mirrors the upper, the diagonal is 0. Two batch
/// positions holding the same dataset item have EMD 0 without a solve.
///
/// flows(a, b) solves that one pair with flows on demand (on the calling thread) and keeps
/// the result for the life of the object (the step). flows(b, a) is solved on its own, not
/// transposed: when the optimal flow is not unique (sets sharing elements) a transpose
/// could differ from ot::emd(b, a), and the result would depend on the order of the calls.
///
/// Errors: every set is checked (ot::validate, dimensions) before any solve; a bad set, a
/// failed solve or a non-finite EMD throws ot::OtError naming the batch position and, when
/// known, the dataset item ("batch set 3 (item 17): set is empty"). After an exception
/// (including job::Cancelled) the matrix is not kept: a later call computes it again.
///
/// Not thread-safe: use from one thread (the step's). seconds(), solved(), cached() and
/// flowSolves() may be read from any thread at any time.
class ExactBatchTransport final : public sdk::BatchTransport {
public:
    /// `sets` are viewed, not copied: they must outlive this object. `items` (empty, or one
    /// per set) are the sets' dataset item indices, for error messages and options.cached.
    explicit ExactBatchTransport(std::vector<sdk::SetRef> sets, BatchTransportOptions options = {},
                                 std::vector<std::int64_t> items = {});
    /// The items `items` of `dataset` (which must outlive this object). Throws
    /// std::out_of_range for an index outside the dataset.
    ExactBatchTransport(const data::Dataset& dataset, std::vector<std::int64_t> items,
                        BatchTransportOptions options = {});
    ~ExactBatchTransport() override;

    std::int64_t size() const override { return static_cast<std::int64_t>(m_sets.size()); }
    /// EMD(a, b) from the matrix (computed on the first call); 0 for a == b without it.
    /// Throws std::out_of_range for an index outside the batch.
    double emd(std::int64_t a, std::int64_t b) override;
    /// argmin over b != a of EMD(a, b), ties to the lowest b. Throws ot::OtError when the
    /// batch has a single set.
    std::int64_t nearest(std::int64_t a) override;
    /// The optimal flow a -> b as ot::emd(set a, set b) with flows gives it (non-zero arcs,
    /// ascending by i then j). The reference stays valid while this object lives.
    const std::vector<sdk::TransportArc>& flows(std::int64_t a, std::int64_t b) override;

    /// Computes the matrix now if it is not there yet (on the calling thread and
    /// options.threads - 1 others; the calling thread blocks until all are done).
    void computeMatrix();
    bool hasMatrix() const { return !m_matrix.empty(); }
    /// B x B, row-major, symmetric, zero diagonal; computes it first when needed.
    const std::vector<double>& matrix();

    /// Wall-clock seconds spent on EMDs by this object (matrix and flows), for the trainer to
    /// report apart from the step.
    double seconds() const { return m_seconds.load(std::memory_order_relaxed); }
    /// Exact EMD solves run by this object: pairs of the matrix, plus flowSolves().
    std::int64_t solved() const { return m_solved.load(std::memory_order_relaxed); }
    /// Pairs of the matrix taken from options.cached.
    std::int64_t cached() const { return m_cached.load(std::memory_order_relaxed); }
    /// Solves run by flows() (each ordered pair at most once).
    std::int64_t flowSolves() const { return m_flowSolves.load(std::memory_order_relaxed); }

    /// "batch set 3 (item 17)" or "batch set 3" when the items are not known.
    std::string describe(std::int64_t position) const;

private:
    void checkIndex(std::int64_t a, const char* what) const;
    void validateSets();
    ot::PointSet pointSet(std::int64_t position) const;

    std::vector<sdk::SetRef> m_sets;
    std::vector<std::int64_t> m_items;
    BatchTransportOptions m_options;
    bool m_validated = false;
    std::vector<double> m_matrix;
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<sdk::TransportArc>> m_flows;
    ot::EmdSolver m_flowSolver;
    std::atomic<double> m_seconds{0.0};
    std::atomic<std::int64_t> m_solved{0};
    std::atomic<std::int64_t> m_cached{0};
    std::atomic<std::int64_t> m_flowSolves{0};
};

} // namespace setscope::train
