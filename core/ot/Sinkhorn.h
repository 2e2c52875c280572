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
/// differs from seed 001's partial EMD; documented in docs/OT.md).
struct SinkhornOptions {
    /// Regularisation, relative to the median of each pair's cost matrix (ε = epsilon *
    /// median cost), so one value behaves alike across datasets.
    double epsilon = 0.01;
    int maxIterations = 1000;
    double tolerance = 1e-9; ///< stop when the marginal violation (L1) falls below
    GroundDistance ground = GroundDistance::Euclidean;
    std::string device = "cpu";
    bool plans = false; ///< return the transport plans
};

struct SinkhornResult {
    double cost = 0.0;           ///< <P, C>: the transport cost of the entropic plan
    int iterations = 0;
    double marginalError = 0.0;  ///< L1 violation of the marginals at the end
    std::vector<double> plan;    ///< na x nb row-major, when asked for
};

/// Solves every pair (as[k], bs[k]) of the batch. Throws OtError for bad input,
/// std::invalid_argument for an unavailable device.
std::vector<SinkhornResult> sinkhorn(const std::vector<PointSet>& as, const std::vector<PointSet>& bs,
                                     const SinkhornOptions& options = {});

} // namespace setscope::ot
