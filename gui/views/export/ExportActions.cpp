// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/export/ExportActions.h"

#include "core/data/Dataset.h"
#include "core/project/ProjectStore.h"
#include "core/util/AtomicFile.h"
#include "core/workspace/Export.h"
#include "gui/session/Session.h"
#include "gui/views/map/EmbeddingView.h"

#include <QBuffer>
#include <QPainter>
#include <QWidget>

#include <ostream>

namespace setscope::gui::exporting {

namespace {

/// `bytes` into `path` through core's atomic writer (and its fault seam): the previous file
/// stays whole when the disk is full; "" or the message naming the file and the cause.
QString writeBytes(const QByteArray& bytes, const QString& path)
{
    try {
        util::writeFileAtomically(path.toStdString(), [&](std::ostream& out) { out.write(bytes.constData(), bytes.size()); });
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

QImage grabWidget(QWidget* widget)
{
    if (!widget)
        return {};
    QImage image = widget->grab().toImage();
    if (image.isNull())
        return image;
    QList<EmbeddingView*> maps = widget->findChildren<EmbeddingView*>();
    if (auto* self = qobject_cast<EmbeddingView*>(widget))
        maps.prepend(self);
    QPainter painter(&image);
    for (EmbeddingView* map : maps) {
        const auto* surface = map->findChild<QWidget*>(QStringLiteral("mapSurface"), Qt::FindDirectChildrenOnly);
        if (!surface || !(map == widget || map->isVisibleTo(widget)))
            continue;
        const QImage picture = map->grabMap();
        if (!picture.isNull())
            painter.drawImage(QPointF(surface->mapTo(widget, QPoint(0, 0))), picture);
    }
    return image;
}

QString savePng(QWidget* widget, const QString& path)
{
    if (!widget)
        return QObject::tr("Nothing to export");
    QImage image;
    if (auto* map = qobject_cast<EmbeddingView*>(widget))
        image = map->grabMap();
    else
        image = grabWidget(widget);
    if (image.isNull())
        return QObject::tr("Could not render the view");
    QByteArray png;
    {
        QBuffer buf(&png);
        if (!buf.open(QIODevice::WriteOnly) || !image.save(&buf, "PNG"))
            return QObject::tr("Could not encode the view as PNG");
    }
    return writeBytes(png, path);
}

QString saveSvg(const QString& svg, const QString& path)
{
    if (svg.isEmpty())
        return QObject::tr("This view has nothing to export yet");
    return writeBytes(svg.toUtf8(), path);
}

QString saveEmbeddings(const Session& session, const QString& path, bool tsv)
{
    const auto ds = session.dataset();
    const auto snap = session.snapshot();
    if (!ds)
        return QObject::tr("Open a dataset first");
    if (!snap)
        return QObject::tr("No embeddings yet: start a training run (its snapshots are what is exported)");
    try {
        workspace::EmbeddingTable t{snap->items, snap->dim, snap->vectors};
        if (tsv)
            workspace::writeEmbeddingsTsv(path.toStdString(), *ds, t);
        else
            workspace::writeEmbeddingsNpy(path.toStdString(), *ds, t);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

QString saveRuns(const Session& session, const QString& path)
{
    project::ProjectStore* store = session.project();
    if (!store)
        return QObject::tr("Open a project first: runs are recorded in it");
    try {
        workspace::writeRunsCsv(path.toStdString(), *store);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace setscope::gui::exporting
