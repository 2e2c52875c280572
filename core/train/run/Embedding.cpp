// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/Embedding.h"

#include "core/data/Dataset.h"
#include "core/job/Job.h"
#include "core/nn/Collate.h"
#include "core/plugin/Registry.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace setscope::train::run {

sdk::EncoderSpec encoderSpec(const plugin::Registry& registry, const TrainerConfig& c, std::int64_t inputDim)
{
    sdk::EncoderSpec s;
    s.inputDim = inputDim;
    s.outputDim = c.embeddingDim;
    s.options = sdk::OptionValues::resolve(registry.requireEncoder(c.model).options, c.modelOptions, "model " + c.model);
    return s;
}

std::vector<float> embedSets(sdk::SetEncoder& enc, std::span<const sdk::SetRef> sets, std::int64_t inputDim,
                             const torch::Device& device, job::JobControl* control)
{
    torch::NoGradGuard noGrad;
    const bool wasTraining = enc.is_training();
    enc.eval();
    const std::int64_t dim = enc.outputDim();
    std::vector<float> out(sets.size() * static_cast<std::size_t>(dim));
    constexpr std::size_t kBatch = 2048;
    for (std::size_t b0 = 0; b0 < sets.size(); b0 += kBatch) {
        if (control)
            control->checkpoint();
        const std::size_t n = std::min(kBatch, sets.size() - b0);
        const torch::Tensor e = enc.forward(nn::collateSets(sets.subspan(b0, n), inputDim, device)).to(torch::kCPU).contiguous();
        std::copy(e.data_ptr<float>(), e.data_ptr<float>() + e.numel(), out.begin() + static_cast<std::ptrdiff_t>(b0 * dim));
    }
    if (wasTraining)
        enc.train();
    return out;
}

std::vector<float> embedItems(sdk::SetEncoder& enc, const data::Dataset& ds, const std::vector<std::int64_t>& items,
                              const torch::Device& device, job::JobControl* control)
{
    return embedSets(enc, nn::setRefs(ds, items), ds.dim(), device, control);
}

std::vector<std::int64_t> allItems(const data::Dataset& ds)
{
    std::vector<std::int64_t> v(ds.size());
    std::iota(v.begin(), v.end(), 0);
    return v;
}

torch::Tensor metricProjection(const sdk::MetricLoss& loss, std::int64_t encoderDim)
{
    const torch::Tensor p = loss.embeddingProjection();
    if (!p.defined())
        return {};
    if (p.dim() != 2 || p.size(0) != encoderDim || p.size(1) < 1)
        throw std::logic_error("the loss's embedding projection is not " + std::to_string(encoderDim) + " x l");
    return p.detach().to(torch::kCPU, torch::kFloat32).clone();
}

std::vector<float> projectRows(std::vector<float> rows, int& dim, const torch::Tensor& projection)
{
    if (!projection.defined() || rows.empty())
        return rows;
    const auto n = static_cast<std::int64_t>(rows.size()) / dim;
    const torch::Tensor z = torch::from_blob(rows.data(), {n, dim}, torch::kFloat32);
    const torch::Tensor out = z.matmul(projection).contiguous();
    dim = static_cast<int>(projection.size(1));
    return std::vector<float>(out.data_ptr<float>(), out.data_ptr<float>() + out.numel());
}

} // namespace setscope::train::run
