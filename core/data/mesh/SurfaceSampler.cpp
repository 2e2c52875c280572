// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/mesh/SurfaceSampler.h"

#include <setscope/sdk/Errors.h>

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace setscope::data::mesh {

using sdk::InputError;

namespace {

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/// Uniform index in [0, n).
std::size_t uniformIndex(std::mt19937_64& rng, std::size_t n)
{
    const auto i = static_cast<std::size_t>(uniform01(rng) * static_cast<double>(n));
    return std::min(i, n - 1);
}

} // namespace

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::uint64_t fileSeed(std::uint64_t seed, const std::string& relativePath)
{
    return splitmix64(seed ^ XXH3_64bits(relativePath.data(), relativePath.size()));
}

std::vector<float> sampleSurface(const TriangleMesh& mesh, int n, std::mt19937_64& rng, const std::string& file)
{
    if (mesh.triangleCount() == 0)
        throw InputError(file, "", "empty mesh: no faces to sample points from");
    const float* v = mesh.vertices.data();
    std::vector<std::uint32_t> tris; // triangles with positive area
    std::vector<double> cum;         // cumulative areas of `tris`
    double total = 0;
    for (std::size_t t = 0; t < mesh.triangleCount(); ++t) {
        const float* a = v + 3 * mesh.triangles[3 * t];
        const float* b = v + 3 * mesh.triangles[3 * t + 1];
        const float* c = v + 3 * mesh.triangles[3 * t + 2];
        const double u[3] = {double(b[0]) - a[0], double(b[1]) - a[1], double(b[2]) - a[2]};
        const double w[3] = {double(c[0]) - a[0], double(c[1]) - a[1], double(c[2]) - a[2]};
        const double x = u[1] * w[2] - u[2] * w[1], y = u[2] * w[0] - u[0] * w[2], z = u[0] * w[1] - u[1] * w[0];
        const double area = 0.5 * std::sqrt(x * x + y * y + z * z);
        if (!(area > 0))
            continue;
        total += area;
        tris.push_back(static_cast<std::uint32_t>(t));
        cum.push_back(total);
    }
    if (tris.empty())
        throw InputError(file, "",
                         "all faces degenerate: none of the " + std::to_string(mesh.triangleCount()) +
                             " triangles has a positive area");
    std::vector<float> out(static_cast<std::size_t>(n) * 3);
    for (int i = 0; i < n; ++i) {
        const double target = uniform01(rng) * total;
        std::size_t k = static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), target) - cum.begin());
        k = std::min(k, tris.size() - 1);
        const std::uint32_t t = tris[k];
        const float* a = v + 3 * mesh.triangles[3 * t];
        const float* b = v + 3 * mesh.triangles[3 * t + 1];
        const float* c = v + 3 * mesh.triangles[3 * t + 2];
        const double s = std::sqrt(uniform01(rng));
        const double r2 = uniform01(rng);
        const double wa = 1.0 - s, wb = s * (1.0 - r2), wc = s * r2;
        for (int d = 0; d < 3; ++d)
            out[3 * std::size_t(i) + d] = static_cast<float>(wa * a[d] + wb * b[d] + wc * c[d]);
    }
    return out;
}

std::vector<float> samplePointSet(const TriangleMesh& set, int n, std::mt19937_64& rng, bool& withReplacement,
                                  const std::string& file)
{
    const std::size_t count = set.vertexCount();
    if (count == 0)
        throw InputError(file, "", "empty point set: no points");
    const auto want = static_cast<std::size_t>(n);
    std::vector<std::size_t> pick;
    withReplacement = count < want;
    if (!withReplacement) {
        // Partial Fisher-Yates: the first `want` entries become a uniform random subset.
        std::vector<std::size_t> idx(count);
        std::iota(idx.begin(), idx.end(), std::size_t(0));
        for (std::size_t i = 0; i < want; ++i)
            std::swap(idx[i], idx[i + uniformIndex(rng, count - i)]);
        pick.assign(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(want));
    } else {
        pick.resize(count);
        std::iota(pick.begin(), pick.end(), std::size_t(0));
        while (pick.size() < want)
            pick.push_back(uniformIndex(rng, count));
    }
    std::vector<float> out(want * 3);
    for (std::size_t i = 0; i < want; ++i)
        for (int d = 0; d < 3; ++d)
            out[3 * i + d] = set.vertices[3 * pick[i] + d];
    return out;
}

void normaliseToUnitSphere(std::vector<float>& points, const std::string& file)
{
    const std::size_t n = points.size() / 3;
    if (n == 0)
        throw InputError(file, "", "no points to normalise");
    double c[3] = {0, 0, 0};
    for (std::size_t i = 0; i < n; ++i)
        for (int d = 0; d < 3; ++d)
            c[d] += points[3 * i + d];
    for (double& x : c)
        x /= static_cast<double>(n);
    double maxNorm2 = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double r2 = 0;
        for (int d = 0; d < 3; ++d) {
            const double x = points[3 * i + d] - c[d];
            r2 += x * x;
        }
        maxNorm2 = std::max(maxNorm2, r2);
    }
    if (!(maxNorm2 > 0))
        throw InputError(file, "", "all points coincide: the shape has no extent to scale to the unit sphere");
    const double s = 1.0 / std::sqrt(maxNorm2);
    for (std::size_t i = 0; i < n; ++i)
        for (int d = 0; d < 3; ++d)
            points[3 * i + d] = static_cast<float>((points[3 * i + d] - c[d]) * s);
}

void jitter(std::vector<float>& points, float sigma, float clip, std::mt19937_64& rng)
{
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    for (std::size_t i = 0; i < points.size(); i += 2) {
        // Box-Muller: two independent N(0, 1) from two uniforms (1 - u keeps the log finite).
        const double u1 = 1.0 - uniform01(rng), u2 = uniform01(rng);
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double g[2] = {r * std::cos(kTwoPi * u2), r * std::sin(kTwoPi * u2)};
        for (std::size_t k = 0; k < 2 && i + k < points.size(); ++k)
            points[i + k] += static_cast<float>(std::clamp(sigma * g[k], -double(clip), double(clip)));
    }
}

std::vector<float> meshToPointCloud(const TriangleMesh& mesh, const SamplingOptions& options, std::mt19937_64& rng,
                                    const std::string& file, bool* withReplacement)
{
    if (options.points < 1)
        throw std::invalid_argument("meshToPointCloud: points must be positive");
    bool repl = false;
    std::vector<float> pts = mesh.pointSet ? samplePointSet(mesh, options.points, rng, repl, file)
                                           : sampleSurface(mesh, options.points, rng, file);
    if (withReplacement)
        *withReplacement = repl;
    normaliseToUnitSphere(pts, file);
    if (options.jitter)
        jitter(pts, options.jitterSigma, options.jitterClip, rng);
    return pts;
}

} // namespace setscope::data::mesh
