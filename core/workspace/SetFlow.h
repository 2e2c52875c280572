// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/ot/PointSet.h"

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
}

namespace setscope::workspace {

/// One arc of the optimal flow between two sets: f_ij > 0 units from element i of the first
/// set to element j of the second, at ground distance d_ij.
struct FlowArc {
    std::int32_t i = 0;
    std::int32_t j = 0;
    double amount = 0.0;
    double cost = 0.0;
};

/// The exact EMD between two items of a dataset (seed 001 Eq. 1-2) with its optimal flow, and
/// both sets' elements in one shared 2-D projection, for drawing flow lines: what the GUI's
/// EMD-flow view shows and `setscope-cli emd --flows` prints.
struct SetFlow {
    std::int64_t a = -1, b = -1;
    ot::GroundDistance ground = ot::GroundDistance::Euclidean;
    double emd = 0.0, work = 0.0, totalFlow = 0.0;
    std::int64_t pivots = 0;
    std::vector<FlowArc> arcs; ///< the non-zero arcs, ascending by (i, j)
    /// 2-D positions (x, y interleaved) of each element of a and of b in the shared projection.
    std::vector<float> xyA, xyB;
    std::vector<float> weightsA, weightsB;
    /// What each element is: its word, or its first coordinates.
    std::vector<std::string> namesA, namesB;
    /// How the positions were made: "PCA" (the first two principal axes of the union of the
    /// two sets' elements, unweighted, centred) or "coordinates" (elements of 1 or 2 dimensions,
    /// drawn as they are).
    std::string projection;
    /// The share of the union's variance the two axes keep (1 for "coordinates").
    double explainedVariance = 1.0;
};

/// Throws std::invalid_argument for an index outside the dataset, ot::OtError (naming the
/// items) for sets the solver refuses; job::Cancelled through `control`.
SetFlow computeSetFlow(const data::Dataset& ds, std::int64_t a, std::int64_t b,
                       ot::GroundDistance ground = ot::GroundDistance::Euclidean, job::JobControl* control = nullptr);

/// The first two principal axes of `points` (n x d, row-major, unweighted, centred on their
/// mean) as projected coordinates (n x 2), each axis' sign fixed so its largest component is
/// positive; `explained` gets the share of the total variance they keep. For d <= 2 the
/// coordinates themselves (a second coordinate of 0 for d = 1). Exposed for tests.
std::vector<float> principalPlane(const std::vector<float>& points, std::int64_t n, int d, double* explained = nullptr);

} // namespace setscope::workspace
