// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/layout/FastTsne.h"
#include "core/layout/LayoutJob.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::job {
class JobControl;
}
namespace setscope::plugin {
class Registry;
}
namespace setscope::model {
class ModelHandle;
}

namespace setscope::workspace {

/// The t-SNE map of a model's embedding of some items: what the GUI's Compare view puts
/// beside the main map (two runs side by side). With `start` (the other map's positions of
/// the same items, items.size() x 2) the t-SNE warm-starts from it for `warmIterations`, so
/// the two maps are aligned and a cluster sits where it sits in the other; without it, a cold
/// start of options.maxIterations. Throws std::invalid_argument (modelMismatch(), bad items,
/// a start of the wrong size), job::Cancelled through `control`. `progress` (may be empty)
/// gets (done, total, what).
struct ModelMapOptions {
    layout::FastTsneOptions tsne;
    int warmIterations = 500;
};
layout::Layout mapModel(const data::Dataset& ds, const model::ModelHandle& model, const std::vector<std::int64_t>& items,
                        const std::vector<float>* start, const ModelMapOptions& options, job::JobControl* control,
                        const std::function<void(std::int64_t, std::int64_t, const std::string&)>& progress = {});

} // namespace setscope::workspace
