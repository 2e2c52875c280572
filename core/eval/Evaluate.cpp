// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/eval/Evaluate.h"

#include "core/data/Dataset.h"
#include "core/eval/Knn.h"

#include <stdexcept>

namespace setscope::eval {

namespace {
std::vector<std::int32_t> labelsOf(const std::vector<std::int32_t>& all, const std::vector<std::int64_t>& idx)
{
    std::vector<std::int32_t> out(idx.size());
    for (std::size_t i = 0; i < idx.size(); ++i)
        out[i] = all[static_cast<std::size_t>(idx[i])];
    return out;
}
} // namespace

Evaluation evaluateEmbedding(const data::Dataset& ds, const float* vectors, int dim, const std::string& labelSet,
                             job::JobControl* control, int k)
{
    const data::LabelSet& ls = ds.requireLabelSet(labelSet);
    Evaluation ev;
    const auto train = ds.indices(data::Split::Train);
    const auto test = ds.indices(data::Split::Test);
    if (!train.empty() && !test.empty()) {
        ev.protocol = "test-vs-train";
        const MatrixView all{vectors, static_cast<std::int64_t>(ds.size()), dim};
        const auto tr = gatherRows(all, train);
        const auto te = gatherRows(all, test);
        const auto trL = labelsOf(ls.labels, train);
        const auto teL = labelsOf(ls.labels, test);
        const MatrixView trV{tr.data(), static_cast<std::int64_t>(train.size()), dim};
        const MatrixView teV{te.data(), static_cast<std::int64_t>(test.size()), dim};
        const KnnResult knn = knnClassify(trV, trL, teV, teL, k, false, control);
        ev.knnAccuracy = knn.accuracy;
        ev.queries = knn.evaluated;
        ev.recallAtK = recallAtK(teV, teL, ev.ks, control);
    } else {
        ev.protocol = "leave-one-out";
        const MatrixView all{vectors, static_cast<std::int64_t>(ds.size()), dim};
        const KnnResult knn = knnClassify(all, ls.labels, all, ls.labels, k, true, control);
        ev.knnAccuracy = knn.accuracy;
        ev.queries = knn.evaluated;
        ev.recallAtK = recallAtK(all, ls.labels, ev.ks, control);
    }
    return ev;
}

Evaluation evaluateRaw(const data::Dataset& ds, const std::string& labelSet, job::JobControl* control, int k)
{
    if (!ds.isVectorDataset())
        throw std::invalid_argument("raw-vector evaluation needs a plain vector dataset; '" + ds.name() +
                                    "' holds sets (compare under EMD instead)");
    return evaluateEmbedding(ds, ds.values().data(), ds.dim(), labelSet, control, k);
}

} // namespace setscope::eval
