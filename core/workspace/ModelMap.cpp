// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/ModelMap.h"

#include "core/data/Dataset.h"
#include "core/model/ModelHandle.h"
#include "core/workspace/ItemText.h"
#include "core/workspace/Retrieval.h"

#include <stdexcept>

namespace setscope::workspace {

layout::Layout mapModel(const data::Dataset& ds, const model::ModelHandle& model, const std::vector<std::int64_t>& items,
                        const std::vector<float>* start, const ModelMapOptions& options, job::JobControl* control,
                        const std::function<void(std::int64_t, std::int64_t, const std::string&)>& progress)
{
    const std::string why = modelMismatch(model, ds);
    if (!why.empty())
        throw std::invalid_argument(why);
    if (items.empty())
        throw std::invalid_argument("no items to map");
    for (const std::int64_t i : items)
        requireItem(ds, i);
    if (start && start->size() != items.size() * 2)
        throw std::invalid_argument("the start map has " + std::to_string(start->size() / 2) + " points for " +
                                    std::to_string(items.size()) + " items");
    auto report = [&](std::int64_t d, std::int64_t t, const std::string& w) {
        if (progress)
            progress(d, t, w);
    };
    report(0, 0, "embedding " + std::to_string(items.size()) + " items (step " + std::to_string(model.step()) + ")");
    const std::vector<float> x = model.embed(ds, items, control);
    report(0, 0, "t-SNE affinities");
    layout::FastTsneOptions o = options.tsne;
    if (start)
        o.maxIterations = options.warmIterations;
    layout::FastTsne tsne(x.data(), static_cast<std::int64_t>(items.size()), model.dim(), o, control);
    if (start)
        tsne.initialize(start->data());
    while (!tsne.done()) {
        tsne.step(25, control);
        report(tsne.iteration(), o.maxIterations, "t-SNE iterations");
    }
    layout::Layout out;
    out.items = items;
    out.xy = tsne.embedding();
    out.sourceStep = model.step();
    out.iteration = tsne.iteration();
    out.converged = true;
    return out;
}

} // namespace setscope::workspace
