// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/project/AttachJob.h"

#include "core/data/Dataset.h"
#include "core/project/ProjectStore.h"

namespace setscope::project {

AttachJob::AttachJob(std::shared_ptr<ProjectStore> store, std::shared_ptr<const data::Dataset> dataset,
                     std::string path)
    : m_store(std::move(store))
    , m_dataset(std::move(dataset))
    , m_path(std::move(path))
{
    if (!m_store || !m_dataset)
        throw std::invalid_argument("AttachJob: no project or no dataset");
}

AttachJob::~AttachJob() { stopAndWait(); }

AttachedDataset AttachJob::result() const
{
    std::lock_guard lock(m_mutex);
    return m_result;
}

void AttachJob::run()
{
    control().checkpoint();
    reportProgress(0, 0, "opening '" + m_dataset->name() + "' in project " + m_store->path());
    AttachedDataset a = attachDataset(*m_store, *m_dataset, m_path);
    control().checkpoint(); // a cancelled attach publishes nothing
    std::lock_guard lock(m_mutex);
    m_result = std::move(a);
}

} // namespace setscope::project
