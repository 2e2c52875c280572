// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/Dataset.h"
#include "core/job/Job.h"

#include <memory>
#include <mutex>
#include <string>

namespace setscope::plugin {
class Registry;
}

namespace setscope::catalog {

/// Opens a dataset (openDataset: a name such as "fashion-mnist", "synthetic:..." or a path)
/// on a worker thread. When status() is Finished, result() holds it; when Failed,
/// error() holds the message (file and record included).
class LoadJob final : public job::Job {
public:
    LoadJob(std::string spec, const plugin::Registry& registry);
    ~LoadJob() override;

    const std::string& spec() const { return m_spec; }
    std::shared_ptr<const data::Dataset> result() const;

protected:
    void run() override;

private:
    std::string m_spec;
    const plugin::Registry& m_registry;
    mutable std::mutex m_mutex;
    std::shared_ptr<const data::Dataset> m_result;
};

} // namespace setscope::catalog
