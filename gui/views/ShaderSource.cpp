// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/ShaderSource.h"

#include <QDir>
#include <QFile>

namespace setscope::gui {

QByteArray ShaderSource::load(const QString& name, QString* origin)
{
    QStringList candidates;
    const QString dir = qEnvironmentVariable("SETSCOPE_SHADER_DIR");
    if (!dir.isEmpty())
        candidates << QDir(dir).filePath(name);
    candidates << QStringLiteral(":/shaders/") + name;
    for (const QString& path : candidates) {
        QFile f(path);
        if (f.open(QIODevice::ReadOnly)) {
            if (origin)
                *origin = path;
            return f.readAll();
        }
    }
    return {};
}

} // namespace setscope::gui
