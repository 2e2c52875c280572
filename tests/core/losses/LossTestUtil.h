// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// What the loss tests share: a LossSpec from a schema and typed options, std::vector <->
// tensor conversions for the scalar reference implementations, and the per-device rows.

#include <setscope/sdk/Model.h>

#include <torch/torch.h>

#include <QtTest>

#include <limits>
#include <map>
#include <string>
#include <vector>

namespace setscope::losstest {

using Matrix = std::vector<std::vector<double>>;

/// A LossSpec whose options are `given` resolved against `schema`, as the host does.
inline sdk::LossSpec spec(const sdk::OptionSchema& schema, const std::map<std::string, std::string>& given = {},
                          std::int64_t embeddingDim = 2, std::int64_t numClasses = 0, std::int64_t datasetSize = 0)
{
    sdk::LossSpec s;
    s.options = sdk::OptionValues::resolve(schema, given, "loss under test");
    s.embeddingDim = embeddingDim;
    s.numClasses = numClasses;
    s.datasetSize = datasetSize;
    return s;
}

/// Rows x cols float32 tensor from nested vectors (each row the same length).
inline torch::Tensor tensorOf(const Matrix& m, torch::Dtype dtype = torch::kFloat32)
{
    const auto rows = static_cast<std::int64_t>(m.size());
    const auto cols = rows ? static_cast<std::int64_t>(m[0].size()) : 0;
    torch::Tensor t = torch::empty({rows, cols}, torch::kFloat64);
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j)
            t[i][j] = m[std::size_t(i)][std::size_t(j)];
    return t.to(dtype);
}

/// The values of a 2-D tensor (any device, any floating dtype) as doubles.
inline Matrix matrixOf(const torch::Tensor& t)
{
    const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat64).contiguous();
    Matrix m(std::size_t(c.size(0)), std::vector<double>(std::size_t(c.size(1))));
    const double* p = c.data_ptr<double>();
    for (std::size_t i = 0; i < m.size(); ++i)
        for (std::size_t j = 0; j < m[i].size(); ++j)
            m[i][j] = p[i * m[i].size() + j];
    return m;
}

/// Semi-hard choice by the definition (the reference the mining is checked against), over the
/// columns with cand[n]: the closest with d > dPos (ties: lowest index), else the farthest
/// (ties: lowest index), else -1.
inline std::int64_t bruteSemiHard(const std::vector<double>& d, double dPos, const std::vector<bool>& cand)
{
    std::int64_t best = -1, far = -1;
    double bestD = std::numeric_limits<double>::infinity(), farD = -std::numeric_limits<double>::infinity();
    for (std::size_t n = 0; n < d.size(); ++n) {
        if (!cand[n])
            continue;
        if (d[n] > dPos && d[n] < bestD) {
            bestD = d[n];
            best = std::int64_t(n);
        }
        if (far < 0 || d[n] > farD) {
            farD = d[n];
            far = std::int64_t(n);
        }
    }
    return best >= 0 ? best : far;
}

inline double sqDist(const std::vector<double>& x, const std::vector<double>& y)
{
    double s = 0;
    for (std::size_t k = 0; k < x.size(); ++k)
        s += (x[k] - y[k]) * (x[k] - y[k]);
    return s;
}

/// Random symmetric B x B EMD-like matrix with zero diagonal and entries in [lo, hi).
inline Matrix randomEmd(std::int64_t b, double lo, double hi)
{
    const torch::Tensor r = torch::rand({b, b}, torch::kFloat64) * (hi - lo) + lo;
    Matrix m = matrixOf(r);
    for (std::size_t i = 0; i < m.size(); ++i) {
        m[i][i] = 0;
        for (std::size_t j = 0; j < i; ++j)
            m[i][j] = m[j][i];
    }
    return m;
}

/// Adds the "device" column with a cpu row and, when present, a cuda:0 row.
inline void addDeviceRows()
{
    QTest::addColumn<QString>("device");
    QTest::newRow("cpu") << "cpu";
    if (torch::cuda::is_available())
        QTest::newRow("cuda:0") << "cuda:0";
}

} // namespace setscope::losstest
