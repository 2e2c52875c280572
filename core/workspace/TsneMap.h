// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// A t-SNE map of every item as `setscope-cli tsne` asks for it (issue 30 §2): the vectors to map
// (a .npy file's rows, a dataset's items, or their embeddings by a checkpoint), reduced by PCA,
// mapped by layout::FastTsne with the time of each part, and optionally timed again from the
// finished map (a warm start, what a live map costs per training snapshot). The front end turns
// its flags into these calls and prints.

#include "core/data/Dataset.h"
#include "core/layout/FastTsne.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace setscope::model {
class ModelHandle;
}

namespace setscope::workspace {

/// The vectors a map is made of: n x d, row-major, and a line saying where they come from.
struct TsneInput {
    std::vector<float> x;
    std::int64_t n = 0;
    int d = 0;
    std::string source;
};

/// The rows of an n x d .npy, the first `subset` of them (0: all). Throws sdk::InputError naming
/// the file (and row and column) for another shape, a NaN or a value whose squared distances
/// would overflow (the range of every dataset's values, util/FloatRange.h).
TsneInput tsneInputFromNpy(const std::string& path, std::int64_t subset);

/// The first `subset` items of `ds` (0: all): each item's vector (a set: the weighted mean of
/// its elements), or its embedding by `model` (named `modelName`) when one is given.
TsneInput tsneInputFromDataset(const data::Dataset& ds, std::int64_t subset, const model::ModelHandle* model = nullptr,
                               const std::string& modelName = {});

/// Reduces the input to its first `components` principal components when it has more
/// dimensions (and more than one row); returns the seconds it took.
double reduceByPca(TsneInput& input, int components);

/// What a map took, in seconds.
struct TsneTimings {
    double affinities = 0.0;
    double iterations = 0.0;
    double warmAffinities = 0.0; ///< with warm iterations
    double warmIterations = 0.0;
};

struct TsneMap {
    std::vector<float> map; ///< n x 2, rows in item order
    bool fft = false;       ///< the repulsion by FFT interpolation (else exact)
    double learningRate = 0.0;
    TsneTimings seconds;
};

/// `options.maxIterations` iterations from the affinities of `input`; `progress` (may be empty)
/// gets the iteration count every 10. With `warmIterations` > 0 the affinities are computed
/// again and that many iterations timed from the finished map (the map returned is the cold one).
TsneMap mapByTsne(const TsneInput& input, const layout::FastTsneOptions& options, int warmIterations = 0,
                  const std::function<void(int iteration)>& progress = {});

} // namespace setscope::workspace
