// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/Collate.h"

#include "core/data/Dataset.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace setscope::nn {

sdk::SetBatch collateSets(std::span<const sdk::SetRef> sets, std::int64_t dim, const torch::Device& device)
{
    const auto b = static_cast<std::int64_t>(sets.size());
    std::int64_t s = 1;
    for (const sdk::SetRef& r : sets)
        s = std::max(s, r.count);
    const std::int64_t d = dim;
    torch::Tensor values = torch::zeros({b, s, d}, torch::kFloat32);
    torch::Tensor weights = torch::zeros({b, s}, torch::kFloat32);
    torch::Tensor mask = torch::zeros({b, s}, torch::kBool);
    bool* m = mask.data_ptr<bool>();
    float* v = values.data_ptr<float>();
    float* w = weights.data_ptr<float>();
    for (std::int64_t r = 0; r < b; ++r) {
        const sdk::SetRef& it = sets[static_cast<std::size_t>(r)];
        if (it.count > 0 && it.dim != d)
            throw std::invalid_argument("collate: set " + std::to_string(r) + " has dimension " + std::to_string(it.dim) +
                                        ", the batch " + std::to_string(d));
        std::copy(it.values, it.values + it.count * d, v + r * s * d);
        std::copy(it.weights, it.weights + it.count, w + r * s);
        std::fill(m + r * s, m + r * s + it.count, true);
    }
    sdk::SetBatch batch;
    batch.mask = mask.to(device);
    batch.values = values.to(device);
    batch.weights = weights.to(device);
    return batch;
}

std::vector<sdk::SetRef> setRefs(const data::Dataset& ds, const std::vector<std::int64_t>& items)
{
    std::vector<sdk::SetRef> refs;
    refs.reserve(items.size());
    for (std::int64_t i : items) {
        const data::ItemView it = ds.item(static_cast<std::size_t>(i));
        refs.push_back({it.values, it.weights, static_cast<std::int64_t>(it.count), it.dim});
    }
    return refs;
}

sdk::SetBatch collate(const data::Dataset& ds, const std::vector<std::int64_t>& items, const torch::Device& device)
{
    const std::vector<sdk::SetRef> refs = setRefs(ds, items);
    return collateSets(refs, ds.dim(), device);
}

torch::Tensor collateLabels(const std::vector<std::int32_t>& labels, const std::vector<std::int64_t>& items,
                            const torch::Device& device)
{
    torch::Tensor t = torch::empty({static_cast<std::int64_t>(items.size())}, torch::kInt64);
    auto* p = t.data_ptr<std::int64_t>();
    for (std::size_t i = 0; i < items.size(); ++i)
        p[i] = labels[static_cast<std::size_t>(items[i])];
    return t.to(device);
}

} // namespace setscope::nn
