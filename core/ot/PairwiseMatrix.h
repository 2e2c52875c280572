// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"
#include "core/job/Job.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::dist {
class Communicator;
}

namespace setscope::ot {


struct PairwiseOptions {
    SetDistance distance = SetDistance::Emd;
    GroundDistance ground = GroundDistance::Euclidean;
    bool chamferWeighted = true;     ///< Chamfer only (not part of the key of an EMD matrix)
    int threads = 0;                 ///< 0 = all cores (std::thread::hardware_concurrency)
    std::string cacheDir;            ///< where matrices are cached ("" = defaultPairwiseCacheDir())
    std::int64_t blockRows = 0;      ///< rows per block (0 = automatic, by pair counts); a block is the unit of
                                     ///< resume. Used when a file is created; a resumed file keeps its own layout.
    /// The ranks of a distributed run to shard the blocks over (null or one rank: this process
    /// alone). Not part of the cache key. See PairwiseJob.
    std::shared_ptr<dist::Communicator> comm;
};

/// $XDG_CACHE_HOME/setscope when XDG_CACHE_HOME is an absolute path, else ~/.cache/setscope.
/// Does not create it (PairwiseJob does).
std::string defaultPairwiseCacheDir();

/// Row boundaries of the blocks of an n x n matrix: b[0] = 0 < b[1] < ... < b[k] = n - 1;
/// block t computes the pairs (i, j), b[t] <= i < b[t+1], j > i (the last row has no pairs,
/// so n < 2 gives {0}, no block). blockRows > 0: fixed row counts. blockRows = 0: about
/// 2 048 pairs per block (at least min(64, n - 1) blocks), cut by pair counts, so the first
/// blocks, whose rows have more pairs j > i, span fewer rows. Depends only on n and
/// blockRows, never on the thread count, so any thread count writes the same file.
std::vector<std::int64_t> pairwiseBlocks(std::int64_t n, std::int64_t blockRows);

/// A symmetric N x N float32 distance matrix (zero diagonal, both triangles stored, rows
/// contiguous), memory-mapped read-only from its complete cache file. Safe to share between
/// threads. The file may be deleted while mapped (the mapping keeps the data).
class DistanceMatrix {
public:
    /// Maps a complete cache file written by PairwiseJob (any thread). Checks the header
    /// (magic, version, size, complete flag) but not the values: PairwiseJob verifies those
    /// when it reuses a file. Throws std::runtime_error whose message starts with the path.
    static std::shared_ptr<const DistanceMatrix> open(const std::string& path);

    ~DistanceMatrix();
    DistanceMatrix(const DistanceMatrix&) = delete;
    DistanceMatrix& operator=(const DistanceMatrix&) = delete;

