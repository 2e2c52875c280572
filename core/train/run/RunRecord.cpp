// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/RunRecord.h"

namespace setscope::train::run {

std::vector<EpochMetrics> RunRecord::history() const
{
    std::lock_guard lock(m_mutex);
    return m_history;
}

void RunRecord::setHistory(std::vector<EpochMetrics> history)
{
    std::lock_guard lock(m_mutex);
    m_history = std::move(history);
}

void RunRecord::appendEpoch(const EpochMetrics& m)
{
    std::lock_guard lock(m_mutex);
    m_history.push_back(m);
}

std::string RunRecord::lastCheckpoint() const
{
    std::lock_guard lock(m_mutex);
    return m_lastCheckpoint;
}

void RunRecord::setLastCheckpoint(std::string path)
{
    std::lock_guard lock(m_mutex);
    m_lastCheckpoint = std::move(path);
}

std::string RunRecord::bestCheckpoint() const
{
    std::lock_guard lock(m_mutex);
    return m_bestCheckpoint;
}

void RunRecord::setBestCheckpoint(std::string path)
{
    std::lock_guard lock(m_mutex);
    m_bestCheckpoint = std::move(path);
}

std::shared_ptr<const model::ModelHandle> RunRecord::model() const
{
    std::lock_guard lock(m_mutex);
    return m_model;
}

void RunRecord::setModel(std::shared_ptr<const model::ModelHandle> model)
{
    std::lock_guard lock(m_mutex);
    m_model = std::move(model);
}

} // namespace setscope::train::run
