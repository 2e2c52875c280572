// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// A training run as a front end asks for it (issue 30 §2): `setscope-cli train` gives the
// settings and which of them the user chose; the phases here do the rest, so that the front end
// only turns flags into a TrainRequest, prints what the phases report and runs the job:
//   resolveTrain      the settings the run will have: defaults for a dataset of sets, the items'
//                     options, a coarse label set's name, a resumed run's parts and threads;
//                     validated, the device checked, every item and option planned
//   batchShardsFor    the parts of a batch for a run of local ranks
//   prepareTrainData  the data: the dataset (and the external one of a recipe that pre-trains on
//                     it) opened, a checkpoint to resume or start from checked against it, the
//                     dataset put in the workspace (attached to the project when there is one)
//                     and the coarse label set derived
// Then Workspace::prepareRun records the run (the same call the GUI's Session makes).

#include "core/data/Dataset.h"
#include "core/data/LabelMapping.h"
#include "core/train/RunPlan.h"
#include "core/train/TrainerConfig.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace setscope::plugin {
class Registry;
}

namespace setscope::workspace {

class Workspace;

/// The settings as a front end gives them.
struct TrainRequest {
    std::string dataset;         ///< a name or a path (catalog::openDataset)
    train::TrainerConfig config; ///< as given (flags over a config file)
    /// Options of the recipe's items by name, as given (train::applyItemOptions hands each to the
    /// items that declare it).
    std::map<std::string, std::string> itemOptions;
    /// Which settings the user chose; the others follow the dataset (model, preset, epochs), the
    /// coarse mapping (label set) or the checkpoint resumed (threads, parts of a batch).
    bool modelGiven = false;
    bool presetGiven = false;
    bool epochsGiven = false;
    bool labelSetGiven = false;
    bool threadsGiven = false;
    bool shardsGiven = false;
    std::string coarseMapping; ///< a label mapping file (docs/LABELS.md): derive that set, train on it
    std::string project;       ///< record the run in this project file ("" = not recorded)
};

/// Opens a dataset by name or path (the front end's: the CLI caches what it opened).
using OpenDatasetFn = std::function<std::shared_ptr<const data::Dataset>(const std::string& spec)>;

/// What resolveTrain() decided.
struct ResolvedTrain {
    train::TrainerConfig config; ///< validated, device checked
    train::RunPlan plan;         ///< every item looked up and every option checked
    /// The dataset when the defaults needed it opened (a dataset of sets gets the set encoder),
    /// else null; prepareTrainData() opens it then.
    std::shared_ptr<const data::Dataset> dataset;
    std::optional<data::LabelMapping> coarse; ///< read before any work: a bad file fails at once
    /// "a dataset of sets: model selfattn, preset cpu (--model and --preset choose others)", or "".
    std::string defaultsNote;
};

/// Phase 1. Throws std::invalid_argument (a bad setting, item or option, naming it),
/// sdk::InputError (a dataset or mapping file that cannot be read) and the checkpoint's errors.
ResolvedTrain resolveTrain(const TrainRequest& request, const plugin::Registry& registry, const OpenDatasetFn& open);

/// The parts each step's batch is cut into for `processes` local ranks: the single-process 1
/// becomes one part per rank unless the user asked for 1. Throws std::invalid_argument when it
/// is not a multiple of `processes` (each rank takes whole parts).
int batchShardsFor(const train::TrainerConfig& config, bool shardsGiven, int processes);

/// What prepareTrainData() opened and what it has to say.
struct PreparedTrain {
    std::shared_ptr<const data::Dataset> external; ///< the recipe's external dataset, or null
    /// For the user, in order: "starting from the weights of FILE", "resuming from FILE: an exact
    /// continuation", "label set 'coarse' derived in the project (12 items changed)".
    std::vector<std::string> notes;
};

/// Phase 2, on the caller's thread (blocking: reads the data, SQLite with a project). Opens
/// the dataset and the external one, checks a checkpoint to resume or start from against them
/// (before any other work), opens `request.project` in `ws` and attaches the dataset to it (or
/// adopts it outside any project), derives the coarse label set (saved in the project, else
/// for this run only). Afterwards ws.dataset() is what the run trains on.
PreparedTrain prepareTrainData(const ResolvedTrain& resolved, const TrainRequest& request, Workspace& ws,
                               const OpenDatasetFn& open);

} // namespace setscope::workspace
