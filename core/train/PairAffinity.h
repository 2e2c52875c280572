// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <vector>

namespace setscope::train {

/// A built-in capability of a batch sampler (not part of the plugin SDK): the affinities W_ij
/// between the rows of a batch that it drew, from the graph it built on its last refresh.
/// The trainer asks for them when the stage's loss is a losses::PairAffinityLoss (seed 004's
/// graph-based baselines: LRML, ISDML, APLLR, APIT) and hands them to the loss's
/// forward(context, affinity). Torch-free. docs/SSDML.md, "Deep baselines", says why this is a
/// core interface rather than an SDK field.
class PairAffinitySampler {
public:
    virtual ~PairAffinitySampler() = default;
    /// B x B floats, row-major, for the dataset items `batch` (a batch this sampler gave):
    /// W(batch[i], batch[j]), 0 for pairs that are not edges of the graph and on the
    /// diagonal. Symmetric. Throws std::logic_error before the first refresh and
    /// std::invalid_argument when an item is not in the current partition.
    virtual std::vector<float> batchAffinity(const std::vector<std::int64_t>& batch) const = 0;
    /// false when the sampler was configured without a graph (affinity "none").
    virtual bool hasAffinity() const = 0;
};

} // namespace setscope::train
