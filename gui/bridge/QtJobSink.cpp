// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/bridge/QtJobSink.h"

namespace setscope::gui {

QtJobSink::QtJobSink(QObject* parent)
    : QObject(parent)
    , m_target(std::make_unique<JobCallsToSignals<job::ProgressSink>>(*this))
{
}

QtJobSink::QtJobSink(std::unique_ptr<job::ProgressSink> target, QObject* parent)
    : QObject(parent)
    , m_target(std::move(target))
{
}

QtJobSink::~QtJobSink() = default;

} // namespace setscope::gui
