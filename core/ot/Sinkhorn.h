// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::ot {

/// Entropic optimal transport (Cuturi 2013), solved in the log domain (stable for small
/// ε) and batched: many pairs in one set of tensor operations, on any torch::Device
/// (this header is Torch-free; the device is named by a string, "cpu", "cuda", "cuda:0").
/// Masses are normalised to sum 1 on both sides (balanced OT: for sets of unequal mass this
/// differs from seed 001's partial EMD, see ot::emd; docs/OT_SINKHORN.md).
/// Everything is float64. Memory: about 6 x B x max(na) x max(nb) doubles on the device
/// for a batch of B pairs (sets are padded to the largest in the batch), so split very
/// large batches, or batches of very unequal sizes, into chunks.
struct SinkhornOptions {
    /// Regularisation, relative to the median of each pair's cost matrix (ε = epsilon *
    /// median cost), so one value behaves alike across datasets. The median is the lower
    /// median of all na x nb entries (zero-weight elements included); when it is 0 the mean
    /// is used, and when that is 0 too (all elements equal), 1. Must be finite and > 0.
    double epsilon = 0.01;
    /// Per pair; one iteration updates both potentials. >= 1. Near-degenerate pairs converge
    /// slowly at small ε (on 90-word documents some need 5 000 iterations at ε = 0.01 and
    /// 50 000 at 0.001; docs/OT_SINKHORN.md): check SinkhornResult::converged.
    int maxIterations = 1000;
    double tolerance = 1e-9; ///< stop a pair when its marginal violation (L1) falls below
    GroundDistance ground = GroundDistance::Euclidean;
    /// "cpu", "cuda", "cuda:N" or "auto" (CUDA when available, else CPU). A CUDA device
    /// that this LibTorch build or machine does not have is std::invalid_argument.
    std::string device = "cpu";
    bool plans = false; ///< return the transport plans
};

struct SinkhornResult {
    double cost = 0.0;           ///< <P, C>: the transport cost of the entropic plan (no entropy term)
    int iterations = 0;          ///< potential updates done for this pair (its own count, not the batch's)
    double marginalError = 0.0;  ///< ||P 1 - a||_1 + ||P^T 1 - b||_1 of the returned plan, masses normalised
    bool converged = false;      ///< marginalError fell below tolerance within maxIterations
    double epsilon = 0.0;        ///< the absolute ε used (options.epsilon x the pair's cost scale)
    std::vector<double> plan;    ///< na x nb row-major (sums to 1), when asked for
};

/// Solves every pair (as[k], bs[k]) of the batch on options.device, on the calling thread
/// (LibTorch's intra-op threads do the work). Sets may differ in size and, between pairs,
/// in dimension. Throws OtError for bad input, naming the pair ("pair 3: set A is empty";
/// also for as.size() != bs.size()), std::invalid_argument for bad options or an
/// unavailable device. An empty batch gives an empty result.
std::vector<SinkhornResult> sinkhorn(const std::vector<PointSet>& as, const std::vector<PointSet>& bs,
                                     const SinkhornOptions& options = {});

/// The cost matrices sinkhorn() builds on the device (tensor ops, float64), copied back:
/// one na x nb row-major matrix per pair, the same definitions as ot::costMatrix (exact 0
/// for equal elements). Validates like sinkhorn().
std::vector<std::vector<double>> sinkhornCostMatrices(const std::vector<PointSet>& as,
                                                      const std::vector<PointSet>& bs, GroundDistance ground,
                                                      const std::string& device = "cpu");

} // namespace setscope::ot
