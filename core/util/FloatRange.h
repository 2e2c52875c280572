// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// The range of values setscope's numeric paths take (docs/RELIABILITY.md, "Values"). FAISS,
// the cost matrices and the encoders compute squared distances, norms and products in float:
// a value that is finite but huge makes them overflow to infinity (or NaN), and FAISS then
// answers id -1 or asserts (issue 29 §2). Values from files are refused at load time beyond
// these bounds, naming the file and the row; values made in memory (embeddings of a diverging
// run) are scaled by a power of two where only ranks matter (kNN, t-SNE).

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

namespace setscope::util {

/// The largest magnitude a component of a `dim`-dimensional vector may have:
/// sqrt(FLT_MAX / (4 dim)). Then every squared distance between two such vectors,
/// |x - y|² <= dim (2 m)², and every |x|² + |y|² and 2 x.y that FAISS and the cost matrices
/// compute in float, stays below FLT_MAX. 9.2e18 for 1-d values (so every value whose square
/// overflows float is beyond it), 6.5e18 for 2-d, 3.3e17 for 784-d.
inline double maxSafeMagnitude(int dim)
{
    return std::sqrt(static_cast<double>(FLT_MAX) / (4.0 * static_cast<double>(dim < 1 ? 1 : dim)));
}

/// The largest weight of a set element: a weight times a value of 1-d data stays below FLT_MAX.
inline double maxSafeWeight() { return maxSafeMagnitude(1); }

/// `v` as "%.6g" prints it: "1e+20", "0.5", "-3.40282e+38", "nan".
inline std::string formatValue(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/// "" when `v` is finite and within maxSafeMagnitude(dim); else what is wrong with it, to follow
/// "... is": "NaN", "infinite", "1e+20, beyond ±6.52e+18 (in 2-d data a squared distance would
/// overflow float)".
inline std::string valueProblem(double v, int dim)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return "infinite";
    const double bound = maxSafeMagnitude(dim);
    if (std::fabs(v) <= bound)
        return {};
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.6g, beyond \xc2\xb1%.3g (in %d-d data a squared distance would overflow float)", v,
                  bound, dim < 1 ? 1 : dim);
    return buf;
}

} // namespace setscope::util
