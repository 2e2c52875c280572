// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/TsneMap.h"

#include "core/data/SetMeans.h"
#include "core/data/VectorLoaders.h"
#include "core/layout/Pca.h"
#include "core/model/ModelHandle.h"
#include "core/util/FloatRange.h"

#include <setscope/sdk/Errors.h>

#include <chrono>
#include <cmath>
#include <numeric>

namespace setscope::workspace {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

} // namespace

TsneInput tsneInputFromNpy(const std::string& path, std::int64_t subset)
{
    data::NpyArray a = data::readNpy(path);
    if (a.shape.size() != 2 || a.shape[0] < 1 || a.shape[1] < 1)
        throw sdk::InputError(path, "", "expected a 2-D array (n x d) of vectors, got " + std::to_string(a.shape.size()) +
                                            " dimensions");
    TsneInput in;
    in.n = static_cast<std::int64_t>(a.shape[0]);
    in.d = static_cast<int>(a.shape[1]);
    // The same range as every dataset's values: beyond it FAISS's float distances overflow.
    const double bound = util::maxSafeMagnitude(in.d);
    for (std::size_t k = 0; k < a.data.size(); ++k)
        if (!(std::fabs(a.data[k]) <= bound)) // also NaN
            throw sdk::InputError(path, "row " + std::to_string(k / static_cast<std::size_t>(in.d)),
                                  "column " + std::to_string(k % static_cast<std::size_t>(in.d)) + " is " +
                                      util::valueProblem(a.data[k], in.d));
    if (subset > 0 && subset < in.n) {
        in.n = subset;
        a.data.resize(static_cast<std::size_t>(in.n) * static_cast<std::size_t>(in.d));
    }
    in.x = std::move(a.data);
    in.source = path;
    return in;
}

TsneInput tsneInputFromDataset(const data::Dataset& ds, std::int64_t subset, const model::ModelHandle* model,
                               const std::string& modelName)
{
    TsneInput in;
    in.n = static_cast<std::int64_t>(ds.size());
    if (subset > 0 && subset < in.n)
        in.n = subset;
    std::vector<std::int64_t> items(static_cast<std::size_t>(in.n));
    std::iota(items.begin(), items.end(), std::int64_t{0});
    if (!model) {
        in.x = data::weightedMeans(ds, items);
        in.d = ds.dim();
        in.source = ds.name();
    } else {
        in.x = model->embed(ds, items);
        in.d = model->dim();
        in.source = ds.name() + " embedded by " + modelName;
    }
    return in;
}

double reduceByPca(TsneInput& input, int components)
{
    const auto t0 = Clock::now();
    if (components > 0 && components < input.d && input.n > 1) {
        input.x = layout::pca(input.x.data(), input.n, input.d, components);
        input.d = components;
    }
    return secondsSince(t0);
}

TsneMap mapByTsne(const TsneInput& input, const layout::FastTsneOptions& options, int warmIterations,
                  const std::function<void(int iteration)>& progress)
{
    TsneMap out;
    auto t0 = Clock::now();
    layout::FastTsne tsne(input.x.data(), input.n, input.d, options);
    out.seconds.affinities = secondsSince(t0);
    t0 = Clock::now();
    constexpr int kReportEvery = 10;
    while (!tsne.done()) {
        tsne.step(kReportEvery);
        if (progress)
            progress(tsne.iteration());
    }
    out.seconds.iterations = secondsSince(t0);
    out.map = tsne.embedding();
    out.fft = tsne.usesFft();
    out.learningRate = tsne.learningRate();
    if (warmIterations > 0) {
        t0 = Clock::now();
        tsne.setInput(input.x.data(), input.n, input.d);
        out.seconds.warmAffinities = secondsSince(t0);
        tsne.initialize(out.map.data());
        tsne.setMaxIterations(warmIterations);
        t0 = Clock::now();
        tsne.step(warmIterations);
        out.seconds.warmIterations = secondsSince(t0);
    }
    return out;
}

} // namespace setscope::workspace
