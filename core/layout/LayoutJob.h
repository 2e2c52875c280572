// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/layout/FastTsne.h"
#include "core/job/EmbeddingSnapshot.h"
#include "core/job/Job.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace setscope::layout {

/// A 2-D map of some dataset items.
struct Layout {
    std::vector<std::int64_t> items; ///< dataset item indices (the snapshot's)
    std::vector<float> xy;           ///< items.size() x 2, row-major
    std::int64_t sourceStep = 0;     ///< the training step of the snapshot it maps
    int iteration = 0;               ///< t-SNE iterations run on it (0 for PCA)
    bool converged = false;          ///< t-SNE finished its iterations for this snapshot
};

/// Latest-value mailbox for layouts (same contract as job::SnapshotBuffer).
class LayoutBuffer {
public:
    void publish(std::shared_ptr<const Layout> l)
    {
        m_latest.store(std::move(l));
        m_sequence.fetch_add(1, std::memory_order_release);
    }
    std::shared_ptr<const Layout> latest() const { return m_latest.load(); }
    std::uint64_t sequence() const { return m_sequence.load(std::memory_order_acquire); }

private:
    std::atomic<std::shared_ptr<const Layout>> m_latest;
    std::atomic<std::uint64_t> m_sequence{0};
};

enum class LayoutMethod { Pca, Tsne };

/// Follows a stream of embedding snapshots and keeps a 2-D map of the newest one, on its
/// own worker thread. Feed it with submit() (any thread; only the newest unprocessed
/// snapshot is kept). For each new snapshot:
///  - Pca: publishes the PCA map;
///  - Tsne: FastTsne on every item of the snapshot (kNN affinities, FFT-accelerated
///    gradient above FastTsne::kExactRepulsionMax items). The first snapshot gets a cold
///    start (PCA initialisation, early exaggeration, `tsne.maxIterations` iterations). A later
///    snapshot warm-starts from the previous map: affinities recomputed from its vectors,
///    items matched by id keep their places, items new to the map start at their PCA
///    position scaled to the map; no exaggeration, momentum 0.8, `warmIterations`
///    iterations. The map is published every `publishEvery` iterations, and the job switches
///    to a newer snapshot as soon as one arrives after at least `minIterationsPerSnapshot`
///    iterations.
/// Runs until cancelled; idles (polling for cancel) while there is nothing new. A malformed
/// snapshot (vectors.size() != items.size() * dim) ends the job as Failed, with a message
/// naming the snapshot's step. There is no size limit: memory is O(n k) for the affinities
/// (k = 3 perplexity) plus the interpolation grid; the kNN search of a new snapshot is the
/// expensive part (seconds at 70 000 items, docs/BENCHMARKS.md), an iteration is tens of ms.
/// Published layouts: an initial map as soon as a snapshot is taken (iteration 0), then one
/// every `publishEvery` iterations; `converged` marks the last one (always true for PCA).
class LayoutJob final : public job::Job {
public:
    struct Options {
        LayoutMethod method = LayoutMethod::Tsne;
        FastTsneOptions tsne; ///< maxIterations counts the cold start of the first snapshot
        int publishEvery = 10;
        int minIterationsPerSnapshot = 50;
        int warmIterations = 300; ///< iterations per snapshot after a warm start
    };

    explicit LayoutJob(Options options);
    ~LayoutJob() override;

    /// Any thread, never blocks (an atomic pointer swap); null is ignored. Replaces a
    /// snapshot submitted earlier that the job has not taken yet.
    void submit(std::shared_ptr<const job::EmbeddingSnapshot> snapshot);
    const LayoutBuffer& layouts() const { return m_out; }

protected:
    void run() override;

private:
    Options m_opt;
    job::SnapshotBuffer m_in;
    LayoutBuffer m_out;
};

} // namespace setscope::layout
