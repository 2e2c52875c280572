// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QByteArray>
#include <QString>

namespace setscope::gui {

/// Where GLSL sources come from: the copies embedded at build time (":/shaders/NAME"), or,
/// when the environment variable SETSCOPE_SHADER_DIR names a folder holding NAME, that
/// file (edit shaders/ and reopen the view without rebuilding).
class ShaderSource {
public:
    /// The source text of `name` (e.g. "points.vert"); empty when neither exists.
    /// `origin`, when given, receives the path it was read from.
    static QByteArray load(const QString& name, QString* origin = nullptr);
};

} // namespace setscope::gui
