// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/Dataset.h"

#include <setscope/sdk/Options.h>

#include <cstdint>
#include <string>

namespace setscope::data {

/// Hierarchical Gaussian clusters, like the toy data of Weak Metric Learning (seed 003
/// §3.2, §4.1): `coarseClasses` coarse centres drawn from N(0, coarseSpread² I), each with
/// `finePerCoarse` fine centres drawn around it from N(c, fineSpread² I), and
/// `pointsPerFine` points around each fine centre from N(f, pointSpread² I).
/// Every item is a set of `setSize` such points from one fine class (setSize = 1: plain
/// vectors). Label sets "fine" and "coarse"; a stratified `testFraction` goes to the test
/// split. Deterministic for a given spec (std::mt19937_64 seeded with `seed`).
struct SyntheticSpec {
    int dim = 3;
    int coarseClasses = 4;
    int finePerCoarse = 2;
    int pointsPerFine = 150;
    int setSize = 1;
    double coarseSpread = 10.0;
    double fineSpread = 3.0;
    double pointSpread = 1.0;
    double testFraction = 0.25;
    std::uint64_t seed = 7;

    /// The options of "synthetic:key=value,...": dim, coarse, fine, points, set,
    /// coarse_spread, fine_spread, point_spread, test, seed (defaults as above).
    static sdk::OptionSchema schema();
    /// From values resolved against schema().
    static SyntheticSpec fromValues(const sdk::OptionValues& values);
    /// Parses "key=value,key=value" (e.g. "dim=8,coarse=3,fine=4,points=200") against
    /// schema(); throws std::invalid_argument naming an unknown key (and the known ones) or
    /// a bad value (and what is allowed).
    static SyntheticSpec parse(const std::string& text);
};

Dataset makeHierarchicalGaussians(const SyntheticSpec& spec);

/// A copy of `ds` whose splits are a stratified random train/test split by `labelSet`
/// (unlabelled items are split at random too). Used when a dataset ships with no test split.
Dataset withStratifiedTestSplit(const Dataset& ds, const std::string& labelSet, double testFraction, std::uint64_t seed);

} // namespace setscope::data
