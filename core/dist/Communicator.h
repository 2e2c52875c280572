// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace setscope::dist {

/// A collective or a message failed: another rank stopped (its connection closed), or did not
/// answer within the process group's timeout. The message names this rank and the operation.
class PeerLost : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The ranks of one distributed run, as the training loop and the pairwise engine see them.
/// Torch-free (the GUI and the OT engine include it); connectGloo() (dist/Gloo.h) gives the
/// implementation over LibTorch's c10d. Every call is blocking; a failure throws PeerLost.
/// Collectives must be called by every rank in the same order; send/recv pair up by tag.
class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// This rank's index among the ranks on its machine (LOCAL_RANK, SLURM_LOCALID): which GPU
    /// it takes (TrainingJob). rank() when the launcher did not say.
    virtual int localRank() const { return rank(); }
    /// "rank 1 of 2 (Gloo, file store /tmp/...)": for messages.
    virtual std::string describe() const = 0;

    /// Element-wise sum over the ranks, in place on every rank.
    virtual void allreduceSum(std::span<float> values) = 0;
    virtual void allreduceSum(std::span<double> values) = 0;
    /// `root`'s values to every rank (the same length on every rank).
    virtual void broadcast(std::span<float> values, int root) = 0;
    virtual void broadcast(std::span<std::int64_t> values, int root) = 0;
    /// `root`'s bytes to every rank (any length; others' `bytes` are replaced).
    void broadcast(std::string& bytes, int root);
    /// `root`'s vector to every rank (any length).
    void broadcast(std::vector<std::int64_t>& values, int root);
    virtual void barrier() = 0;
    /// Adds `delta` to the counter `key` in the run's store, shared by every rank (not a
    /// collective: any rank, any time); returns its value after the addition (0 before any).
    /// For work queues: each rank takes the next item with add(key, 1) - 1.
    virtual std::int64_t add(const std::string& key, std::int64_t delta) = 0;

    /// Point to point: `tag` tells messages apart.
    virtual void send(std::span<const std::int64_t> values, int dst, int tag) = 0;
    virtual void send(std::span<const float> values, int dst, int tag) = 0;
    /// Receives `values.size()` integers from any rank; returns that rank.
    virtual int recvAny(std::span<std::int64_t> values, int tag) = 0;
    virtual void recv(std::span<std::int64_t> values, int src, int tag) = 0;
    virtual void recv(std::span<float> values, int src, int tag) = 0;
};

} // namespace setscope::dist
