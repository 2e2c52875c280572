// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/eval/Metrics.h"
#include "core/job/TaskJob.h"
#include "core/workspace/AugmentPreview.h"
#include "core/workspace/Retrieval.h"
#include "core/workspace/SetFlow.h"

#include <memory>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::model {
class ModelHandle;
}

namespace setscope::workspace {

class Vocabulary;

/// The workspace's requests as jobs for a caller that must not block (the GUI): each holds
/// what it reads (dataset, model) by shared pointer, so it may outlive its starter's interest.

struct RetrievalOutcome {
    RetrievalResult result;
    /// model.embed(dataset) of every item: pass it to the next query with the same model.
    std::shared_ptr<const std::vector<float>> database;
    double databaseSeconds = 0.0; ///< embedding the database, when this job did it (else 0)
};
/// compareRetrieval(); embeds the database first when `database` is null.
std::unique_ptr<job::TaskJob<RetrievalOutcome>> makeRetrievalJob(std::shared_ptr<const data::Dataset> dataset,
                                                                 std::shared_ptr<const model::ModelHandle> model,
                                                                 std::shared_ptr<const std::vector<float>> database,
                                                                 std::int64_t query, RetrievalOptions options);

/// previewAugmentation(); `vocabulary` may be null (it must be of `dataset`): PointMixup on
/// documents then makes one in the job.
std::unique_ptr<job::TaskJob<AugmentPreview>> makeAugmentJob(std::shared_ptr<const data::Dataset> dataset,
                                                             AugmentRequest request, Partner partner,
                                                             std::shared_ptr<const Vocabulary> vocabulary);

/// computeSetFlow().
std::unique_ptr<job::TaskJob<SetFlow>> makeSetFlowJob(std::shared_ptr<const data::Dataset> dataset, std::int64_t a,
                                                      std::int64_t b, ot::GroundDistance ground);

/// The standard scores (eval::standardMetrics()) of the raw vectors of a vector dataset under
/// `labelSet`: the baseline the Metrics panel shows beside a run.
std::unique_ptr<job::TaskJob<std::vector<eval::MetricValue>>> makeBaselineJob(std::shared_ptr<const data::Dataset> dataset,
                                                                             std::string labelSet);

} // namespace setscope::workspace
