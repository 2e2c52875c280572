// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace setscope::data {
class Dataset;
}

namespace setscope::ot {

/// Bad input to an optimal-transport computation (empty set, zero total weight, NaN,
/// dimension mismatch). what() says which set and what is wrong; callers that know the
/// dataset item prepend it.
class OtError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// Ground distance between two elements.
enum class GroundDistance {
    Euclidean,        ///< ||x - y||          (WMD, seed 001)
    SquaredEuclidean, ///< ||x - y||²
    Cosine,           ///< 1 - x·y / (||x|| ||y||); 1 when either vector is zero
};
const char* groundDistanceName(GroundDistance g);
/// "euclidean" | "sqeuclidean" | "cosine"; throws std::invalid_argument otherwise.
GroundDistance parseGroundDistance(const std::string& name);

/// Distance between two sets: exact EMD (seed 001 Eq. 1-2) or Chamfer (Chamfer.h).
enum class SetDistance { Emd, Chamfer };
const char* setDistanceName(SetDistance d);
SetDistance parseSetDistance(const std::string& name); ///< "emd" | "chamfer"; throws std::invalid_argument otherwise

/// A weighted set viewed in place (not owned): n points of dimension d (row-major float32)
/// and n non-negative weights.
struct PointSet {
    const float* points = nullptr;
    const float* weights = nullptr;
    std::int64_t n = 0;
    int d = 0;
};

/// Item `i` of a dataset as a PointSet (valid while the dataset lives).
PointSet pointSet(const data::Dataset& ds, std::size_t i);

/// Checks a set: n > 0, d > 0, finite points, finite non-negative weights with a positive
/// sum. `name` ("set A", "item 17") starts the message of the OtError thrown otherwise.
void validate(const PointSet& s, const std::string& name);

} // namespace setscope::ot
