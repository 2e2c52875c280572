// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/ViewList.h"

#include "gui/views/compare/CompareView.h"
#include "gui/views/dashboard/DashboardView.h"
#include "gui/views/flow/FlowView.h"
#include "gui/views/pointswap/PointSwapView.h"
#include "gui/views/retrieval/RetrievalView.h"
#include "gui/views/substructure/SubstructureView.h"

namespace setscope::gui {

const std::vector<ViewSpec>& explorerViews()
{
    static const std::vector<ViewSpec> views{
        {QStringLiteral("retrieval"), QObject::tr("Retrieval"), Qt::RightDockWidgetArea,
         [](Session* s, SelectionModel* sel) -> ExplorerView* { return new RetrievalView(s, sel); }},
        {QStringLiteral("pointswap"), QObject::tr("PointSwap"), Qt::RightDockWidgetArea,
         [](Session* s, SelectionModel* sel) -> ExplorerView* { return new PointSwapView(s, sel); }},
        {QStringLiteral("flow"), QObject::tr("EMD flow"), Qt::RightDockWidgetArea,
         [](Session* s, SelectionModel* sel) -> ExplorerView* { return new FlowView(s, sel); }},
        {QStringLiteral("compare"), QObject::tr("Compare"), Qt::RightDockWidgetArea,
         [](Session* s, SelectionModel* sel) -> ExplorerView* { return new CompareView(s, sel); }},
        {QStringLiteral("substructure"), QObject::tr("Substructure"), Qt::RightDockWidgetArea,
         [](Session* s, SelectionModel* sel) -> ExplorerView* { return new SubstructureView(s, sel); }},
        {QStringLiteral("dashboard"), QObject::tr("Dashboard"), Qt::BottomDockWidgetArea,
         [](Session* s, SelectionModel* sel) -> ExplorerView* { return new DashboardView(s, sel); }},
    };
    return views;
}

} // namespace setscope::gui
