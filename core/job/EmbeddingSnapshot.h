// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace setscope::job {

/// A CPU copy of the embeddings of a fixed subset of items at one moment of training.
/// Immutable once published; shared between threads by shared_ptr<const ...>.
struct EmbeddingSnapshot {
    std::int64_t step = 0;
    int epoch = 0;                    ///< epochs completed when the snapshot was taken
    double loss = 0.0;                ///< latest training loss
    std::vector<std::int64_t> items;  ///< dataset item indices (same subset in every snapshot of a run)
    int dim = 0;
    std::vector<float> vectors;       ///< items.size() x dim, row-major
};

/// Latest-value mailbox between a producer (the training thread) and readers (the GUI
/// frame loop, the layout job). publish() and latest() never block each other for longer
/// than a pointer swap; readers keep what they got alive through the shared_ptr.
class SnapshotBuffer {
public:
    void publish(std::shared_ptr<const EmbeddingSnapshot> s)
    {
        m_latest.store(std::move(s));
        m_sequence.fetch_add(1, std::memory_order_release);
    }
    std::shared_ptr<const EmbeddingSnapshot> latest() const { return m_latest.load(); }
    /// Increments on each publish(); compare with a remembered value to see if there is news.
    std::uint64_t sequence() const { return m_sequence.load(std::memory_order_acquire); }

private:
    std::atomic<std::shared_ptr<const EmbeddingSnapshot>> m_latest;
    std::atomic<std::uint64_t> m_sequence{0};
};

} // namespace setscope::job
