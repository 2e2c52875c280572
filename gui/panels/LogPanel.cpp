// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/LogPanel.h"

#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QTime>
#include <QVBoxLayout>

namespace setscope::gui {

LogPanel::LogPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_text = new QPlainTextEdit;
    m_text->setObjectName(QStringLiteral("logText"));
    m_text->setReadOnly(true);
    m_text->setMaximumBlockCount(5000);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_text);
}

QString LogPanel::text() const { return m_text->toPlainText(); }

void LogPanel::appendMessage(const QString& text)
{
    m_text->appendPlainText(QTime::currentTime().toString(QStringLiteral("HH:mm:ss  ")) + text);
}

void LogPanel::appendError(const QString& text)
{
    m_text->appendPlainText(QTime::currentTime().toString(QStringLiteral("HH:mm:ss  ")) + tr("error: ") + text);
}

} // namespace setscope::gui
