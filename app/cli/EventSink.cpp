// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "EventSink.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace setscope::cli {

namespace {

nlohmann::json number(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

void emit(const nlohmann::json& j)
{
    const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::fprintf(stdout, "%s\n", line.c_str());
    std::fflush(stdout);
}

} // namespace

void EventSink::progress(std::int64_t done, std::int64_t total, const std::string& what)
{
    std::lock_guard lock(m_mutex);
    const auto now = std::chrono::steady_clock::now();
    if (done != total && now - m_lastProgress < std::chrono::milliseconds(100))
        return;
    m_lastProgress = now;
    emit({{"event", "progress"}, {"done", done}, {"total", total}, {"what", what}});
}

void EventSink::message(const std::string& text)
{
    std::lock_guard lock(m_mutex);
    emit({{"event", "message"}, {"text", text}});
}

void EventSink::finished(job::JobStatus status, const std::string& detail)
{
    std::lock_guard lock(m_mutex);
    const char* s = status == job::JobStatus::Finished ? "finished" : status == job::JobStatus::Cancelled ? "cancelled" : "failed";
    emit({{"event", "finished"}, {"status", s}, {"detail", detail}});
}

void EventSink::stepLoss(std::int64_t step, double loss)
{
    std::lock_guard lock(m_mutex);
    emit({{"event", "loss"}, {"step", step}, {"loss", number(loss)}});
}

void EventSink::epochMetrics(const train::EpochMetrics& m)
{
    nlohmann::json values = nlohmann::json::array();
    for (const auto& [k, v] : m.values)
        values.push_back({k, number(v)});
    std::lock_guard lock(m_mutex);
    emit({{"event", "epoch"},
          {"epoch", m.epoch},
          {"step", m.step},
          {"mean_loss", number(m.meanLoss)},
          {"seconds", number(m.seconds)},
          {"stage", m.stage},
          {"values", values}});
}

void EventSink::checkpointWritten(std::int64_t step, const std::string& path)
{
    std::lock_guard lock(m_mutex);
    emit({{"event", "checkpoint"}, {"step", step}, {"path", path}});
}

} // namespace setscope::cli
