// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/workspace/SetFlow.h"
#include "gui/views/ExplorerView.h"

#include <optional>

class QComboBox;
class QLabel;

namespace setscope::gui {

class FlowCanvas;

/// EMD flow (issue 10 §4; seed 001 Eq. 1-2): two sets in a shared 2-D projection of their
/// elements with the optimal flow between them (FlowCanvas), the EMD, the work and the total
/// flow. The first set is the current item; the second is another selected item when the
/// selection holds one (Ctrl-click a second point), else the first's EMD-nearest item of the
/// train split (searched with the pruned exact kNN).
class FlowView final : public ExplorerView {
    Q_OBJECT
public:
    FlowView(Session* session, SelectionModel* selection, QWidget* parent = nullptr);
    ~FlowView() override;

    /// Shows the flow from `a` to `b` (b < 0: a's EMD-nearest item). False, and why in the
    /// status line, when it cannot.
    bool showFlow(std::int64_t a, std::int64_t b = -1);
    FlowCanvas* canvas() const { return m_canvas; }
    QLabel* summaryLabel() const { return m_summary; }
    QString toSvg() const override;

protected:
    void onDatasetChanged() override;
    void onCurrentChanged(std::int64_t item) override;
    std::int64_t shownItem() const override { return m_a; }

private:
    /// The second set for `a` from the selection (-1: none selected).
    std::int64_t selectedPartner(std::int64_t a) const;
    void showSummary();

    QComboBox* m_ground = nullptr;
    QLabel* m_summary = nullptr;
    FlowCanvas* m_canvas = nullptr;
    std::int64_t m_a = -1, m_b = -1;
    std::string m_partnerHow;
};

} // namespace setscope::gui
