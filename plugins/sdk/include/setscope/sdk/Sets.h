// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Weighted sets as the training pipeline hands them to augmentations and losses, and the
// optimal transport between the sets of one mini-batch. Torch-free and Qt-free.

#include <cstdint>
#include <vector>

namespace setscope::sdk {

/// One weighted set viewed in place: `count` elements of `dim` floats (row-major) and one
/// weight per element. Not owned.
struct SetRef {
    const float* values = nullptr;
    const float* weights = nullptr;
    std::int64_t count = 0;
    int dim = 0;
};

/// A set that owns its storage (what an augmentation returns).
struct OwnedSet {
    std::vector<float> values;  ///< count x dim, row-major
    std::vector<float> weights; ///< count
    std::int64_t count = 0;
    int dim = 0;

    SetRef ref() const { return {values.data(), weights.data(), count, dim}; }
};

/// One non-zero entry of an optimal flow: `amount` of element i of set a moves to element
/// j of set b.
struct TransportArc {
    std::int32_t i = 0;
    std::int32_t j = 0;
    double amount = 0.0;
};

/// The exact optimal transport (EMD, seed 001 Eq. 1-2, Euclidean ground distance) between
/// the sets of one mini-batch, numbered 0..size()-1 as in the batch. The host computes the
/// B x B EMD matrix once per step when an augmentation or the loss asks for it (from the
/// cached pairwise matrix of the dataset when there is one, else on all cores) and flows on
/// demand. Only valid during the step that hands it out; use from the step's thread.
class BatchTransport {
public:
    virtual ~BatchTransport() = default;
    virtual std::int64_t size() const = 0;
    /// EMD(a, b); 0 for a == b.
    virtual double emd(std::int64_t a, std::int64_t b) = 0;
    /// The set with the smallest EMD to `a` among the others of the batch (ties: lowest index).
    virtual std::int64_t nearest(std::int64_t a) = 0;
    /// The optimal flow a -> b (non-zero arcs, ascending by i then j).
    virtual const std::vector<TransportArc>& flows(std::int64_t a, std::int64_t b) = 0;
};

} // namespace setscope::sdk
