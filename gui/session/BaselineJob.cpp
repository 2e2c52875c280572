// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/session/BaselineJob.h"

#include "core/data/Dataset.h"

namespace setscope::gui {

BaselineJob::BaselineJob(std::shared_ptr<const data::Dataset> dataset, std::string labelSet)
    : m_dataset(std::move(dataset))
    , m_labelSet(std::move(labelSet))
{
}

BaselineJob::~BaselineJob() { stopAndWait(); }

std::vector<eval::MetricValue> BaselineJob::result() const
{
    std::lock_guard lock(m_mutex);
    return m_result;
}

void BaselineJob::run()
{
    reportProgress(0, 0, "scoring raw vectors of '" + m_dataset->name() + "' (" + m_labelSet + ")");
    std::vector<eval::MetricValue> values = eval::evaluateRawMetrics(*m_dataset, m_labelSet, eval::standardMetrics(), &control());
    std::lock_guard lock(m_mutex);
    m_result = std::move(values);
}

} // namespace setscope::gui
