// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <vector>

namespace setscope::train {

/// Class-balanced mini-batches (FaceNet §3.2 / "P x K" sampling): each batch holds
/// `classesPerBatch` classes with `perClass` items each, so every anchor has positives and
/// negatives. An epoch has floor(items / batchSize) batches (at least one); within an
/// epoch each class's items are drawn without replacement, reshuffled when exhausted.
/// The batches of epoch e depend only on (seed, e): resuming mid-epoch replays the same
/// order. Classes with fewer than 2 items are never drawn (they cannot form a positive).
class BatchSampler {
public:
    /// `items` and `labels` run in parallel (labels >= 0).
    BatchSampler(std::vector<std::int64_t> items, std::vector<std::int32_t> labels, int classesPerBatch, int perClass,
                 std::uint64_t seed);

    std::int64_t batchesPerEpoch() const { return m_batchesPerEpoch; }
    int batchSize() const { return m_classesPerBatch * m_perClass; }
    int usableClasses() const { return static_cast<int>(m_byClass.size()); }
    /// All batches of epoch `epoch` (0-based), each a list of dataset item indices.
    std::vector<std::vector<std::int64_t>> epochBatches(std::int64_t epoch) const;

private:
    std::vector<std::vector<std::int64_t>> m_byClass;
    int m_classesPerBatch;
    int m_perClass;
    std::uint64_t m_seed;
    std::int64_t m_batchesPerEpoch = 1;
};

} // namespace setscope::train
