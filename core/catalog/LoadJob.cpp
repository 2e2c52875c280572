// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/catalog/LoadJob.h"

#include "core/catalog/DatasetCatalog.h"

namespace setscope::catalog {

using namespace data;

LoadJob::LoadJob(std::string spec, const plugin::Registry& registry)
    : m_spec(std::move(spec))
    , m_registry(registry)
{
}

LoadJob::~LoadJob() { stopAndWait(); }

std::shared_ptr<const data::Dataset> LoadJob::result() const
{
    std::lock_guard lock(m_mutex);
    return m_result;
}

void LoadJob::run()
{
    reportProgress(0, 0, "loading " + m_spec);
    auto ds = std::make_shared<const Dataset>(openDataset(m_spec, m_registry, OpenContext{sink(), &control()}));
    control().checkpoint(); // a cancel during loading discards the result
    {
        std::lock_guard lock(m_mutex);
        m_result = std::move(ds);
    }
    reportProgress(1, 1, "loaded " + m_spec);
}

} // namespace setscope::catalog