    std::int64_t size() const { return m_n; }
    float at(std::int64_t i, std::int64_t j) const { return m_data[i * m_n + j]; }
    const float* row(std::int64_t i) const { return m_data + i * m_n; }
    const std::string& path() const { return m_path; }
    /// The cache key (32 hex characters) the file was computed for.
    const std::string& key() const { return m_key; }

private:
    friend std::shared_ptr<const DistanceMatrix> findCachedMatrix(const data::Dataset&, const PairwiseOptions&,
                                                                  std::string*);
    DistanceMatrix() = default;
    std::string m_path;
    std::string m_key;
    std::int64_t m_n = 0;
    const float* m_data = nullptr;
    void* m_map = nullptr;
    std::size_t m_mapBytes = 0;
};

/// What the header of a pairwise cache file says (tools, tests). Throws std::runtime_error
/// naming the file when it is missing, unreadable or not a valid pairwise file.
struct PairwiseFileInfo {
    std::int64_t n = 0;
    std::string key;
    std::int64_t dataOffset = 0;            ///< byte offset of the float32 matrix
    std::vector<std::int64_t> blockStarts;  ///< pairwiseBlocks() layout of the file
    std::vector<bool> blockDone;            ///< completion bit of each block
    bool complete = false;                  ///< every block done and the lower triangle mirrored
};
PairwiseFileInfo inspectPairwiseFile(const std::string& path);

/// The cache file a PairwiseJob with `options` would read or write for `dataset` (hashes
/// the dataset: one pass over its values).
std::string pairwiseCachePath(const data::Dataset& dataset, const PairwiseOptions& options);

/// A finished matrix of `dataset` under `options` from the cache, or null when there is none
/// to trust: no file, an interrupted one (blocks missing), another key or size, a block whose
/// checksum does not match, or a lower triangle that does not mirror the upper one. Never
/// computes or repairs anything (PairwiseJob does); reads the whole file once to verify it.
/// `why` (may be null) gets one line for the user: "using PATH" or why the cache was not used.
/// I/O errors other than a missing file throw std::runtime_error naming the file.
std::shared_ptr<const DistanceMatrix> findCachedMatrix(const data::Dataset& dataset, const PairwiseOptions& options,
                                                       std::string* why = nullptr);

/// Computes the full pairwise matrix of a dataset's items under EMD or Chamfer, on a
/// worker thread using `threads` threads for the pairs. Only i < j is computed (the
/// matrix is symmetric, zero diagonal). The result is cached in
/// `<cacheDir>/pairwise-<key>.f32`, key = content hash of (dataset content hash, the set
/// data itself, distance, ground distance, Chamfer weighting): a finished matrix is reused
/// at once (after checking its block checksums); a file left by a killed or cancelled run
/// is resumed, recomputing only the blocks not marked complete. A damaged file (bad header,
/// wrong size, a block whose checksum does not match) is recomputed, never trusted.
/// Progress in pairs; cancel and pause are polled before every pair and inside every EMD
/// solve, so they land within a few thousand pivots of the pair in progress.
///
/// Errors end the job as Failed: an item that fails ot::validate (message "item <i>: ..."),
/// disk errors (message starting with the file or directory). Another process (or job)
/// computing the same key holds `pairwise-<key>.lock`; this job waits for it, then reuses
/// what it wrote. See docs/OT_PAIRWISE.md for the file format.
///
/// Sharded (options.comm with several ranks; docs/DISTRIBUTED.md): every rank runs its own
/// PairwiseJob on the same dataset and options (the keys are compared first). Rank 0 alone holds
/// the lock and the file and finds the blocks left to do. The ranks go through them in rounds
/// (16 blocks per thread of rank 0, times the ranks); within a round every rank's threads take
/// the round's blocks one at a time from a counter in the run's store, so a faster rank takes
/// more. After each round the other ranks send their finished blocks to rank 0, which writes
/// them with their checksums and done bits exactly as its own (no shared file system needed).
/// A rank that is killed loses at most its round in progress: the others fail with
/// dist::PeerLost, and the next run recomputes only the blocks not done. A cancel on any rank
/// cancels every rank at the end of the round. Only rank 0's job has a result(); the others
/// finish once the matrix is complete.
class PairwiseJob final : public job::Job {
public:
    /// Hashes the dataset (on the calling thread: one pass over its values).
    PairwiseJob(std::shared_ptr<const data::Dataset> dataset, PairwiseOptions options);
    ~PairwiseJob() override;

    /// The cache key (32 hex characters).
    const std::string& key() const;
    /// The cache file this job reads or writes.
    std::string cachePath() const;
    /// The matrix, when the job has finished (nullptr otherwise). Any thread.
    std::shared_ptr<const DistanceMatrix> result() const;
    /// Blocks that were already complete (and verified) in the cache when the job started.
    std::int64_t blocksReused() const;
    /// Blocks of the file's layout (0 until run() has opened the file).
    std::int64_t blockCount() const;
    /// Pairs solved by this job (not read from the cache). Any thread, lock-free.
    std::int64_t pairsComputed() const;

protected:
    void run() override;

private:
    /// A rank other than 0 of a sharded run: its blocks, sent to rank 0.
    void runFollower(dist::Communicator& comm, int threads);

    struct State;
    std::shared_ptr<const data::Dataset> m_dataset;
    PairwiseOptions m_options;
    std::unique_ptr<State> m_state;
};

} // namespace setscope::ot
