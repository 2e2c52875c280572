// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <Qt>
#include <QString>

#include <functional>
#include <vector>

namespace setscope::gui {

class ExplorerView;
class SelectionModel;
class Session;

/// One of the explorer's views as the main window hosts it: a dock named `id` in `area`,
/// tabbed with the other views of that area, listed in the View menu. Adding a view is one
/// entry here (and its folder under gui/views/).
struct ViewSpec {
    QString id;    ///< object name of the dock ("retrievalDock") and of the view ("retrievalView")
    QString title; ///< dock title and menu entry
    Qt::DockWidgetArea area;
    std::function<ExplorerView*(Session*, SelectionModel*)> make;
};

/// The views, in the order of their tabs: Retrieval, PointSwap, EMD flow, Compare, Substructure (right,
/// beside the training panel), Dashboard (bottom, beside the metrics table and the log).
const std::vector<ViewSpec>& explorerViews();

} // namespace setscope::gui
