// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/ot/PointSet.h"

#include "core/data/Dataset.h"
#include "core/util/FloatRange.h"

#include <cmath>

namespace setscope::ot {

const char* groundDistanceName(GroundDistance g)
{
    switch (g) {
    case GroundDistance::Euclidean: return "euclidean";
    case GroundDistance::SquaredEuclidean: return "sqeuclidean";
    case GroundDistance::Cosine: return "cosine";
    }
    return "?";
}

const char* setDistanceName(SetDistance d)
{
    switch (d) {
    case SetDistance::Emd: return "emd";
    case SetDistance::Chamfer: return "chamfer";
    }
    return "?";
}

SetDistance parseSetDistance(const std::string& name)
{
    if (name == "emd")
        return SetDistance::Emd;
    if (name == "chamfer")
        return SetDistance::Chamfer;
    throw std::invalid_argument("unknown set distance '" + name + "' (emd, chamfer)");
}

GroundDistance parseGroundDistance(const std::string& name)
{
    if (name == "euclidean")
        return GroundDistance::Euclidean;
    if (name == "sqeuclidean")
        return GroundDistance::SquaredEuclidean;
    if (name == "cosine")
        return GroundDistance::Cosine;
    throw std::invalid_argument("unknown ground distance '" + name + "' (euclidean, sqeuclidean, cosine)");
}

PointSet pointSet(const data::Dataset& ds, std::size_t i)
{
    const data::ItemView it = ds.item(i);
    return {it.values, it.weights, static_cast<std::int64_t>(it.count), it.dim};
}

void validate(const PointSet& s, const std::string& name)
{
    if (s.n <= 0)
        throw OtError(name + " is empty");
    if (s.d <= 0)
        throw OtError(name + " has dimension " + std::to_string(s.d));
    if (!s.points || !s.weights)
        throw OtError(name + " has no data");
    double total = 0.0;
    const double bound = util::maxSafeMagnitude(s.d);
    for (std::int64_t i = 0; i < s.n; ++i) {
        const float w = s.weights[i];
        if (!std::isfinite(w) || w < 0.0f)
            throw OtError(name + ": element " + std::to_string(i) + " has weight " + std::to_string(w) +
                          " (weights must be finite and non-negative)");
        total += w;
        // Beyond the bound, the float cost matrix overflows (util/FloatRange.h): refused here,
        // for sets that did not come through a dataset's checks.
        for (int k = 0; k < s.d; ++k)
            if (!(std::fabs(s.points[i * s.d + k]) <= bound)) // also NaN
                throw OtError(name + ": element " + std::to_string(i) + ", component " + std::to_string(k) + " is " +
                              util::valueProblem(s.points[i * s.d + k], s.d));
    }
    if (!(total > 0.0))
        throw OtError(name + " has zero total weight");
}

} // namespace setscope::ot
