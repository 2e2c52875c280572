// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QWidget>

class QPlainTextEdit;

namespace setscope::gui {

/// The session's messages with their time: job reports, refused plugins, errors.
class LogPanel final : public QWidget {
    Q_OBJECT
public:
    explicit LogPanel(QWidget* parent = nullptr);
    QString text() const;

public Q_SLOTS:
    void appendMessage(const QString& text);
    void appendError(const QString& text);

private:
    QPlainTextEdit* m_text = nullptr;
};

} // namespace setscope::gui
