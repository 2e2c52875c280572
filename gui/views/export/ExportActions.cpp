// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/export/ExportActions.h"

#include "core/data/Dataset.h"
#include "core/project/ProjectStore.h"
#include "core/workspace/Export.h"
#include "gui/session/Session.h"
#include "gui/views/map/EmbeddingView.h"
#include "gui/views/Palette.h"
#include "gui/views/export/Svg.h"

#include <QFile>
#include <QSaveFile>
#include <QWidget>

namespace setscope::gui::exporting {

QString savePng(QWidget* widget, const QString& path)
{
    if (!widget)
        return QObject::tr("Nothing to export");
    QImage image;
    if (auto* map = qobject_cast<EmbeddingView*>(widget))
        image = map->grabMap();
    else
        image = widget->grab().toImage();
    if (image.isNull())
        return QObject::tr("Could not render the view");
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || !image.save(&f, "PNG") || !f.commit())
        return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
    return {};
}

QString saveSvg(const QString& svg, const QString& path)
{
    if (svg.isEmpty())
        return QObject::tr("This view has nothing to export yet");
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(svg.toUtf8()) < 0 || !f.commit())
        return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
    return {};
}

QString mapSvg(const EmbeddingView& view, const data::Dataset* ds)
{
    const std::vector<float> pos = view.currentPositions();
    const std::vector<std::int64_t>& items = view.items();
    if (items.empty())
        return {};
    const data::LabelSet* ls = nullptr;
    if (ds && !ds->labelSets().empty()) {
        ls = ds->labelSet(view.colorBy().toStdString());
        if (!ls)
            ls = &ds->labelSets().front();
    }
    const double w = view.width(), h = view.height();
    SvgWriter svg(w, h, Palette::mapBackground());
    const double r = std::max(1.0, view.pointSize() / 2.0);
    for (std::size_t i = 0; i < items.size(); ++i) {
        const QPointF at = view.mapToWidget(QPointF(pos[2 * i], pos[2 * i + 1]));
        if (at.x() < -r || at.y() < -r || at.x() > w + r || at.y() > h + r)
            continue;
        const std::int32_t c = ls ? ls->labels[static_cast<std::size_t>(items[i])] : -1;
        svg.circle(at, r, c >= 0 ? Palette::color(c) : Palette::unlabelled());
    }
    if (ls) {
        double y = 18;
        svg.rect(QRectF(8, 6, 170, 16.0 * static_cast<double>(ls->classNames.size()) + 10), QColor(255, 255, 255, 200));
        for (std::size_t c = 0; c < ls->classNames.size(); ++c) {
            svg.circle(QPointF(18, y - 4), 5, Palette::color(static_cast<int>(c)));
            svg.text(QPointF(28, y), QString::fromStdString(ls->classNames[c]), 11);
            y += 16;
        }
    }
    return svg.finish();
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
