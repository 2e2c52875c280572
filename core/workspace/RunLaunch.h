// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// A training run in this process as one job with phases (issue 30 §2): the recipe's external
// dataset opened (unless one is given), the run recorded in the project, then the training
// itself on the same thread. The GUI's Session holds one of these in its run slot and the CLI
// runs one with runHere(); both set the run up before through Workspace (the dataset, its project)
// and the CLI through TrainLaunch's phases (flags, defaults, checkpoints). Qt-free.

#include "core/job/Job.h"
#include "core/train/TrainerConfig.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace setscope::data {
class Dataset;
}
namespace setscope::plugin {
class Registry;
}
namespace setscope::project {
class ProjectStore;
class RunRecorder;
}
namespace setscope::train {
class TrainingJob;
}

namespace setscope::workspace {

class Workspace;

/// What a launch needs, taken on the caller's thread (Workspace is that thread's state).
struct RunLaunch {
    std::shared_ptr<project::ProjectStore> store; ///< record the run here (null: not recorded)
    std::int64_t datasetId = 0;                   ///< the dataset's id in `store`
    std::shared_ptr<const data::Dataset> dataset;
    train::TrainerConfig config;
    /// The recipe's external dataset when it is already open; else, when the recipe needs one
    /// (train::RunPlan::needsExternal), the job opens config.externalDataset first.
    std::shared_ptr<const data::Dataset> external;

    /// The open dataset of `ws` (recorded when it is in the workspace's project), with
    /// `config` and the external dataset the workspace keeps for config.externalDataset.
    /// Throws std::logic_error when no dataset is open.
    static RunLaunch from(const Workspace& ws, train::TrainerConfig config);
};

/// The job. Its sink gets what the phases report ("opening NAME: ..." progress, "recording run N
/// in ... (checkpoints in ...)") and then everything the training job reports (a
/// train::TrainingSink gets losses, epoch rows and checkpoints too), and one finished() with the
/// run's status: a failed or cancelled training fails or cancels this job with the same detail.
/// Cancel, pause and resume reach the phase in progress (a pause holds the opening of the external
/// dataset at its next poll, and the training at its next step).
class RunLaunchJob final : public job::Job {
public:
    /// Throws std::invalid_argument (a bad configuration, an unknown item) before anything runs:
    /// the run is planned here.
    RunLaunchJob(RunLaunch launch, const plugin::Registry& registry);
    ~RunLaunchJob() override;

    void cancel() override;
    void pause() override;
    void resume() override;

    /// The training job once the run is set up (null before, while the external dataset opens,
    /// and when setting it up failed). Any thread; it lives as long as this job.
    const train::TrainingJob* training() const;
    /// The external dataset the run trains with (opened here or given; null when the recipe
    /// needs none or it is not open yet). Any thread.
    std::shared_ptr<const data::Dataset> external() const;
    /// The run's id in the project (0 while not recorded or without a project). Any thread.
    std::int64_t runId() const;
    /// The run's configuration (as given; the recorded one may name the checkpoint folder).
    const train::TrainerConfig& config() const { return m_launch.config; }
    /// True when the recipe needs an external dataset that this job has to open.
    bool opensExternal() const { return m_opensExternal; }

protected:
    void run() override;

private:
    RunLaunch m_launch;
    const plugin::Registry& m_registry;
    bool m_opensExternal = false;
    mutable std::mutex m_mutex; ///< guards what other threads read and the forwarding of control
    std::shared_ptr<const data::Dataset> m_external;
    std::unique_ptr<project::RunRecorder> m_recorder;
    std::unique_ptr<train::TrainingJob> m_training; ///< declared last: destroyed (joined) first
};

} // namespace setscope::workspace
