// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// Shared by the set-encoder tests: specs, random sets, device rows, and padded batches built
// by hand, so a test controls the amount of padding and what the padded slots hold.

#include <setscope/sdk/Model.h>

#include <torch/torch.h>

#include <QtTest>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace setscope::testutil {

/// `sets` (each n_i x D, n_i >= 0) padded to `s` slots (>= every n_i). `garbage`: padded
/// slots hold large random values instead of zeros (a masked encoder must not see them).
/// The weights are 1 on real elements, 0 on padding.
inline sdk::SetBatch padSets(const std::vector<torch::Tensor>& sets, std::int64_t d, std::int64_t s, bool garbage,
                             const torch::Device& device)
{
    const auto b = static_cast<std::int64_t>(sets.size());
    torch::Tensor values = garbage ? torch::randn({b, s, d}) * 50 : torch::zeros({b, s, d});
    torch::Tensor mask = torch::zeros({b, s}, torch::kBool);
    for (std::int64_t r = 0; r < b; ++r) {
        const std::int64_t n = sets[static_cast<std::size_t>(r)].size(0);
        if (n == 0)
            continue;
        values[r].narrow(0, 0, n).copy_(sets[static_cast<std::size_t>(r)]);
        mask[r].narrow(0, 0, n).fill_(true);
    }
    return {values.to(device), mask.to(torch::kFloat32).to(device), mask.to(device)};
}

/// Each set alone, without padding: the reference a padded batch must agree with.
inline torch::Tensor encodeEachAlone(sdk::SetEncoder& enc, const std::vector<torch::Tensor>& sets, std::int64_t d,
                                     const torch::Device& device)
{
    std::vector<torch::Tensor> rows;
    for (const torch::Tensor& set : sets)
        rows.push_back(enc.forward(padSets({set}, d, set.size(0), false, device)));
    return torch::cat(rows, 0);
}

inline double maxAbsDiff(const torch::Tensor& a, const torch::Tensor& b)
{
    return (a.cpu().to(torch::kFloat64) - b.cpu().to(torch::kFloat64)).abs().max().item<double>();
}

inline std::int64_t parameterCount(torch::nn::Module& m)
{
    std::int64_t n = 0;
    for (const torch::Tensor& p : m.parameters())
        n += p.numel();
    return n;
}

/// The message of the std::invalid_argument that `make` throws, or "" when it throws none.
template <class F>
std::string invalidArgumentMessage(F make)
{
    try {
        make();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return {};
}

/// An encoder spec: `inputDim` in, 64 out, the given options resolved against the schema of
/// `Impl` as the registry resolves them (a bad option throws std::invalid_argument here).
template <class Impl>
sdk::EncoderSpec spec(std::int64_t inputDim, const std::map<std::string, std::string>& options = {})
{
    sdk::EncoderSpec s;
    s.inputDim = inputDim;
    s.outputDim = 64;
    s.options = sdk::OptionValues::resolve(Impl::schema(), options, "encoder " + std::string(Impl::kName));
    return s;
}

/// One random set (n x d, standard normal) per size.
inline std::vector<torch::Tensor> randomSets(const std::vector<std::int64_t>& sizes, std::int64_t d)
{
    std::vector<torch::Tensor> sets;
    for (std::int64_t n : sizes)
        sets.push_back(torch::randn({n, d}));
    return sets;
}

/// Qt Test data rows "cpu" and, when a GPU is visible, "cuda:0" (column "device").
inline void addDeviceRows()
{
    QTest::addColumn<QString>("device");
    QTest::newRow("cpu") << "cpu";
    if (torch::cuda::is_available())
        QTest::newRow("cuda:0") << "cuda:0";
}

} // namespace setscope::testutil
