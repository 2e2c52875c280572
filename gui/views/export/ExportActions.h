// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QImage>
#include <QString>

class QWidget;

namespace setscope::gui {

class Session;

/// What File ▸ Export writes (issue 10 §4 "Export"). Each returns "" on success, else the
/// message to show (naming the file); nothing already on disk is replaced by a partial file.
namespace exporting {

/// The widget as drawn, with the embedding maps inside it (EmbeddingView, native OpenGL
/// windows that QWidget::grab() leaves blank) rendered through grabMap() and painted in
/// their places. Device pixels, the widget's device pixel ratio.
QImage grabWidget(QWidget* widget);
/// The widget as a PNG (an OpenGL map through its framebuffer, anything else through
/// grabWidget()).
QString savePng(QWidget* widget, const QString& path);
/// An SVG document (from a view's toSvg()) into `path`; refuses an empty document.
QString saveSvg(const QString& svg, const QString& path);
/// The newest training snapshot's embeddings (every item it covers) as .npy + .csv metadata,
/// or, with `tsv`, as vectors.tsv + metadata.tsv in the folder `path`.
QString saveEmbeddings(const Session& session, const QString& path, bool tsv);
/// Every run of the open project as CSV.
QString saveRuns(const Session& session, const QString& path);

} // namespace exporting
} // namespace setscope::gui
