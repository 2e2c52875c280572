// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/project/RunRecorder.h"
#include "core/job/Job.h"

#include <memory>
#include <mutex>
#include <string>

namespace setscope::project {

/// attachDataset() on a worker thread: registers a dataset in a project and gives it the
/// project's labels, so the GUI thread never waits on SQLite's fsync or copies a dataset.
/// Shares the store, so the job may outlive its starter's interest in the project.
class AttachJob final : public job::Job {
public:
    AttachJob(std::shared_ptr<ProjectStore> store, std::shared_ptr<const data::Dataset> dataset, std::string path);
    ~AttachJob() override;

    /// The result once the job has Finished (empty before). Thread-safe.
    AttachedDataset result() const;

protected:
    void run() override;

private:
    std::shared_ptr<ProjectStore> m_store;
    std::shared_ptr<const data::Dataset> m_dataset;
    std::string m_path;
    mutable std::mutex m_mutex;
    AttachedDataset m_result;
};

} // namespace setscope::project
