// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"
#include "core/train/Job.h"

#include <cstdint>
#include <memory>
#include <string>

namespace setscope::data {
class Dataset;
}

namespace setscope::ot {

enum class SetDistance { Emd, Chamfer };
const char* setDistanceName(SetDistance d);
SetDistance parseSetDistance(const std::string& name); ///< "emd" | "chamfer"

struct PairwiseOptions {
    SetDistance distance = SetDistance::Emd;
    GroundDistance ground = GroundDistance::Euclidean;
    bool chamferWeighted = true;
    int threads = 0;                 ///< 0 = all cores
    std::string cacheDir;            ///< where matrices are cached ("" = $XDG_CACHE_HOME/setscope or ~/.cache/setscope)
    std::int64_t blockRows = 0;      ///< rows per block (0 = automatic); a block is the unit of resume
};

/// A symmetric N x N float32 distance matrix, memory-mapped from its cache file. Read-only
/// and safe to share between threads once complete.
class DistanceMatrix {
public:
    ~DistanceMatrix();
    std::int64_t size() const { return m_n; }
    float at(std::int64_t i, std::int64_t j) const { return m_data[i * m_n + j]; }
    const float* row(std::int64_t i) const { return m_data + i * m_n; }
    const std::string& path() const { return m_path; }

private:
    friend class PairwiseJob;
    DistanceMatrix() = default;
    std::string m_path;
    std::int64_t m_n = 0;
    const float* m_data = nullptr;
    void* m_map = nullptr;
    std::size_t m_mapBytes = 0;
};

/// Computes the full pairwise matrix of a dataset's items under EMD or Chamfer, on a
/// worker thread using `threads` threads for the pairs. Only i < j is computed (the
/// matrix is symmetric, zero diagonal). The result is cached in
/// `<cacheDir>/pairwise-<key>.f32`, key = content hash of (dataset content hash, distance,
/// ground distance, options): a finished matrix is reused at once; a file left by a killed
/// run is resumed, recomputing only the blocks not marked complete. Progress in pairs;
/// cancel lands within one block's pairs of work per thread (keep blocks small).
class PairwiseJob final : public train::Job {
public:
    PairwiseJob(std::shared_ptr<const data::Dataset> dataset, PairwiseOptions options);
    ~PairwiseJob() override;

    /// The cache file this job reads or writes.
    std::string cachePath() const;
    /// The matrix, when the job has finished (nullptr otherwise).
    std::shared_ptr<const DistanceMatrix> result() const;
    /// Blocks that were already complete in the cache when the job started.
    std::int64_t blocksReused() const;

protected:
    void run() override;

private:
    struct State;
    std::shared_ptr<const data::Dataset> m_dataset;
    PairwiseOptions m_options;
    std::unique_ptr<State> m_state;
};

} // namespace setscope::ot
