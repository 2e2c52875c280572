// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <utility>

namespace setscope::sdk {
class SetEncoder;
}

namespace setscope::train::run {

struct ActiveStage;
struct RunContext;

/// Data parallelism over the ranks of a run (docs/DISTRIBUTED.md): every rank checks that it
/// runs rank 0's training, starts each stage from rank 0's weights, trains its parts of each
/// batch, and sums the gradients over the ranks before each optimizer step. In a single
/// process each call is a no-op (and the process trains every part).
class GradientSync {
public:
    explicit GradientSync(const RunContext& ctx);

    bool distributed() const;
    /// Fails unless every rank runs the same training: rank 0's configuration (but the settings
    /// only rank 0 uses: checkpoints, snapshots, evaluation, device, the checkpoint paths),
    /// dataset, labels, length and starting step. Throws std::invalid_argument on the rank that
    /// differs, naming the differences; that rank's exit then stops the others (dist::PeerLost).
    void checkSameRun(std::int64_t total, std::int64_t startStep) const;
    /// Every rank starts the stage from rank 0's weights (identical anyway with the same seed
    /// and LibTorch; this makes it so whatever the build): the encoder's and the loss's
    /// parameters, the encoder's float buffers and the key encoder's parameters.
    void startStage(const ActiveStage& stage, sdk::SetEncoder& encoder) const;
    /// The parts [first, last) of each batch's `batch_shards` parts this rank trains.
    std::pair<int, int> parts() const;
    /// Sums the stage's gradients over the ranks with `lossSum` (this rank's parts' losses);
    /// returns the sum over the ranks. One flattened all-reduce after the backward pass
    /// (docs/DISTRIBUTED.md says why not bucketed during it).
    double sumGradients(const ActiveStage& stage, double lossSum) const;

private:
    const RunContext& m_ctx;
};

} // namespace setscope::train::run
