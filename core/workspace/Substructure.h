// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/eval/Metrics.h"
#include "core/eval/StructureScores.h"
#include "core/job/TaskJob.h"
#include "core/layout/FastTsne.h"
#include "core/layout/LayoutJob.h"

#include <cstdint>
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
namespace setscope::project {
class ProjectStore;
}
namespace setscope::model {
class ModelHandle;
}

namespace setscope::workspace {

/// The substructure report of a weak-metric run (seed 003 Figures 3, 4 and 9; the GUI's
/// Substructure view): the map of the same items before and after training on a coarse label
/// set, both to be coloured by the fine labels, with the scores that say how much of the fine
/// structure survived, all with respect to the fine labels: neighbourhood purity (§3.3), nDCG
/// with relevance 1 / 0.5 / 0 for same fine / same coarse only / other (§4.4) and the
/// context-sensitive loss (average penalty and total error, §4.4).
///
/// "Before" is the run's initial network when the run was started from a checkpoint
/// (TrainerConfig::initFrom: a retrain of the label loop, a fine-tuning run) and that file is
/// still there; otherwise the raw input features (the vectors of a vector dataset, the weighted
/// mean point of each set of a set dataset), i.e. what a model starts from. "After" is the run's
/// checkpoint (its best.pt when it has one).
///
/// Items and protocol: a stratified subset of the fine classes (train::snapshotSubset: the
/// test split first, `maxItems` of them, 0 = every item), the same for both sides; every score
/// is computed within those items, each item against all the others (leave-one-out), with the
/// registry's metrics (eval::builtinMetrics(): neighbourhood-purity k, ndcg over the full
/// ranking with gain 2^rel - 1) and eval::contextSensitiveLoss with the nearest neighbour as
/// the prediction on the average-linkage dendrogram of the fine classes' input means over the
/// whole dataset (fineClassTree(), the same tree for both sides). With items = the test split
/// these are the numbers of `setscope-cli eval --label-set FINE --coarse COARSE --metrics
/// neighbourhood-purity,ndcg,csl`.
struct SubstructureOptions {
    /// "" = the first of finerLabelSets(coarse), else a label set called "fine" (a hand-made set
    /// that does not nest, the report's note says so)
    std::string fineLabelSet;
    std::string coarseLabelSet; ///< "" = the label set the run was trained on
    int k = 10;                 ///< neighbours of neighbourhood purity
    int maxItems = 2000;        ///< items mapped and scored; 0 = every item
    std::uint64_t seed = 1;     ///< of the item subset
    layout::FastTsneOptions tsne;
};

/// One side of the report.
struct SubstructureSide {
    std::string what; ///< "raw input features (784-d)", "run's initial network (…, step 0)", "best.pt, step 900"
    int dim = 0;
    bool raw = false;             ///< the raw input features, no model
    std::vector<float> embedding; ///< items.size() x dim, row-major, in the report's item order
    layout::Layout map;           ///< t-SNE of `embedding`, cold start (map.items = the report's items)
    /// neighbourhood-purity, ndcg, csl-average, csl-total (substructureMetricNames()).
    std::vector<eval::MetricValue> metrics;
    /// The value of a metric by name; NaN when it is not there.
    double value(const std::string& name) const;
};

struct SubstructureReport {
    std::string fineLabelSet, coarseLabelSet;
    int k = 10;
    std::vector<std::int64_t> items; ///< dataset indices, ascending
    SubstructureSide before, after;
    /// Says when the coarse set does not group the fine one (a fine class split between coarse
    /// classes, as a hand-made lasso label set may); "" when it does.
    std::string note;
};

/// The four names a side's metrics hold, in this order.
const std::vector<std::string>& substructureMetricNames();

/// Label sets of `ds` that `coarse` groups: every class of such a set has its items (those
/// labelled in both) in one class of `coarse`, and it has more classes in use than `coarse`.
/// Most classes first (ties: dataset order). Empty when `coarse` is not a label set of `ds`.
std::vector<std::string> finerLabelSets(const data::Dataset& ds, const std::string& coarse);

/// The tree of the context-sensitive loss: the average-linkage dendrogram of the fine classes'
/// means of the input features over every item labelled in `fine` (what `setscope-cli eval
/// --metrics csl` builds, so both give the same CSL).
eval::Dendrogram fineClassTree(const data::Dataset& ds, const std::string& fine);

/// The scores of one embedding of `items` (rows of `embedding`, items.size() x dim) with
/// respect to `fine`, grouped by `coarse`, within the items (leave-one-out), CSL on `tree`
/// (fineClassTree()). What substructureReport() computes for each side; exposed for tests and
/// the CLI.
std::vector<eval::MetricValue> substructureScores(const data::Dataset& ds, const std::vector<std::int64_t>& items,
                                                  const std::vector<float>& embedding, int dim, const std::string& fine,
                                                  const std::string& coarse, int k, const eval::Dendrogram& tree,
                                                  job::JobControl* control = nullptr);

/// The input features of `items` (items.size() x ds.dim()): the vector of a vector dataset,
/// the weighted mean point of each set otherwise.
std::vector<float> inputFeaturesOf(const data::Dataset& ds, const std::vector<std::int64_t>& items);

/// The report of `after` (the run's model) against `before` (its initial network; null: the
/// raw input features). Runs on the calling thread; `control` (may be null) is polled for
/// cancel between and inside the stages (job::Cancelled); `progress` (may be empty) gets
/// (done, total, what). Throws std::invalid_argument with a message for the user when: the
/// coarse set (options, else after.config().labelSet) is not a label set of `ds`; none given,
/// the run's set groups none of the other sets and none is called "fine" ("… not on a coarse
/// label set", or "dataset 'x' has no fine label set …" when it has no other set); the fine
/// set given is not in `ds` ("dataset 'x' has no label set 'fine' (it has: …)"); fine and
/// coarse are the same set (the run was not trained on a coarse label set); a model cannot embed the dataset
/// (modelMismatch()); fewer than 3 labelled items to score.
SubstructureReport substructureReport(const data::Dataset& ds, const model::ModelHandle& after,
                                      const model::ModelHandle* before, const SubstructureOptions& options,
                                      job::JobControl* control,
                                      const std::function<void(std::int64_t, std::int64_t, const std::string&)>& progress = {});

/// Loads `checkpoint` (a run's best.pt or step-*.pt) and, when its configuration names an
/// initFrom checkpoint that exists, that one as "before"; then substructureReport(). Throws
/// what that throws and sdk::InputError for an unreadable checkpoint.
SubstructureReport substructureOfCheckpoint(const data::Dataset& ds, const std::string& checkpoint,
                                            const plugin::Registry& registry, const SubstructureOptions& options,
                                            job::JobControl* control,
                                            const std::function<void(std::int64_t, std::int64_t, const std::string&)>& progress = {});

/// substructureOfCheckpoint() as a job (the GUI's Substructure view). `registry` must outlive it.
std::unique_ptr<job::TaskJob<SubstructureReport>> makeSubstructureJob(std::shared_ptr<const data::Dataset> dataset,
                                                                      std::string checkpoint,
                                                                      const plugin::Registry& registry,
                                                                      SubstructureOptions options);

/// A run of the project trained on a label set that groups another (a weak-metric run).
struct WeakMetricRun {
    std::int64_t runId = 0;
    std::string status;
    std::string coarseLabelSet; ///< the run's TrainerConfig::labelSet
    std::string fineLabelSet;   ///< the set it was derived from (its stored mapping), else the first finerLabelSets()
    std::string recipe;         ///< the recipe, else the loss
    std::string checkpoint;     ///< best.pt beside its newest checkpoint when there, else the newest checkpoint
    std::int64_t step = 0;      ///< of the newest recorded checkpoint
    bool fromInitial = false;   ///< started from a checkpoint that still exists (before = that network)
};

/// The weak-metric runs of dataset `datasetId` of `store` that have a checkpoint, newest first;
/// `ds` is that dataset with the project's labels (project::withProjectLabels). Runs on the
/// fine labels, or on a set that groups no other, are left out. Blocking (SQLite reads).
std::vector<WeakMetricRun> weakMetricRuns(const project::ProjectStore& store, std::int64_t datasetId,
                                          const data::Dataset& ds);

} // namespace setscope::workspace
