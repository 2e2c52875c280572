// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/WorkspaceJobs.h"

#include "core/data/Dataset.h"
#include "core/model/ModelHandle.h"
#include "core/workspace/ItemText.h"

#include <chrono>

namespace setscope::workspace {

std::unique_ptr<job::TaskJob<RetrievalOutcome>> makeRetrievalJob(std::shared_ptr<const data::Dataset> dataset,
                                                                 std::shared_ptr<const model::ModelHandle> model,
                                                                 std::shared_ptr<const std::vector<float>> database,
                                                                 std::int64_t query, RetrievalOptions options)
{
    const std::string what = "retrieving item " + std::to_string(query) + " of '" + dataset->name() + "'";
    return std::make_unique<job::TaskJob<RetrievalOutcome>>(
        what, [dataset, model, database, query, options](job::JobControl& control, const auto& progress) {
            RetrievalOutcome out;
            out.database = database;
            if (!out.database) {
                progress(0, 0, "embedding the " + std::to_string(dataset->size()) + " items of '" + dataset->name() + "'");
                const auto t0 = std::chrono::steady_clock::now();
                out.database = std::make_shared<const std::vector<float>>(model->embed(*dataset, {}, &control));
                out.databaseSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
            RetrievalOptions o = options;
            o.control = &control;
            o.progress = [&progress](std::int64_t done, std::int64_t total) { progress(done, total, "exact EMD search"); };
            out.result = compareRetrieval(*dataset, *model, *out.database, query, o);
            return out;
        });
}

std::unique_ptr<job::TaskJob<AugmentPreview>> makeAugmentJob(std::shared_ptr<const data::Dataset> dataset,
                                                             AugmentRequest request, Partner partner,
                                                             std::shared_ptr<const Vocabulary> vocabulary)
{
    const std::string what = std::string(augmentMethodName(request.method)) + " of item " +
                             std::to_string(request.item) + " of '" + dataset->name() + "'";
    return std::make_unique<job::TaskJob<AugmentPreview>>(
        what, [dataset, request, partner, vocabulary](job::JobControl& control, const auto&) {
            // PointMixup names its mixed vectors by their nearest words: without a vocabulary
            // given, one is made here, off the caller's thread.
            std::unique_ptr<Vocabulary> own;
            const Vocabulary* vocab = vocabulary.get();
            if (!vocab && request.method == AugmentMethod::PointMixup && dataset->hasElementText()) {
                own = std::make_unique<Vocabulary>(*dataset);
                vocab = own.get();
            }
            return previewAugmentation(*dataset, request, partner, vocab, &control);
        });
}

std::unique_ptr<job::TaskJob<SetFlow>> makeSetFlowJob(std::shared_ptr<const data::Dataset> dataset, std::int64_t a,
                                                      std::int64_t b, ot::GroundDistance ground)
{
    const std::string what = "EMD flow between items " + std::to_string(a) + " and " + std::to_string(b);
    return std::make_unique<job::TaskJob<SetFlow>>(what, [dataset, a, b, ground](job::JobControl& control, const auto&) {
        return computeSetFlow(*dataset, a, b, ground, &control);
    });
}

std::unique_ptr<job::TaskJob<std::vector<eval::MetricValue>>> makeBaselineJob(std::shared_ptr<const data::Dataset> dataset,
                                                                             std::string labelSet)
{
    const std::string what = "scoring raw vectors of '" + dataset->name() + "' (" + labelSet + ")";
    return std::make_unique<job::TaskJob<std::vector<eval::MetricValue>>>(
        what, [dataset, labelSet](job::JobControl& control, const auto&) {
            return eval::evaluateRawMetrics(*dataset, labelSet, eval::standardMetrics(), &control);
        });
}

} // namespace setscope::workspace
