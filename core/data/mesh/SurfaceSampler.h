// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/mesh/MeshReaders.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace setscope::data::mesh {

/// How a mesh or point set becomes a point cloud (seed 001 §6.2.1, following PointNet /
/// PointMixup): N points, centred and scaled into the unit sphere, optionally jittered.
struct SamplingOptions {
    int points = 1024;          ///< N points per item
    std::uint64_t seed = 1;     ///< mixed with each file's relative path (see fileSeed)
    bool jitter = false;        ///< add clipped Gaussian noise after normalisation
    float jitterSigma = 0.01f;  ///< PointNet's jitter: N(0, sigma) per coordinate ...
    float jitterClip = 0.05f;   ///< ... clipped to [-clip, clip]
};

/// The random stream of one file: std::mt19937_64 seeded with splitmix64(seed ^ XXH3-64 of
/// `relativePath`), so a file's points depend on the seed and its path only, never on the
/// thread that samples it or on the other files.
std::uint64_t fileSeed(std::uint64_t seed, const std::string& relativePath);

/// Area-weighted uniform sampling of the surface: a triangle is drawn with probability
/// proportional to its area (cumulative sums + binary search), then a uniform point in it
/// (r1, r2 uniform: sqrt(r1) trick). Zero-area triangles are never drawn. Returns
/// `n` * 3 floats. Throws InputError(file) "empty mesh" when there are no triangles and
/// "all faces degenerate" when none has positive area.
std::vector<float> sampleSurface(const TriangleMesh& mesh, int n, std::mt19937_64& rng, const std::string& file = {});

/// Points of a point set: a random subset without replacement when it has at least `n`
/// points, else all points once plus the rest drawn with replacement (`withReplacement`
/// set to true). Throws InputError(file) for an empty set.
std::vector<float> samplePointSet(const TriangleMesh& set, int n, std::mt19937_64& rng, bool& withReplacement,
                                  const std::string& file = {});

/// Centres `points` (x y z rows) at their centroid and scales them so the farthest point
/// has norm 1. Throws InputError(file) when all points coincide.
void normaliseToUnitSphere(std::vector<float>& points, const std::string& file = {});

/// Adds N(0, sigma) to every coordinate, clipped to [-clip, clip].
void jitter(std::vector<float>& points, float sigma, float clip, std::mt19937_64& rng);

/// The whole pipeline for one mesh: sample (surface or point set), normalise, jitter.
/// `rng` should be seeded with fileSeed(). Returns options.points * 3 floats.
std::vector<float> meshToPointCloud(const TriangleMesh& mesh, const SamplingOptions& options, std::mt19937_64& rng,
                                    const std::string& file, bool* withReplacement = nullptr);

/// Uniform double in [0, 1) from 53 random bits (the same on every standard library).
double uniform01(std::mt19937_64& rng);

} // namespace setscope::data::mesh
